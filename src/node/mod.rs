//! The napi binding: the only Rust that knows JavaScript. It converts, wraps JS callbacks in
//! ThreadsafeFunctions and forwards coarse calls to the core.

mod callbacks;
mod client;
mod fetch;
mod mcp_json;
mod oauth;
mod oauth_steps;
mod tool_lock;
mod traced;

use std::sync::OnceLock;

/// A handle on the runtime napi drives our futures with. Dropping rmcp objects needs a runtime
/// context (they clean up with `tokio::spawn`), also while Node tears the environment down,
/// after napi has shut its runtime slot; a handle can still be entered then.
static RUNTIME: OnceLock<tokio::runtime::Handle> = OnceLock::new();

/// Runs `f` inside our runtime's context.
pub(crate) fn in_runtime<T>(f: impl FnOnce() -> T) -> T {
    let _guard = RUNTIME.get().map(|h| h.enter());
    f()
}

#[napi_derive::module_init]
fn init() {
    match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
        Ok(rt) => {
            let _ = RUNTIME.set(rt.handle().clone());
            napi::bindgen_prelude::create_custom_tokio_runtime(rt);
        }
        Err(e) => tracing::error!("could not build the tokio runtime: {e}"),
    }
    // reqwest (rustls without a bundled provider) needs a process-wide crypto provider before
    // the first client is built; installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

//! OAuth in the binding: the user's provider behind the core's `AuthProvider` port, and the
//! loopback callback server as a JS class (`createOAuthCallbackServer`).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;
use serde_json::{json, Value};

use crate::core::auth::callback::{candidates, CallbackServer};
use crate::core::auth::AuthProvider;
use crate::core::config::{positive_ms_f64, DEFAULT_OAUTH_CALLBACK_TIMEOUT_MS};

/// `(request: { server, op, args }) => Promise<unknown>`: calls provider method `op`.
pub type AuthFn = ThreadsafeFunction<Value, Promise<Value>, Value, Status, false, true>;

pub struct JsAuthProvider {
    pub callback: Arc<AuthFn>,
    pub server: String,
}

impl AuthProvider for JsAuthProvider {
    fn call(&self, op: &'static str, args: Value) -> BoxFuture<'static, std::result::Result<Value, String>> {
        let callback = self.callback.clone();
        let server = self.server.clone();
        Box::pin(async move {
            let promise = callback
                .call_async_catch(json!({ "server": server, "op": op, "args": args }))
                .await
                .map_err(|e| format!("OAuth provider {op}() for server {server} failed: {}", e.reason))?;
            promise.await.map_err(|e| format!("OAuth provider {op}() for server {server} failed: {}", e.reason))
        })
    }
}

/// The 11 redirect URLs a callback server may bind for `redirectUrl`.
#[napi]
pub fn get_callback_url_candidates(redirect_url: String) -> Result<Vec<String>> {
    let url = url::Url::parse(&redirect_url).map_err(|e| Error::new(Status::InvalidArg, format!("invalid redirect URL {redirect_url}: {e}")))?;
    Ok(candidates(&url).iter().map(|u| u.to_string()).collect())
}

#[napi(object)]
pub struct CallbackResult {
    pub code: String,
    pub state: String,
    pub iss: Option<String>,
}

/// A running loopback callback server.
#[napi]
pub struct NativeCallbackServer {
    inner: Arc<CallbackServer>,
}

#[napi]
impl NativeCallbackServer {
    /// Binds the redirect URL's host (or the next free port of the ten after it).
    #[napi(factory)]
    pub async fn start(redirect_url: String, state: String) -> Result<NativeCallbackServer> {
        let url = url::Url::parse(&redirect_url).map_err(|e| Error::new(Status::InvalidArg, format!("invalid redirect URL {redirect_url}: {e}")))?;
        let server = CallbackServer::start(&url, Some(state)).await.map_err(|e| Error::new(Status::GenericFailure, e))?;
        Ok(NativeCallbackServer { inner: Arc::new(server) })
    }

    #[napi(getter)]
    pub fn url(&self) -> String {
        self.inner.url.to_string()
    }

    #[napi(getter)]
    pub fn port(&self) -> u32 {
        u32::from(self.inner.port)
    }

    #[napi]
    pub async fn wait_for_code(&self, timeout_ms: Option<f64>) -> Result<CallbackResult> {
        let timeout = Duration::from_millis(timeout_ms.and_then(positive_ms_f64).unwrap_or(DEFAULT_OAUTH_CALLBACK_TIMEOUT_MS));
        let cb = self.inner.wait_for_code(timeout).await.map_err(|e| Error::new(Status::GenericFailure, e))?;
        Ok(CallbackResult { code: cb.code, state: cb.state, iss: cb.iss })
    }

    /// Resolves once the port can be bound again.
    #[napi]
    pub async fn close(&self) {
        self.inner.close().await;
    }
}

impl Drop for NativeCallbackServer {
    fn drop(&mut self) {
        let inner = self.inner.clone();
        super::in_runtime(move || drop(inner));
    }
}

//! `NativeClient`: the class the JS face wraps. Every method parses its arguments, makes one
//! core call and converts the result: plain JSON (or JSON text the face parses itself) out,
//! errors as the core's error JSON (`traced.rs`) in the error message.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use super::callbacks::{ClientCallbacks, JsElicitation, JsEventSink, NativeCallbacks, StderrFn};
use super::fetch::{CancelFn, FetchFn, JsFetch, ReadFn};
use super::oauth::{AuthFn, JsAuthProvider};
use super::traced::{json_error, to_napi};
use crate::core::calls::{CallTable, DISCONNECTED};
use crate::core::encode;
use crate::core::error::ErrorKind;
use crate::core::listen;
use crate::core::lists::Listing;
use crate::core::registry::HostPorts;
use crate::core::tool_call::{self, CallMeta, CallOptions, DirectCall, Settled};
use crate::core::{operations, skills, tool_cache, user_handlers};
use crate::core::{Connection, McpError, Registry};

fn opt_ms(v: Option<f64>) -> Option<u64> {
    v.and_then(crate::core::config::positive_ms_f64)
}

/// An argument the face passed that the binding does not know, as the core's error JSON.
fn invalid(message: String) -> Error {
    to_napi(McpError::new(ErrorKind::InvalidArguments, "", message))
}

#[napi(object)]
pub struct CallToolOptions {
    pub timeout_ms: Option<f64>,
    /// Id used with `cancel()` to abort this call.
    pub call_id: Option<u32>,
    /// `maxTotalTimeout` of this call, over the server's.
    pub max_total_timeout_ms: Option<f64>,
    /// The server's `enableProgressTracking`, as given.
    #[napi(ts_type = "boolean")]
    pub progress: Option<Value>,
    /// The caller's run id (the progress token when set).
    #[napi(ts_type = "string")]
    pub run_id: Option<Value>,
    /// The trace context fields of the request, as JSON text.
    pub trace_json: Option<String>,
    /// The user's `_meta`, as JSON text.
    pub meta_json: Option<String>,
}

/// What the core builds a call's request `_meta` from (`core::tool_call::CallMeta`).
fn call_meta(progress: Option<Value>, run_id: Option<Value>, trace_json: Option<String>, meta_json: Option<String>) -> CallMeta {
    CallMeta { track_progress: progress, run_id, trace_json, user_json: meta_json }
}

#[napi]
pub struct NativeClient {
    registry: Option<Arc<Registry>>,
    /// Calls in flight the face may cancel by id (and OAuth flows).
    calls: Arc<CallTable>,
    /// The process's shared callbacks, as this client's (a direct call's completion goes there).
    callbacks: ClientCallbacks,
    /// Whether results carry their operation's trace (`observe_operations`).
    observe: Arc<AtomicBool>,
}

impl Drop for NativeClient {
    fn drop(&mut self) {
        // rmcp cleans up children with `tokio::spawn` in `Drop`: drop inside the runtime.
        if let Some(registry) = self.registry.take() {
            super::in_runtime(move || drop(registry));
        }
    }
}

impl NativeClient {
    fn registry(&self) -> Arc<Registry> {
        self.registry.clone().expect("registry lives as long as the client")
    }

    fn server(&self, name: &str) -> Result<Arc<Connection>> {
        self.registry().get(name).map_err(to_napi)
    }

    fn observing(&self) -> bool {
        self.observe.load(Ordering::Relaxed)
    }
}

#[napi]
impl NativeClient {
    #[napi(constructor)]
    pub fn new(
        #[napi(ts_arg_type = "Record<string, unknown>")] servers: Value,
        timeout_ms: Option<f64>,
        callbacks: &NativeCallbacks,
        client: u32,
        #[napi(ts_arg_type = "((chunk: { server: string; data: Buffer }) => void) | undefined | null")] on_stderr: Option<StderrFn>,
        #[napi(ts_arg_type = "((request: FetchRequest) => Promise<FetchResponse>) | undefined | null")] on_fetch: Option<FetchFn>,
        #[napi(ts_arg_type = "((bodyId: number) => Promise<Buffer | null>) | undefined | null")] on_fetch_read: Option<ReadFn>,
        #[napi(ts_arg_type = "((bodyId: number) => void) | undefined | null")] on_fetch_cancel: Option<CancelFn>,
        #[napi(ts_arg_type = "((request: { server: string; op: string; args: unknown }) => Promise<unknown>) | undefined | null")] on_auth: Option<
            AuthFn,
        >,
    ) -> Result<Self> {
        // The callbacks every client has are the process's (`callbacks`, each payload naming
        // `client`); a client's own threadsafe functions are made only when one of its servers
        // needs them (a custom `fetch`, an OAuth provider, `stderr: 'pipe'`).
        let callbacks = ClientCallbacks { client, shared: callbacks.shared.clone() };
        let sink = Arc::new(JsEventSink { callbacks: callbacks.clone(), stderr: on_stderr });
        let responder = Arc::new(JsElicitation { callbacks: callbacks.clone() });
        let mut ports = HostPorts::reqwest().map_err(to_napi)?;
        if let (Some(fetch), Some(read), Some(cancel)) = (on_fetch, on_fetch_read, on_fetch_cancel) {
            let js_fetch = Arc::new(JsFetch { fetch: Arc::new(fetch), read: Arc::new(read), cancel: Arc::new(cancel) });
            ports.custom_fetch = Some(Arc::new(move |server: &str| js_fetch.backend_for(server)));
        }
        if let Some(on_auth) = on_auth.map(Arc::new) {
            ports.auth_provider = Some(Arc::new(move |server: &str| {
                Arc::new(JsAuthProvider { callback: on_auth.clone(), server: server.to_string() }) as Arc<dyn crate::core::auth::AuthProvider>
            }));
        }
        let registry = Registry::new(&servers, opt_ms(timeout_ms), sink, Some(responder), &ports).map_err(to_napi)?;
        Ok(NativeClient { registry: Some(Arc::new(registry)), calls: Default::default(), callbacks, observe: Default::default() })
    }

    /// From now on, results and errors carry their operation's trace (`core::observe`): the face
    /// asks once, when it first records a span or a metric for this client.
    #[napi]
    pub fn observe_operations(&self) {
        self.observe.store(true, Ordering::Relaxed);
    }

    /// A store is being opened for this client (`store` option): requests wait for `useStore`
    /// or `storeFailed` before they connect.
    #[napi]
    pub fn expect_store(&self) {
        self.registry().warm().expect();
    }

    /// The client's store is open: its servers keep there, in `scope`, what outlives the process.
    #[napi]
    pub fn use_store(&self, store: &crate::node::store::NativeStore, scope: String) {
        self.registry().warm().ready(store.core(), scope);
    }

    /// The client's store could not be opened: requests that need it fail with `message`.
    #[napi]
    pub fn store_failed(&self, message: String) {
        self.registry().warm().failed(message);
    }

    /// Connects one server (if needed) and returns its session info.
    #[napi(ts_return_type = "Promise<{ serverVersion?: string; instructions?: string; protocolVersion: string }>")]
    pub async fn connect(&self, server: String) -> Result<Value> {
        operations::session_info(&*self.server(&server)?).await.map_err(to_napi)
    }

    /// Closes and reopens one server's session.
    #[napi]
    pub async fn reconnect(&self, server: String) -> Result<()> {
        self.server(&server)?.reconnect().await.map_err(to_napi)
    }

    /// Closes every session; aborts in-flight calls' waits.
    #[napi]
    pub async fn disconnect(&self) -> Result<()> {
        self.calls.drain(DISCONNECTED);
        self.registry().disconnect_all().await;
        Ok(())
    }

    /// Tools of one server (`server` given) or of all servers.
    /// JSON text of `Array<{ server, ok, value?, error?, durationMs }>`.
    /// `metas`: each server's request `_meta` (the face's trace context), by server name.
    /// `keyOnly`: each listing's `tools` is `null` beside its `toolsKey` (`toolsText` gives the
    /// text for a key the face holds no parse of).
    #[napi(ts_return_type = "Promise<string>")]
    pub async fn list_tools(
        &self,
        server: Option<String>,
        per_server_timeout_ms: Option<f64>,
        #[napi(ts_arg_type = "Record<string, Record<string, string>> | undefined")] metas: Option<Value>,
        key_only: Option<bool>,
    ) -> Result<String> {
        let text = if key_only == Some(true) { operations::ToolsText::KeyOnly } else { operations::ToolsText::Included };
        operations::list_tools(&self.registry(), server, opt_ms(per_server_timeout_ms), metas, text, self.observing()).await.map_err(to_napi)
    }

    /// For each server, the epoch of its cached tool list when that list is still current and
    /// the session live (`null` otherwise): lets the face reuse its Tool objects without a call.
    #[napi(ts_return_type = "Record<string, number | null>")]
    pub fn current_tool_epochs(&self) -> Value {
        operations::per_server(&self.registry(), tool_cache::current_tools_epoch)
    }

    /// `resources/list`, `resources/templates/list` or `prompts/list` over all servers, every page.
    #[napi(ts_return_type = "Promise<Array<{ server: string; ok: boolean; value?: any; error?: any; durationMs: number }>>")]
    pub async fn list_all(
        &self,
        #[napi(ts_arg_type = "'resources' | 'resourceTemplates' | 'prompts'")] kind: String,
        per_server_timeout_ms: Option<f64>,
        #[napi(ts_arg_type = "Record<string, Record<string, string>> | undefined")] metas: Option<Value>,
    ) -> Result<Value> {
        let listing = Listing::from_name(&kind).ok_or_else(|| invalid(format!("unknown list kind {kind}")))?;
        Ok(operations::list_all(&self.registry(), listing, opt_ms(per_server_timeout_ms), metas, self.observing()).await)
    }

    /// `tools/call`, shaped: `{ kind: 'toolError' | 'structured' | 'raw', ... }`.
    #[napi(ts_return_type = "Promise<string>")]
    pub async fn call_tool(
        &self,
        server: String,
        name: String,
        #[napi(ts_arg_type = "Record<string, unknown> | undefined")] args: Option<Value>,
        options: Option<CallToolOptions>,
    ) -> Result<String> {
        let conn = self.server(&server)?;
        let options = options.map_or_else(CallOptions::default, |o| CallOptions {
            meta: call_meta(o.progress, o.run_id, o.trace_json, o.meta_json),
            timeout_ms: opt_ms(o.timeout_ms),
            call_id: o.call_id,
            max_total_timeout_ms: opt_ms(o.max_total_timeout_ms),
        });
        tool_call::call(&conn, &self.calls, name, args, options, self.observing()).await.map_err(json_error)
    }

    /// `tools/call` written straight to a connected stdio server from this thread, settled
    /// through the completion callback (`id` = `callId`). Returns false, having sent nothing,
    /// when the server has no ready lane (not connected yet, remote, or closed): use `callTool`.
    /// An answer that needs more than shaping (a 2026-07-28 `input_required` result, a task
    /// refusal) is handed to the async path, which follows it up without sending the call again.
    /// The request `_meta` is the core's, built from `progress` (the server's
    /// `enableProgressTracking`), `runId`, and the trace context and user `_meta` as JSON text.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn start_call(
        &self,
        server: String,
        name: String,
        args_json: String,
        call_id: u32,
        #[napi(ts_arg_type = "boolean | undefined")] progress: Option<Value>,
        #[napi(ts_arg_type = "string | undefined")] run_id: Option<Value>,
        trace_json: Option<String>,
        meta_json: Option<String>,
    ) -> Result<bool> {
        let conn = self.server(&server)?;
        let meta = call_meta(progress, run_id, trace_json, meta_json);
        let call = DirectCall { server, name, args_json, meta, observed: self.observing(), id: call_id };
        let callbacks = self.callbacks.clone();
        let settled = move |settled: Settled| match settled {
            Settled::Done(settlement) => callbacks.call_done(call_id, settlement),
            Settled::FollowUp(follow_up) => {
                napi::bindgen_prelude::spawn(async move { callbacks.call_done(call_id, follow_up.await) });
            }
        };
        tool_call::start(&conn, &self.calls, call, settled).map_err(to_napi)
    }

    /// Aborts an in-flight call started with `callId`.
    #[napi]
    pub fn cancel(&self, call_id: u32, reason: String) {
        self.calls.cancel(call_id, &reason);
    }

    /// `resources/read`; `meta` is the request's `_meta` (the face's trace context).
    #[napi]
    pub async fn read_resource(
        &self,
        server: String,
        uri: String,
        #[napi(ts_arg_type = "Record<string, string> | undefined")] meta: Option<Value>,
    ) -> Result<Value> {
        let conn = self.server(&server)?;
        encode::wrapped_or_error(operations::read_resource(&conn, uri, meta, self.observing()).await).map_err(json_error)
    }

    #[napi]
    pub async fn subscribe_resource(&self, server: String, uri: String) -> Result<Value> {
        listen::subscribe_resource(&*self.server(&server)?, &uri).await.map_err(to_napi)
    }

    #[napi]
    pub async fn unsubscribe_resource(&self, server: String, uri: String) -> Result<Value> {
        listen::unsubscribe_resource(&*self.server(&server)?, &uri).await.map_err(to_napi)
    }

    /// The server's skill entries (`core::skills::list`; none without the extension).
    #[napi(ts_return_type = "Promise<Array<Record<string, unknown>>>")]
    pub async fn list_skills(&self, server: String) -> Result<Vec<Value>> {
        skills::list(&*self.server(&server)?).await.map_err(to_napi)
    }

    /// The entry of the skill whose `SKILL.md` is `uri`.
    #[napi]
    pub async fn get_skill(&self, server: String, uri: String) -> Result<Value> {
        skills::get(&*self.server(&server)?, &uri).await.map_err(to_napi)
    }

    /// Loads a skill from its entry, or its URI: its `SKILL.md` read and verified.
    #[napi]
    pub async fn load_skill(&self, server: String, #[napi(ts_arg_type = "string | Record<string, unknown>")] entry: Value) -> Result<Value> {
        skills::load(&*self.server(&server)?, entry).await.map_err(to_napi)
    }

    /// One file of a loaded skill, verified against the entry it was loaded from.
    #[napi]
    pub async fn read_skill_file(
        &self,
        server: String,
        #[napi(ts_arg_type = "Record<string, unknown>")] entry: Value,
        path: String,
    ) -> Result<Value> {
        skills::read_file(&*self.server(&server)?, &entry, &path).await.map_err(to_napi)
    }

    /// A handler of `kind` (the face's kinds: 'toolListChanged', 'elicitation', …) was registered
    /// for `server`: the core decides what it asks for (`core::user_handlers`).
    #[napi]
    pub async fn handler_registered(&self, server: String, kind: String) -> Result<()> {
        user_handlers::registered(&self.registry(), &server, &kind).await.map_err(to_napi)
    }

    /// `prompts/get`, plus the matching `prompts/list` entry as `prompt`.
    #[napi]
    pub async fn get_prompt(
        &self,
        server: String,
        name: String,
        #[napi(ts_arg_type = "Record<string, unknown> | undefined")] args: Option<Value>,
        #[napi(ts_arg_type = "Record<string, string> | undefined")] meta: Option<Value>,
    ) -> Result<Value> {
        let conn = self.server(&server)?;
        encode::wrapped_or_error(operations::get_prompt(&conn, name, args, meta, self.observing()).await).map_err(json_error)
    }

    /// Advertise elicitation for a server on its next connect (errors once connected).
    #[napi]
    pub async fn enable_elicitation(&self, server: String) -> Result<()> {
        self.server(&server)?.enable_elicitation().await.map_err(to_napi)
    }

    /// `{ server: instructions | null }` from the last initialized session of each server, now.
    #[napi(ts_return_type = "Record<string, string | null>")]
    pub fn instructions_now(&self) -> Value {
        operations::per_server(&self.registry(), Connection::instructions_now)
    }

    /// `{ server: protocol revision | null }` of each server's live session, now.
    #[napi(ts_return_type = "Record<string, string | null>")]
    pub fn protocol_versions_now(&self) -> Value {
        operations::per_server(&self.registry(), Connection::protocol_version_now)
    }

    /// The roots a server is answered with on `roots/list`.
    #[napi(ts_return_type = "Array<{ uri: string; name?: string }>")]
    pub fn roots(&self, server: String) -> Result<Value> {
        Ok(Value::Array(self.server(&server)?.roots()))
    }

    /// Replaces a server's roots and notifies it (when connected). Returns the trace (the
    /// notification sent) once the face asked for traces, else null.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub async fn set_roots(
        &self,
        server: String,
        #[napi(ts_arg_type = "Array<{ uri: string; name?: string }>")] roots: Vec<Value>,
    ) -> Result<Option<Value>> {
        let conn = self.server(&server)?;
        encode::trace_or_error(operations::set_roots(&conn, roots, self.observing()).await).map_err(json_error)
    }

    /// Sends `notifications/roots/list_changed` (a no-op when not connected); returns the trace as `set_roots`.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub async fn send_roots_list_changed(&self, server: String) -> Result<Option<Value>> {
        let conn = self.server(&server)?;
        encode::trace_or_error(operations::send_roots_list_changed(&conn, self.observing()).await).map_err(json_error)
    }

    /// Completes a pending OAuth authorization with the code captured at the redirect URI.
    #[napi]
    pub async fn finish_auth(&self, server: String, code: String, iss: Option<String>) -> Result<()> {
        self.server(&server)?.finish_auth(&code, iss.as_deref()).await.map_err(to_napi)
    }

    /// `{ server: sessionId }` for connected Streamable HTTP servers.
    #[napi(ts_return_type = "Record<string, string>")]
    pub fn session_ids(&self) -> Value {
        self.registry().session_ids()
    }

    /// `'needs-auth'`, `'authorized'` or `undefined`.
    #[napi(ts_return_type = "'needs-auth' | 'authorized' | undefined")]
    pub fn auth_state(&self, server: String) -> Result<Option<&'static str>> {
        Ok(self.server(&server)?.auth_state())
    }

    /// Runs the interactive OAuth flow for a server (see `Connection::authenticate`).
    /// `flowId` lets `cancelAuthentication` abort it.
    #[napi]
    pub async fn authenticate(&self, server: String, timeout_ms: Option<f64>, flow_id: u32) -> Result<()> {
        let conn = self.server(&server)?;
        let timeout = opt_ms(timeout_ms).map(std::time::Duration::from_millis);
        self.calls.run(Some(flow_id), |abort| conn.authenticate(timeout, abort.token)).await.map_err(to_napi)
    }

    /// Describes a cached tool definition the way `listTools` does (stamped `_meta`, strict
    /// flag), for rebuilding a tool from it without a connection; what it says of running as a
    /// task is this client's to know from then on (`tool_cache::describe_definition`).
    #[napi]
    pub fn describe_definition(&self, server: String, #[napi(ts_arg_type = "Record<string, unknown>")] tool: Value) -> Result<Value> {
        let conn = self.server(&server)?;
        Ok(tool_cache::describe_definition(&conn, &tool))
    }

    /// Advertises elicitation on the next connect, synchronously (refused once connected).
    #[napi]
    pub fn enable_elicitation_now(&self, server: String) -> Result<()> {
        self.server(&server)?.enable_elicitation_now().map_err(to_napi)
    }
}

/// The MCP method each operation of the face sends (`{ callTool: 'tools/call', … }`), for its
/// spans: the vocabulary is the core's (`core::operations::face_methods`).
#[napi(
    ts_return_type = "{ callTool: string; listTools: string; readResource: string; getPrompt: string; resources: string; resourceTemplates: string; prompts: string }"
)]
pub fn methods() -> Value {
    operations::face_methods()
}

/// The core's defaults the face shows (`core::operations::face_defaults`).
#[napi(ts_return_type = "{ requestTimeoutMs: number; abortReason: string }")]
pub fn defaults() -> Value {
    operations::face_defaults()
}

/// The described tools' JSON text under `toolsKey` (a listing's), while some session of the
/// process still holds it; `null` once none does (the face lists again).
#[napi]
pub fn tools_text(key: String) -> Option<String> {
    crate::core::interned::lookup(&key).map(|text| text.to_string())
}

/// The names a client hands Mastra for its tools (`core::tool_names::keys`): for each
/// `[server, tool]` in order, `{ name }` or `{ collision, holder: [server, tool] }`.
#[napi(ts_return_type = "Array<{ name: string } | { collision: string; holder: [string, string] }>")]
pub fn tool_keys(#[napi(ts_arg_type = "Array<[string, string]>")] tools: Vec<Vec<String>>) -> Value {
    let pairs: Vec<(String, String)> = tools
        .into_iter()
        .map(|mut pair| {
            let tool = pair.pop().unwrap_or_default();
            let server = pair.pop().unwrap_or_default();
            (server, tool)
        })
        .collect();
    Value::Array(
        crate::core::tool_names::keys(&pairs)
            .into_iter()
            .map(|key| match key {
                crate::core::tool_names::Key::Name(name) => serde_json::json!({ "name": name }),
                crate::core::tool_names::Key::Collision { wanted, holder } => {
                    serde_json::json!({ "collision": wanted, "holder": [holder.0, holder.1] })
                }
            })
            .collect(),
    )
}

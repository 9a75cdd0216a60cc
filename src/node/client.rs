//! `NativeClient`: the class the JS face wraps. Every method is one coarse call that returns
//! plain JSON; errors cross as JSON (`McpError::to_json`) in the error message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::callbacks::{ElicitFn, EventFn, JsElicitation, JsEventSink, StderrFn};
use super::fetch::{CancelFn, FetchFn, JsFetch, ReadFn};
use super::oauth::{AuthFn, JsAuthProvider};
use super::traced::{error_with_trace, lane_trace, with_trace, with_trace_text, wrapped};
use crate::core::connection::{lane_error, RequestOptions};
use crate::core::follow_up::needs_follow_up;
use crate::core::transport::lane::{Lane, LaneOutcome};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use crate::core::registry::{HostPorts, ServerOutcome};
use crate::core::results::{describe_tool as describe_tool_entry, shape_call_result, shape_call_result_text, tool_call_params};
use crate::core::tool_cache::{self, TaskSupport};
use crate::core::{follow_up, input, listen, lists, observe};
use crate::core::{Connection, McpError, Registry};

fn to_napi(e: McpError) -> Error {
    Error::new(Status::GenericFailure, e.to_json().to_string())
}

fn opt_ms(v: Option<f64>) -> Option<u64> {
    v.and_then(crate::core::config::positive_ms_f64)
}

/// An in-flight call that JS may abort.
struct PendingCall {
    token: CancellationToken,
    reason: Arc<Mutex<String>>,
}

#[napi(object)]
pub struct CallToolOptions {
    /// Request `_meta` (already merged by the face from the caller's context).
    pub meta: Option<Value>,
    /// The progress token the user expects in progress notifications.
    pub progress_token: Option<Value>,
    pub timeout_ms: Option<f64>,
    /// Id used with `cancel()` to abort this call.
    pub call_id: Option<u32>,
}

/// A settled direct call, handed to the face's completion callback.
#[napi(object)]
pub struct CallDone {
    pub id: u32,
    pub ok: bool,
    /// The shaped result, or the error (`McpError::to_json`), as JSON text.
    pub json: String,
}

/// `(done: CallDone) => void`
pub type CallDoneFn = ThreadsafeFunction<CallDone, (), CallDone, Status, false, true>;

/// Direct calls in flight: JS call id → the lane and the lane's request id.
type DirectCalls = Arc<Mutex<HashMap<u32, (Arc<Lane>, u64)>>>;

#[napi]
pub struct NativeClient {
    registry: Option<Arc<Registry>>,
    pending: Arc<Mutex<HashMap<u32, PendingCall>>>,
    direct: DirectCalls,
    call_done: Arc<CallDoneFn>,
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

/// Fan-out outcomes of lists (each with its trace, when traced) as JSON.
fn outcomes_to_json(outcomes: Vec<ServerOutcome<Traced<Vec<Value>>>>) -> Value {
    let list: Vec<Value> = outcomes
        .into_iter()
        .map(|o| {
            let (result, trace) = o.result.unwrap_or_else(|e| (Err(e), None));
            let entry = match result {
                Ok(v) => json!({ "server": o.server, "ok": true, "value": Value::Array(v), "durationMs": o.duration_ms }),
                Err(e) => json!({ "server": o.server, "ok": false, "error": e.to_json(), "durationMs": o.duration_ms }),
            };
            with_trace(entry, trace.as_ref())
        })
        .collect();
    Value::Array(list)
}

async fn session_info(conn: &Connection) -> crate::core::error::Result<Value> {
    let live = conn.ensure_connected().await?;
    Ok(json!({
        "serverVersion": live.server_version,
        "instructions": live.instructions,
        "protocolVersion": live.protocol_version,
    }))
}

/// One server's tool listing as JSON text: session info, cache epoch and the described tools;
/// `meta`: the `_meta` of its `tools/list` requests (trace context).
async fn tools_of(conn: Arc<Connection>, meta: Option<Value>) -> crate::core::error::Result<String> {
    let (epoch, tools) = tool_cache::tools(&conn, meta.as_ref()).await?;
    let info = session_info(&conn).await?.to_string();
    let mut out = String::with_capacity(info.len() + tools.text.len() + tools.key.len() + 48);
    out.push_str(info.strip_suffix('}').unwrap_or("{"));
    if out.len() > 1 {
        out.push(',');
    }
    // `toolsKey`: the key of the tools' text, so the face parses and keeps one copy per process.
    out.push_str(&format!("\"epoch\":{epoch},\"toolsKey\":\"{}\",\"tools\":", tools.key));
    out.push_str(&tools.text);
    out.push('}');
    Ok(out)
}

/// Fan-out outcomes whose values are JSON text (each with its trace, when traced), as the JSON
/// text of the outcome array.
fn outcomes_to_text(outcomes: Vec<ServerOutcome<Traced<String>>>) -> String {
    let mut out = String::from("[");
    for (i, o) in outcomes.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let server = Value::String(o.server).to_string();
        let duration = json!(o.duration_ms);
        let (result, trace) = match o.result {
            Ok((result, trace)) => (result, trace),
            Err(e) => (Err(e), None),
        };
        let entry = match result {
            Ok(value) => format!("{{\"server\":{server},\"ok\":true,\"durationMs\":{duration},\"value\":{value}}}"),
            Err(e) => format!("{{\"server\":{server},\"ok\":false,\"durationMs\":{duration},\"error\":{}}}", e.to_json()),
        };
        out.push_str(&with_trace_text(entry, trace.as_ref()));
    }
    out.push(']');
    out
}

/// An operation's result with its trace (`None` when not traced).
type Traced<T> = (crate::core::error::Result<T>, Option<observe::Trace>);

/// What a direct call was asked with, kept for its follow-up on the async path.
struct DirectCall {
    server: String,
    name: String,
    args_json: String,
    meta_json: Option<String>,
    /// Whether its result carries its trace (`observe_operations` was asked before it started).
    observed: bool,
}

/// Finishes a direct call whose first answer was handed over (`Connection::hand_over`) on the
/// async path `callTool` takes, and settles it through the completion callback.
async fn follow_up(
    conn: Arc<Connection>,
    call: Arc<DirectCall>,
    call_id: u32,
    token: CancellationToken,
    reason: Arc<Mutex<String>>,
    pending: Arc<Mutex<HashMap<u32, PendingCall>>>,
    done_fn: Arc<CallDoneFn>,
) {
    let meta: Option<Value> = call.meta_json.as_deref().and_then(|m| serde_json::from_str(m).ok());
    let mut params = Map::new();
    params.insert("name".into(), Value::String(call.name.clone()));
    params.insert("arguments".into(), serde_json::from_str(&call.args_json).unwrap_or_else(|_| json!({})));
    let options = RequestOptions {
        timeout_ms: None,
        progress_token: meta.as_ref().and_then(|m| m.get("progressToken")).cloned(),
        meta,
        cancel: Some(token),
        cancel_reason: Some(reason),
        context: Some(call_id),
        verbatim: false,
    };
    let (result, trace) = observe::scope(call.observed, "tools/call", crate::core::tasks::call_tool(&conn, params, options, false)).await;
    // Not taken if the async path ended before sending (e.g. the tool list could not be read).
    let _ = follow_up::take_handed_over(&conn, call_id);
    if let Ok(mut p) = pending.lock() {
        p.remove(&call_id);
    }
    let done = match result {
        Ok(result) => CallDone { id: call_id, ok: true, json: with_trace(shape_call_result(&call.server, result), trace.as_ref()).to_string() },
        Err(e) => CallDone { id: call_id, ok: false, json: with_trace(e.to_json(), trace.as_ref()).to_string() },
    };
    done_fn.call(done, ThreadsafeFunctionCallMode::NonBlocking);
}

#[napi]
impl NativeClient {
    #[napi(constructor)]
    pub fn new(
        #[napi(ts_arg_type = "Record<string, unknown>")] servers: Value,
        timeout_ms: Option<f64>,
        #[napi(ts_arg_type = "(event: { server: string; kind: string; payload: unknown }) => void")] on_event: EventFn,
        #[napi(ts_arg_type = "(chunk: { server: string; data: Buffer }) => void")] on_stderr: StderrFn,
        #[napi(ts_arg_type = "(request: { server: string; key: string; id: number; params: unknown }) => Promise<unknown>")] on_elicit: ElicitFn,
        #[napi(ts_arg_type = "(request: FetchRequest) => Promise<FetchResponse>")] on_fetch: FetchFn,
        #[napi(ts_arg_type = "(bodyId: number) => Promise<Buffer | null>")] on_fetch_read: ReadFn,
        #[napi(ts_arg_type = "(bodyId: number) => void")] on_fetch_cancel: CancelFn,
        #[napi(ts_arg_type = "(request: { server: string; op: string; args: unknown }) => Promise<unknown>")] on_auth: AuthFn,
        #[napi(ts_arg_type = "(done: CallDone) => void")] on_call_done: CallDoneFn,
    ) -> Result<Self> {
        let events = Arc::new(on_event);
        let sink = Arc::new(JsEventSink { events: events.clone(), stderr: on_stderr });
        let responder = Arc::new(JsElicitation { callback: Arc::new(on_elicit), events, next_id: Default::default() });
        let js_fetch = Arc::new(JsFetch { fetch: Arc::new(on_fetch), read: Arc::new(on_fetch_read), cancel: Arc::new(on_fetch_cancel) });
        let mut ports = HostPorts::reqwest().map_err(to_napi)?;
        ports.custom_fetch = Some(Arc::new(move |server: &str| js_fetch.backend_for(server)));
        let on_auth = Arc::new(on_auth);
        ports.auth_provider = Some(Arc::new(move |server: &str| {
            Arc::new(JsAuthProvider { callback: on_auth.clone(), server: server.to_string() }) as Arc<dyn crate::core::auth::AuthProvider>
        }));
        let registry = Registry::new(&servers, opt_ms(timeout_ms), sink, Some(responder), &ports).map_err(to_napi)?;
        Ok(NativeClient {
            registry: Some(Arc::new(registry)),
            pending: Default::default(),
            direct: Default::default(),
            call_done: Arc::new(on_call_done),
            observe: Default::default(),
        })
    }

    /// From now on, results and errors carry their operation's trace (`core::observe`): the face
    /// asks once, when it first records a span or a metric for this client.
    #[napi]
    pub fn observe_operations(&self) {
        self.observe.store(true, Ordering::Relaxed);
    }

    /// Configured server names, in config order.
    #[napi]
    pub fn server_names(&self) -> Vec<String> {
        self.registry().names().to_vec()
    }

    /// Per-server request timeout in ms.
    #[napi]
    pub fn request_timeout(&self, server: String) -> Result<f64> {
        Ok(self.server(&server)?.request_timeout_ms() as f64)
    }

    /// Connects one server (if needed) and returns its session info.
    #[napi(ts_return_type = "Promise<{ serverVersion?: string; instructions?: string; protocolVersion: string }>")]
    pub async fn connect(&self, server: String) -> Result<Value> {
        let conn = self.server(&server)?;
        session_info(&conn).await.map_err(to_napi)
    }

    /// Closes and reopens one server's session.
    #[napi]
    pub async fn reconnect(&self, server: String) -> Result<()> {
        let conn = self.server(&server)?;
        conn.reconnect().await.map_err(to_napi)
    }

    /// Closes every session; aborts in-flight calls' waits.
    #[napi]
    pub async fn disconnect(&self) -> Result<()> {
        let registry = self.registry();
        if let Ok(mut pending) = self.pending.lock() {
            for (_, call) in pending.drain() {
                if let Ok(mut r) = call.reason.lock() {
                    *r = "MCP client was disconnected".to_string();
                }
                call.token.cancel();
            }
        }
        let direct: Vec<(Arc<Lane>, u64)> = self.direct.lock().map(|mut d| d.drain().map(|(_, v)| v).collect()).unwrap_or_default();
        for (lane, id) in direct {
            lane.cancel(id, "MCP client was disconnected");
        }
        registry.disconnect_all().await;
        Ok(())
    }

    /// Tools of one server (`server` given) or of all servers.
    /// JSON text of `Array<{ server, ok, value?, error?, durationMs }>`.
    /// `metas`: each server's request `_meta` (the face's trace context), by server name.
    #[napi(ts_return_type = "Promise<string>")]
    pub async fn list_tools(
        &self,
        server: Option<String>,
        per_server_timeout_ms: Option<f64>,
        #[napi(ts_arg_type = "Record<string, Record<string, string>> | undefined")] metas: Option<Value>,
    ) -> Result<String> {
        let registry = self.registry();
        let observed = self.observing();
        let meta_of = move |name: &str| metas.as_ref().and_then(|m| m.get(name)).filter(|m| m.is_object()).cloned();
        let outcomes = match server {
            Some(name) => {
                let conn = self.server(&name)?;
                let started = std::time::Instant::now();
                let result = observe::scope(observed, "tools/list", tools_of(conn, meta_of(&name))).await;
                vec![ServerOutcome { server: name, result: Ok(result), duration_ms: started.elapsed().as_secs_f64() * 1000.0 }]
            }
            None => registry.fan_out(opt_ms(per_server_timeout_ms), |conn| {
                let meta = meta_of(conn.name());
                async move { Ok(observe::scope(observed, "tools/list", tools_of(conn, meta)).await) }
            }).await,
        };
        Ok(outcomes_to_text(outcomes))
    }

    /// For each server, the epoch of its cached tool list when that list is still current and
    /// the session live (`null` otherwise): lets the face reuse its Tool objects without a call.
    #[napi(ts_return_type = "Record<string, number | null>")]
    pub fn current_tool_epochs(&self) -> Value {
        let registry = self.registry();
        let mut out = Map::new();
        for name in registry.names() {
            let epoch = registry.get(name).ok().and_then(|c| tool_cache::current_tools_epoch(&c));
            out.insert(name.clone(), epoch.map_or(Value::Null, |e| json!(e)));
        }
        Value::Object(out)
    }

    /// `resources/list`, `resources/templates/list` or `prompts/list` over all servers, every page.
    #[napi(ts_return_type = "Promise<Array<{ server: string; ok: boolean; value?: any; error?: any; durationMs: number }>>")]
    pub async fn list_all(
        &self,
        #[napi(ts_arg_type = "'resources' | 'resourceTemplates' | 'prompts'")] kind: String,
        per_server_timeout_ms: Option<f64>,
        #[napi(ts_arg_type = "Record<string, Record<string, string>> | undefined")] metas: Option<Value>,
    ) -> Result<Value> {
        let (method, key, capability) = match kind.as_str() {
            "resources" => ("resources/list", "resources", "resources"),
            "resourceTemplates" => ("resources/templates/list", "resourceTemplates", "resources"),
            "prompts" => ("prompts/list", "prompts", "prompts"),
            other => return Err(Error::new(Status::InvalidArg, format!("unknown list kind {other}"))),
        };
        let observed = self.observing();
        let outcomes = self
            .registry()
            .fan_out(opt_ms(per_server_timeout_ms), |conn| {
                let meta = metas.as_ref().and_then(|m| m.get(conn.name())).filter(|m| m.is_object()).cloned();
                let listing = async move {
                let live = conn.ensure_connected().await?;
                if !crate::core::connection::server_has(&live, capability) {
                    return Ok(Vec::new());
                }
                match lists::list_all(&conn, method, key, meta.as_ref()).await {
                    // A server that does not implement the method contributes nothing.
                    Err(e) if e.rpc_code == Some(-32601) => Ok(Vec::new()),
                    other => other,
                }
                };
                async move { Ok(observe::scope(observed, method, listing).await) }
            })
            .await;
        Ok(outcomes_to_json(outcomes))
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
        let options = options.unwrap_or(CallToolOptions { meta: None, progress_token: None, timeout_ms: None, call_id: None });
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name));
        params.insert("arguments".into(), args.filter(|a| a.is_object()).unwrap_or_else(|| json!({})));
        let token = CancellationToken::new();
        let reason = Arc::new(Mutex::new(String::new()));
        if let Some(id) = options.call_id {
            if let Ok(mut pending) = self.pending.lock() {
                pending.insert(id, PendingCall { token: token.clone(), reason: reason.clone() });
            }
        }
        let request_options = RequestOptions {
            timeout_ms: opt_ms(options.timeout_ms),
            meta: options.meta,
            cancel: Some(token),
            cancel_reason: Some(reason),
            progress_token: options.progress_token,
            context: options.call_id,
            verbatim: false,
        };
        let call = crate::core::tasks::call_tool(&conn, params, request_options, conn.prefers_tasks());
        let (result, trace) = observe::scope(self.observing(), "tools/call", call).await;
        if let Some(id) = options.call_id {
            if let Ok(mut pending) = self.pending.lock() {
                pending.remove(&id);
            }
        }
        let result = result.map_err(|e| error_with_trace(e, trace.as_ref()))?;
        Ok(with_trace_text(shape_call_result(&server, result).to_string(), trace.as_ref()))
    }

    /// `tools/call` written straight to a connected stdio server from this thread, settled
    /// through the completion callback (`id` = `callId`). Returns false, having sent nothing,
    /// when the server has no ready lane (not connected yet, remote, or closed): use `callTool`.
    /// An answer that needs more than shaping (a 2026-07-28 `input_required` result, a task
    /// refusal) is handed to the async path, which follows it up without sending the call again.
    #[napi]
    pub fn start_call(&self, server: String, name: String, args_json: String, meta_json: Option<String>, call_id: u32) -> Result<bool> {
        let conn = self.server(&server)?;
        let Some(lane) = conn.ready_lane() else { return Ok(false) };
        // A task tool takes the async path, which follows the task to its result.
        if tool_cache::has_task_tools(&conn) {
            match tool_cache::tool_task_support(&conn, &name) {
                Some(TaskSupport::Required) => return Ok(false),
                Some(TaskSupport::Optional) if conn.prefers_tasks() => return Ok(false),
                _ => {}
            }
        }
        let call = Arc::new(DirectCall { server, name, args_json, meta_json, observed: self.observing() });
        let (params, meta) = tool_call_params(&call.name, &call.args_json, call.meta_json.as_deref())
            .map_err(|e| Error::new(Status::InvalidArg, format!("Invalid arguments for tool {} on server {}: {e}", call.name, call.server)))?;
        let id = lane.reserve_id();
        if let Ok(mut direct) = self.direct.lock() {
            direct.insert(call_id, (lane.clone(), id));
        }
        let done_fn = self.call_done.clone();
        let direct = self.direct.clone();
        let pending = self.pending.clone();
        let answered = call.clone();
        let follow_conn = conn.clone();
        let done = Box::new(move |outcome: LaneOutcome| {
            if needs_follow_up(&outcome) {
                // Registered for `cancel()` and `disconnect()` before it leaves the direct calls.
                let token = CancellationToken::new();
                let reason = Arc::new(Mutex::new(String::new()));
                if let Ok(mut p) = pending.lock() {
                    p.insert(call_id, PendingCall { token: token.clone(), reason: reason.clone() });
                }
                // Gone already: `cancel()` or `disconnect()` took it, maybe before the entry above existed.
                if !direct.lock().is_ok_and(|mut d| d.remove(&call_id).is_some()) {
                    token.cancel();
                }
                follow_up::hand_over(&follow_conn, call_id, outcome);
                napi::bindgen_prelude::spawn(follow_up(follow_conn, answered, call_id, token, reason, pending, done_fn));
                return;
            }
            if let Ok(mut d) = direct.lock() {
                d.remove(&call_id);
            }
            let server = &answered.server;
            let trace = answered.observed.then(|| lane_trace(id, &outcome));
            let done = match outcome {
                Ok(raw) => CallDone { id: call_id, ok: true, json: with_trace_text(shape_call_result_text(server, &raw), trace.as_ref()) },
                Err(e) => CallDone { id: call_id, ok: false, json: with_trace(lane_error(server, "tools/call", e).to_json(), trace.as_ref()).to_string() },
            };
            done_fn.call(done, ThreadsafeFunctionCallMode::NonBlocking);
        });
        match lane.send_with_meta(id, "tools/call", &params, meta, conn.request_timeout_ms(), done) {
            Ok(()) => Ok(true),
            Err(_) => {
                if let Ok(mut d) = self.direct.lock() {
                    d.remove(&call_id);
                }
                Ok(false)
            }
        }
    }

    /// Aborts an in-flight call started with `callId`.
    #[napi]
    pub fn cancel(&self, call_id: u32, reason: String) {
        let direct = self.direct.lock().ok().and_then(|mut d| d.remove(&call_id));
        if let Some((lane, id)) = direct {
            // Settled meanwhile: it may have moved on to the async path (see `start_call`).
            if lane.cancel(id, &reason) {
                return;
            }
        }
        if let Ok(mut pending) = self.pending.lock() {
            if let Some(call) = pending.remove(&call_id) {
                if let Ok(mut r) = call.reason.lock() {
                    *r = reason;
                }
                call.token.cancel();
            }
        }
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
        let options = RequestOptions { meta: meta.filter(Value::is_object), ..RequestOptions::default() };
        let read = input::request(&conn, "resources/read", json!({ "uri": uri }), options);
        let (result, trace) = observe::scope(self.observing(), "resources/read", read).await;
        Ok(wrapped(result.map_err(|e| error_with_trace(e, trace.as_ref()))?, trace))
    }

    #[napi]
    pub async fn subscribe_resource(&self, server: String, uri: String) -> Result<Value> {
        let conn = self.server(&server)?;
        listen::subscribe_resource(&conn, &uri).await.map_err(to_napi)
    }

    #[napi]
    pub async fn unsubscribe_resource(&self, server: String, uri: String) -> Result<Value> {
        let conn = self.server(&server)?;
        listen::unsubscribe_resource(&conn, &uri).await.map_err(to_napi)
    }

    /// A list-changed handler was registered for `server`: its 2026-07-28 sessions listen for
    /// that list's changes (`kind`: 'tools' | 'prompts' | 'resources').
    #[napi]
    pub async fn want_list_changes(&self, server: String, #[napi(ts_arg_type = "'tools' | 'prompts' | 'resources'")] kind: String) -> Result<()> {
        use crate::core::listen::ListKind;
        let kind = match kind.as_str() {
            "tools" => ListKind::Tools,
            "prompts" => ListKind::Prompts,
            "resources" => ListKind::Resources,
            other => return Err(Error::from_reason(format!("unknown list kind {other}"))),
        };
        listen::want_list_changes(&*self.server(&server)?, kind).await;
        Ok(())
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
        let mut params = json!({ "name": name });
        if let Some(args) = args.filter(|a| a.is_object()) {
            params["arguments"] = args;
        }
        let meta = meta.filter(Value::is_object);
        let options = RequestOptions { meta: meta.clone(), ..RequestOptions::default() };
        let get = input::request(&conn, "prompts/get", params, options);
        let (result, trace) = observe::scope(self.observing(), "prompts/get", get).await;
        let mut result = result.map_err(|e| error_with_trace(e, trace.as_ref()))?;
        if let Ok(prompts) = lists::list_all(&conn, "prompts/list", "prompts", meta.as_ref()).await {
            if let Some(p) = prompts.into_iter().find(|p| p.get("name").and_then(Value::as_str) == Some(name.as_str())) {
                result["prompt"] = p;
            }
        }
        Ok(wrapped(result, trace))
    }

    /// Advertise elicitation for a server on its next connect (errors once connected).
    #[napi]
    pub async fn enable_elicitation(&self, server: String) -> Result<()> {
        let conn = self.server(&server)?;
        conn.enable_elicitation().await.map_err(to_napi)
    }

    /// `{ server: instructions | null }` for every configured server.
    #[napi(ts_return_type = "Promise<Record<string, string | null>>")]
    pub async fn instructions(&self) -> Result<Value> {
        Ok(self.registry().instructions().await)
    }

    /// `{ server: instructions | null }` from the last initialized session of each server, now.
    #[napi(ts_return_type = "Record<string, string | null>")]
    pub fn instructions_now(&self) -> Value {
        let registry = self.registry();
        let mut out = serde_json::Map::new();
        for name in registry.names() {
            let text = registry.get(name).ok().and_then(|c| c.instructions_now());
            out.insert(name.clone(), text.map(Value::String).unwrap_or(Value::Null));
        }
        Value::Object(out)
    }

    /// `{ server: protocol revision | null }` of each server's live session, now.
    #[napi(ts_return_type = "Record<string, string | null>")]
    pub fn protocol_versions_now(&self) -> Value {
        let registry = self.registry();
        let mut out = serde_json::Map::new();
        for name in registry.names() {
            let version = registry.get(name).ok().and_then(|c| c.protocol_version_now());
            out.insert(name.clone(), version.map(Value::String).unwrap_or(Value::Null));
        }
        Value::Object(out)
    }

    /// The roots a server is answered with on `roots/list`.
    #[napi(ts_return_type = "Array<{ uri: string; name?: string }>")]
    pub fn roots(&self, server: String) -> Result<Value> {
        Ok(Value::Array(self.server(&server)?.roots()))
    }

    /// Replaces a server's roots and notifies it (when connected). Returns the trace (the
    /// notification sent) once the face asked for traces, else null.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub async fn set_roots(&self, server: String, #[napi(ts_arg_type = "Array<{ uri: string; name?: string }>")] roots: Vec<Value>) -> Result<Option<Value>> {
        let conn = self.server(&server)?;
        let (result, trace) = observe::scope(self.observing(), "notifications/roots/list_changed", conn.set_roots(roots)).await;
        result.map_err(|e| error_with_trace(e, trace.as_ref()))?;
        Ok(trace.and_then(|t| serde_json::to_value(t).ok()))
    }

    /// Sends `notifications/roots/list_changed` (a no-op when not connected); returns the trace as `set_roots`.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub async fn send_roots_list_changed(&self, server: String) -> Result<Option<Value>> {
        let conn = self.server(&server)?;
        let (result, trace) = observe::scope(self.observing(), "notifications/roots/list_changed", conn.send_roots_list_changed()).await;
        result.map_err(|e| error_with_trace(e, trace.as_ref()))?;
        Ok(trace.and_then(|t| serde_json::to_value(t).ok()))
    }

    /// Completes a pending OAuth authorization with the code captured at the redirect URI.
    #[napi]
    pub async fn finish_auth(&self, server: String, code: String) -> Result<()> {
        self.server(&server)?.finish_auth(&code).await.map_err(to_napi)
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
        let token = CancellationToken::new();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(flow_id, PendingCall { token: token.clone(), reason: Arc::new(Mutex::new(String::new())) });
        }
        let timeout = std::time::Duration::from_millis(opt_ms(timeout_ms).unwrap_or(300_000));
        let result = conn.authenticate(timeout, token).await;
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&flow_id);
        }
        result.map_err(to_napi)
    }

    /// Advertises elicitation on the next connect, synchronously (refused once connected).
    #[napi]
    pub fn enable_elicitation_now(&self, server: String) -> Result<()> {
        self.server(&server)?.enable_elicitation_now().map_err(to_napi)
    }

    /// Whether a server currently has a live session.
    #[napi]
    pub async fn is_connected(&self, server: String) -> Result<bool> {
        Ok(self.server(&server)?.current().await.is_some())
    }
}

/// Describes a tool definition the way `listTools` does (stamped `_meta`, strict flag), for
/// rebuilding tools from cached definitions without a connection.
#[napi]
pub fn describe_tool(server: String, #[napi(ts_arg_type = "Record<string, unknown>")] tool: Value) -> Value {
    describe_tool_entry(&server, &tool)
}

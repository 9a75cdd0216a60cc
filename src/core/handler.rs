#![allow(deprecated)] // Roots and Logging are deprecated upstream (SEP-2577) but are what Mastra exposes.
//! rmcp `ClientHandler` for one server: advertises our capabilities and answers server→client
//! requests (elicitation, roots); `HandlerShared::on_notification` routes notifications to the
//! client's event sink. It holds only
//! `Arc`s to client-owned state, so handlers registered by the user outlive any reconnect.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::handler::client::ClientHandler;
use rmcp::model::{ClientConfig, ElicitRequestParams, ElicitResult, ErrorCode, ListRootsResult, ServerNotification};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::ErrorData;
use serde_json::{json, Map, Value};

use super::asking;
use super::config::ServerConfig;
use super::events::{ElicitationResponder, EventKind, EventSink, ServerEvent};

/// The protocol revision we ask for with the `initialize` handshake; servers may answer with an older one.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The stateless revision (no handshake: `server/discover`, per-request `_meta`).
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// The 2025-11-25 task status notification (wakes task pollers: `HandlerShared::task_updates`).
pub const TASK_STATUS_NOTIFICATION: &str = "notifications/tasks/status";

/// The Tasks extension's identifier, declared in capabilities by both sides (2026-07-28).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether `capabilities` (either side's) declare the Tasks extension.
pub fn declares_tasks_extension(capabilities: &Value) -> bool {
    capabilities.get("extensions").and_then(|e| e.get(TASKS_EXTENSION)).is_some_and(Value::is_object)
}

/// Adds the Tasks extension to client `capabilities`.
pub fn declare_tasks_extension(capabilities: &mut Value) {
    if let Some(caps) = capabilities.as_object_mut() {
        let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
        if let Some(extensions) = extensions.as_object_mut() {
            extensions.insert(TASKS_EXTENSION.into(), json!({}));
        }
    }
}

/// The server log level asked for in a 2026-07-28 session while server logs are enabled, unless
/// the server definition's `serverLogLevel` says otherwise (`'info'`, as in `@mastra/mcp` 2.0).
pub const SERVER_LOG_LEVEL: &str = "info";

/// State shared between a `Connection` and every rmcp handler it creates.
pub struct HandlerShared {
    pub server: String,
    /// The `version` of our `clientInfo` (InternalMastraMCPClient's `version`; `1.0.0` otherwise).
    pub client_version: String,
    pub sink: Arc<dyn EventSink>,
    pub responder: Option<Arc<dyn ElicitationResponder>>,
    pub enable_server_logs: bool,
    /// See `server_log_level()`.
    pub server_log_level: String,
    /// Advertise elicitation (set by config or by registering a handler before connecting).
    pub elicitation: AtomicBool,
    /// The server's request timeout (ms): bounds the wait for the user's answer to an input request.
    pub request_timeout_ms: u64,
    /// Set once a handler is registered with `elicitation.onRequest`: it answers input requests,
    /// and is waited for as long as it takes (`asking::bound`).
    pub input_handler: AtomicBool,
    /// Set once a handler of what a server may send outside any request (`progress`, `logging`)
    /// is registered: a Streamable HTTP session's GET stream then goes out as the session opens
    /// (servers such as the TS SDK's send a tool's progress there), not after a quiet spell.
    pub unasked_handler: AtomicBool,
    pub user_capabilities: Map<String, Value>,
    /// Roots answered to `roots/list`; replaced by `setRoots()`.
    pub roots: Mutex<Vec<Value>>,
    /// Whether `roots` is advertised (fixed at construction: roots configured or `capabilities.roots`).
    pub advertise_roots: bool,
    /// Instructions of the last session that completed `initialize` (cleared by `disconnect()`),
    /// readable synchronously.
    pub instructions: Mutex<Option<String>>,
    /// Bumped whenever the server's tool list may have changed.
    pub tools_epoch: AtomicU64,
    /// Told when the server announces a change of its tool list (a store drops its kept catalog).
    pub on_tools_changed: std::sync::OnceLock<Arc<dyn Fn() + Send + Sync>>,
    /// rmcp progress token (as JSON) → the token the user asked for.
    pub progress_aliases: Mutex<HashMap<String, Value>>,
    /// Bumped on every task status notification: wakes task pollers early.
    pub task_updates: tokio::sync::watch::Sender<u64>,
    /// Ids of the Tasks-extension tasks being followed (cancelled by `disconnect()`).
    pub running_tasks: Mutex<HashSet<String>>,
    /// The `protocolVersion` option: a pinned revision.
    pub pinned_version: Option<String>,
    /// Set once this server answered with the handshake era: later connects skip discovery.
    pub legacy_era: AtomicBool,
    /// Set once this server answered `server/discover`: later connects skip the fallback.
    pub modern_era: AtomicBool,
    /// A `url` server's URL: what this process learned of its era holds for every client.
    pub endpoint: Option<String>,
    /// The last lines the server wrote to stderr (a few hundred bytes), for crash messages.
    pub stderr_tail: Mutex<String>,
    /// Set once a legacy SSE session of this server opened: a later connect that finds it
    /// unreachable (a restart) waits for it, within the connect's budget.
    pub sse_reached: AtomicBool,
    /// How the server's last process ended ("exited with code 1"), for crash messages.
    pub last_exit: Mutex<Option<String>>,
    /// This server's last `server/discover` answer, reused by later sessions (`era::known`).
    pub last_discover: Mutex<Option<rmcp::service::RxJsonRpcMessage<rmcp::service::RoleClient>>>,
}

impl HandlerShared {
    /// Asks the user's handler for the answer to one elicitation, within its bound; an accepted
    /// answer gets the defaults of the fields it left out (`with_schema_defaults`).
    pub async fn ask_user(&self, key: &str, params: Value) -> Result<Value, String> {
        let Some(responder) = self.responder.clone() else {
            return Err(format!("Server {} asked for input (elicitation/create) but no elicitation handler is registered", self.server));
        };
        let bound = asking::bound(self.request_timeout_ms, self.input_handler.load(Ordering::SeqCst));
        let schema = params.get("requestedSchema").cloned();
        let answer = asking::ask(&*responder, &self.server, key, params, bound).await?;
        Ok(with_schema_defaults(answer, schema.as_ref()))
    }

    /// The state of a server's handlers before its first session, from its configuration.
    pub fn from_config(config: &ServerConfig, sink: Arc<dyn EventSink>, responder: Option<Arc<dyn ElicitationResponder>>) -> Self {
        HandlerShared {
            server: config.name.clone(),
            client_version: config.client_version.clone().unwrap_or_else(|| "1.0.0".to_string()),
            sink,
            responder,
            enable_server_logs: config.enable_server_logs,
            server_log_level: config.server_log_level.clone().unwrap_or_else(|| SERVER_LOG_LEVEL.to_string()),
            elicitation: AtomicBool::new(config.elicitation),
            request_timeout_ms: config.timeout_ms.unwrap_or(super::config::DEFAULT_REQUEST_TIMEOUT_MS),
            input_handler: AtomicBool::new(false),
            unasked_handler: AtomicBool::new(false),
            user_capabilities: config.capabilities.clone(),
            roots: Mutex::new(config.roots.clone()),
            advertise_roots: !config.roots.is_empty() || config.capabilities.contains_key("roots"),
            instructions: Mutex::new(None),
            tools_epoch: AtomicU64::new(0),
            on_tools_changed: std::sync::OnceLock::new(),
            progress_aliases: Mutex::new(HashMap::new()),
            task_updates: tokio::sync::watch::channel(0).0,
            running_tasks: Mutex::new(HashSet::new()),
            pinned_version: config.protocol_version.clone(),
            legacy_era: AtomicBool::new(false),
            modern_era: AtomicBool::new(false),
            endpoint: match &config.spec {
                Ok(crate::core::config::ServerSpec::Http(spec)) => Some(spec.url.as_str().to_string()),
                _ => None,
            },
            last_discover: Mutex::new(None),
            stderr_tail: Mutex::new(String::new()),
            last_exit: Mutex::new(None),
            sse_reached: AtomicBool::new(false),
        }
    }

    /// Keeps the end of what the server wrote to stderr (its last 3 lines, at most 500 bytes).
    pub fn note_stderr(&self, chunk: &[u8]) {
        const KEEP_BYTES: usize = 500;
        const KEEP_LINES: usize = 3;
        let Ok(mut tail) = self.stderr_tail.lock() else { return };
        tail.push_str(&String::from_utf8_lossy(chunk));
        let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
        let mut kept = lines[lines.len().saturating_sub(KEEP_LINES)..].join(" | ");
        if kept.len() > KEEP_BYTES {
            let mut start = kept.len() - KEEP_BYTES;
            while !kept.is_char_boundary(start) {
                start += 1;
            }
            kept = kept[start..].to_string();
        }
        if tail.ends_with('\n') || kept.is_empty() {
            *tail = kept.replace(" | ", "\n");
            tail.push('\n');
        } else {
            *tail = kept.replace(" | ", "\n");
        }
    }

    /// Records how the server's process ended.
    pub fn note_exit(&self, how: String) {
        if let Ok(mut last) = self.last_exit.lock() {
            *last = Some(how);
        }
    }

    /// The crash reason for messages: how the process ended and its last stderr lines, each
    /// part led by "; " (`""` when nothing is known).
    pub fn crash_reason(&self) -> String {
        let mut reason = String::new();
        if let Some(how) = self.last_exit.lock().ok().and_then(|l| l.clone()) {
            reason.push_str(&format!("; it {how}"));
        }
        let last = self.last_words();
        if !last.is_empty() {
            reason.push_str(&format!("; its last stderr lines: {last}"));
        }
        reason
    }

    /// The server's last stderr lines, one line (`""` when it wrote none).
    pub fn last_words(&self) -> String {
        self.stderr_tail.lock().map(|t| t.lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join(" | ")).unwrap_or_default()
    }

    /// The lowest server log level a 2026-07-28 request asks for (`_meta`
    /// `io.modelcontextprotocol/logLevel`), when server logs are wanted: `serverLogLevel`, by
    /// default `info` (as `@mastra/mcp` 2.0 asks; the client never sends `logging/setLevel`).
    pub fn server_log_level(&self) -> Option<&str> {
        self.enable_server_logs.then_some(self.server_log_level.as_str())
    }

    pub(crate) fn emit(&self, kind: EventKind, payload: Value) {
        self.sink.emit(ServerEvent { server: self.server.clone(), kind, payload });
    }

    pub fn diagnostic(&self, level: &str, message: impl Into<String>) {
        let message = message.into();
        tracing::debug!(server = %self.server, level, "{message}");
        self.emit(EventKind::Diagnostic, json!({ "level": level, "message": message }));
    }

    /// Routes one server notification to the sink. Called by the transport in arrival order
    /// (rmcp hands each notification to its own task, which would reorder them).
    pub fn on_notification(&self, notification: &ServerNotification) {
        match notification {
            ServerNotification::ProgressNotification(n) => {
                let mut payload = to_json(&n.params);
                let key = payload["progressToken"].to_string();
                if let Some(user_token) = self.progress_aliases.lock().ok().and_then(|a| a.get(&key).cloned()) {
                    payload["progressToken"] = user_token;
                }
                self.emit(EventKind::Progress, payload);
            }
            ServerNotification::LoggingMessageNotification(n) if self.enable_server_logs => {
                self.emit(EventKind::ServerLog, to_json(&n.params));
            }
            ServerNotification::ResourceUpdatedNotification(n) => {
                self.emit(EventKind::ResourceUpdated, to_json(&n.params));
            }
            ServerNotification::ResourceListChangedNotification(_) => {
                self.emit(EventKind::ResourceListChanged, Value::Null);
            }
            ServerNotification::ToolListChangedNotification(_) => {
                self.tools_epoch.fetch_add(1, Ordering::SeqCst);
                if let Some(told) = self.on_tools_changed.get() {
                    told();
                }
                self.emit(EventKind::ToolListChanged, Value::Null);
            }
            ServerNotification::PromptListChangedNotification(_) => {
                self.emit(EventKind::PromptListChanged, Value::Null);
            }
            ServerNotification::TaskStatusNotification(_) => {
                self.task_updates.send_modify(|n| *n = n.wrapping_add(1));
            }
            ServerNotification::CustomNotification(n) if n.method == TASK_STATUS_NOTIFICATION => {
                self.task_updates.send_modify(|n| *n = n.wrapping_add(1));
            }
            _ => {}
        }
    }

    /// The capabilities sent in `initialize`.
    pub fn capabilities(&self) -> Value {
        let mut caps = self.user_capabilities.clone();
        if self.elicitation.load(Ordering::SeqCst) && !caps.contains_key("elicitation") {
            caps.insert("elicitation".into(), json!({ "form": {} }));
        }
        if self.advertise_roots {
            let mut roots = json!({ "listChanged": true });
            if let (Some(r), Some(user)) = (roots.as_object_mut(), caps.get("roots").and_then(Value::as_object)) {
                r.extend(user.clone());
            }
            caps.insert("roots".into(), roots);
        }
        let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
        if let Some(ext) = extensions.as_object_mut() {
            ext.insert("io.modelcontextprotocol/ui".into(), json!({}));
        }
        Value::Object(caps)
    }
}

/// Answers a server's embedded input requests (2026-07-28 `inputRequests`, by key): an
/// elicitation through the user's handler, roots from the configuration; or says (for the
/// user) why one cannot be answered.
pub async fn answer_requests(shared: &HandlerShared, requests: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut responses = Map::new();
    for (key, request) in requests {
        let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
        let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        let response = match method {
            "elicitation/create" => shared.ask_user(key, params).await?,
            "roots/list" => json!({ "roots": shared.roots.lock().map(|r| r.clone()).unwrap_or_default() }),
            other => return Err(format!("Server {} asked for input this client does not provide ({other})", shared.server)),
        };
        responses.insert(key.clone(), response);
    }
    Ok(responses)
}

/// SEP-1034: an `accept` answer gets the `default` of every field of `requestedSchema` it left
/// out (as the TypeScript SDK client does). Other answers pass through unchanged.
pub fn with_schema_defaults(mut answer: Value, schema: Option<&Value>) -> Value {
    if answer.get("action").and_then(Value::as_str) != Some("accept") {
        return answer;
    }
    let Some(properties) = schema.and_then(|s| s.get("properties")).and_then(Value::as_object) else {
        return answer;
    };
    let Some(object) = answer.as_object_mut() else {
        return answer;
    };
    let content = object.entry("content").or_insert_with(|| json!({}));
    if let Some(content) = content.as_object_mut() {
        for (field, property) in properties {
            if let Some(default) = property.get("default") {
                if !content.contains_key(field) {
                    content.insert(field.clone(), default.clone());
                }
            }
        }
    }
    answer
}

#[derive(Clone)]
pub struct Handler {
    pub shared: Arc<HandlerShared>,
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // A pinned handshake revision is asked for as is.
        let version = match self.shared.pinned_version.as_deref() {
            Some(v) if v != MODERN_PROTOCOL_VERSION && v.starts_with(|c: char| c.is_ascii_digit()) => v,
            _ => PROTOCOL_VERSION,
        };
        let info = json!({
            "protocolVersion": version,
            "capabilities": self.shared.capabilities(),
            "clientInfo": { "name": self.shared.server, "version": self.shared.client_version },
        });
        serde_json::from_value(info).unwrap_or_else(|e| {
            tracing::warn!(server = %self.shared.server, "user capabilities rejected: {e}");
            let fallback = json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": { "extensions": { "io.modelcontextprotocol/ui": {} } },
                "clientInfo": { "name": self.shared.server, "version": self.shared.client_version },
            });
            serde_json::from_value(fallback).expect("static client info is valid")
        })
    }

    async fn create_elicitation(&self, request: ElicitRequestParams, context: RequestContext<RoleClient>) -> Result<ElicitResult, ErrorData> {
        if self.shared.responder.is_none() {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "Method not found", None));
        }
        // The server's request id is the key (as `@mastra/mcp` 2.0 hands it to `inputRequests`);
        // the server's `notifications/cancelled` (or the session's end) drops the user's wait.
        let key = context.id.to_string();
        let answering = self.shared.ask_user(&key, to_json(&request));
        let answer = tokio::select! {
            r = answering => r.map_err(|msg| ErrorData::new(ErrorCode::INTERNAL_ERROR, msg, None))?,
            _ = context.ct.cancelled() => {
                return Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "The server cancelled the elicitation request", None));
            }
        };
        serde_json::from_value::<ElicitResult>(answer.clone())
            .map_err(|e| ErrorData::new(ErrorCode::INTERNAL_ERROR, format!("Elicitation handler returned an invalid result ({e}): {answer}"), None))
    }

    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {
        let roots = self.shared.roots.lock().map(|r| r.clone()).unwrap_or_default();
        serde_json::from_value(json!({ "roots": roots })).map_err(|e| ErrorData::new(ErrorCode::INTERNAL_ERROR, format!("invalid roots: {e}"), None))
    }
}

#[cfg(test)]
mod tests {
    use super::with_schema_defaults;
    use serde_json::json;

    fn schema() -> serde_json::Value {
        json!({ "type": "object", "properties": {
            "name": { "type": "string", "default": "Ada" },
            "age": { "type": "integer", "default": 36 },
            "note": { "type": "string" }
        } })
    }

    #[test]
    fn accept_gets_defaults_for_omitted_fields_only() {
        let out = with_schema_defaults(json!({ "action": "accept", "content": { "name": "Grace" } }), Some(&schema()));
        assert_eq!(out, json!({ "action": "accept", "content": { "name": "Grace", "age": 36 } }));
    }

    #[test]
    fn accept_without_content_gets_all_defaults() {
        let out = with_schema_defaults(json!({ "action": "accept" }), Some(&schema()));
        assert_eq!(out, json!({ "action": "accept", "content": { "name": "Ada", "age": 36 } }));
    }

    #[test]
    fn decline_and_cancel_are_untouched() {
        for action in ["decline", "cancel"] {
            let answer = json!({ "action": action });
            assert_eq!(with_schema_defaults(answer.clone(), Some(&schema())), answer);
        }
    }
}

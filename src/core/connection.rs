//! One server's lifecycle: lazy, memoised connect (concurrent callers share one attempt),
//! requests with bounded waits and cancellation, reconnect after the transport died, and a clean
//! disconnect. Tool lists are cached and invalidated by `list_changed` and by reconnects.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt, Shared};
use rmcp::model::{ClientNotification, ClientRequest, RequestMetaObject};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService, ServiceError};
use rmcp::{Peer, ServiceExt};
use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use super::config::{ServerConfig, ServerSpec};
use super::error::{ErrorKind, McpError, Result};
use super::events::{ElicitationResponder, EventSink};
use super::handler::{Handler, HandlerShared};
use super::transport;
use super::transport::observed::Observed;

/// Longest a list may be paged before we stop (protects against cursor loops).
const MAX_PAGES: usize = 1000;
/// Bound on the graceful close of one session (stdin EOF, SIGTERM, SIGKILL take up to ~6 s).
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// A live MCP session.
pub struct Live {
    peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    pub instructions: Option<String>,
    pub server_version: Option<String>,
    pub protocol_version: String,
}

impl Live {
    fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    async fn close(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(CLOSE_TIMEOUT).await;
        }
    }
}

type ConnectFuture = Shared<BoxFuture<'static, Result<Arc<Live>>>>;

enum State {
    Idle,
    Connecting(ConnectFuture),
    Ready(Arc<Live>),
}

/// Per-request options.
#[derive(Default)]
pub struct RequestOptions {
    pub timeout_ms: Option<u64>,
    pub meta: Option<Value>,
    pub cancel: Option<CancellationToken>,
    /// Reason reported when `cancel` fires.
    pub cancel_reason: Option<Arc<Mutex<String>>>,
    /// The progress token the user wants to see in progress notifications.
    pub progress_token: Option<Value>,
}

/// Why a request failed: whether it provably never reached the server matters for retries.
enum RequestFailure {
    NotSent(McpError),
    Failed(McpError),
}

impl RequestFailure {
    fn into_error(self) -> McpError {
        match self {
            RequestFailure::NotSent(e) | RequestFailure::Failed(e) => e,
        }
    }
}

pub struct Connection {
    config: ServerConfig,
    default_timeout_ms: u64,
    shared: Arc<HandlerShared>,
    state: tokio::sync::Mutex<State>,
    /// Bumped by `disconnect()`; a connect that finishes under an older generation is discarded.
    generation: AtomicU64,
    tools_cache: Mutex<Option<(u64, Arc<Vec<Value>>)>>,
}

impl Connection {
    pub fn new(
        config: ServerConfig,
        default_timeout_ms: u64,
        sink: Arc<dyn EventSink>,
        responder: Option<Arc<dyn ElicitationResponder>>,
    ) -> Self {
        let shared = Arc::new(HandlerShared {
            server: config.name.clone(),
            sink,
            responder,
            enable_server_logs: config.enable_server_logs,
            elicitation: AtomicBool::new(config.elicitation),
            user_capabilities: config.capabilities.clone(),
            roots: config.roots.clone(),
            tools_epoch: AtomicU64::new(0),
            progress_aliases: Mutex::new(HashMap::new()),
        });
        Connection {
            config,
            default_timeout_ms,
            shared,
            state: tokio::sync::Mutex::new(State::Idle),
            generation: AtomicU64::new(0),
            tools_cache: Mutex::new(None),
        }
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The timeout for requests to this server.
    pub fn request_timeout_ms(&self) -> u64 {
        self.config.timeout_ms.unwrap_or(self.default_timeout_ms)
    }

    /// Advertise elicitation on the next connect. Refused once a session exists, because
    /// capabilities are fixed at `initialize`.
    pub async fn enable_elicitation(&self) -> Result<()> {
        if self.shared.elicitation.load(Ordering::SeqCst) {
            return Ok(());
        }
        let state = self.state.lock().await;
        match &*state {
            State::Idle => {
                self.shared.elicitation.store(true, Ordering::SeqCst);
                Ok(())
            }
            _ => Err(McpError::new(
                ErrorKind::InvalidState,
                self.name(),
                "Cannot register an elicitation handler after connecting unless elicitation capability was configured before initialization.",
            )),
        }
    }

    /// The live session if there is one (without connecting).
    pub async fn current(&self) -> Option<Arc<Live>> {
        match &*self.state.lock().await {
            State::Ready(live) if !live.is_closed() => Some(live.clone()),
            _ => None,
        }
    }

    /// Connects if needed; concurrent callers share one attempt. A session whose transport died
    /// (child exited, stream closed) is replaced by a fresh one.
    pub async fn ensure_connected(&self) -> Result<Arc<Live>> {
        let (future, generation) = {
            let mut state = self.state.lock().await;
            match &*state {
                State::Ready(live) if !live.is_closed() => return Ok(live.clone()),
                State::Connecting(f) => (f.clone(), self.generation.load(Ordering::SeqCst)),
                State::Ready(_) | State::Idle => {
                    if matches!(&*state, State::Ready(_)) {
                        self.shared.diagnostic("info", "Transport closed; reconnecting");
                    }
                    let generation = self.generation.load(Ordering::SeqCst);
                    let f = open_session(self.config.clone(), self.shared.clone(), self.request_timeout_ms())
                    .boxed()
                    .shared();
                    *state = State::Connecting(f.clone());
                    (f, generation)
                }
            }
        };
        let outcome = future.await;
        let mut state = self.state.lock().await;
        let current = self.generation.load(Ordering::SeqCst) == generation;
        match outcome {
            Ok(live) if current => {
                if !matches!(&*state, State::Ready(l) if Arc::ptr_eq(l, &live)) {
                    self.shared.tools_epoch.fetch_add(1, Ordering::SeqCst);
                    *state = State::Ready(live.clone());
                }
                Ok(live)
            }
            Ok(live) => {
                drop(state);
                live.close().await;
                Err(McpError::new(
                    ErrorKind::Disconnected,
                    self.name(),
                    "MCP client was disconnected while connecting",
                ))
            }
            Err(e) => {
                if current && matches!(&*state, State::Connecting(_)) {
                    *state = State::Idle;
                }
                Err(e)
            }
        }
    }

    /// Closes the session (if any). The connection stays usable: the next call reconnects.
    pub async fn disconnect(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let previous = std::mem::replace(&mut *self.state.lock().await, State::Idle);
        if let State::Ready(live) = previous {
            self.shared.diagnostic("debug", "Disconnecting");
            live.close().await;
        }
        self.shared.tools_epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Forces a fresh session.
    pub async fn reconnect(&self) -> Result<Arc<Live>> {
        self.disconnect().await;
        self.ensure_connected().await
    }

    /// Sends one request on the current session (connecting first).
    async fn send_once(&self, method: &str, params: Value, options: &RequestOptions) -> std::result::Result<Value, RequestFailure> {
        let live = self.ensure_connected().await.map_err(RequestFailure::Failed)?;
        let name = self.name();
        let request: ClientRequest = serde_json::from_value(json!({ "method": method, "params": params }))
            .map_err(|e| {
                RequestFailure::Failed(McpError::new(
                    ErrorKind::InvalidState,
                    name,
                    format!("Invalid {method} request: {e}"),
                ))
            })?;
        let timeout_ms = options.timeout_ms.unwrap_or_else(|| self.request_timeout_ms());
        let mut peer_options = PeerRequestOptions::with_timeout(Duration::from_millis(timeout_ms));
        if let Some(meta) = options.meta.as_ref().filter(|m| m.as_object().is_some_and(|o| !o.is_empty())) {
            if let Ok(meta) = serde_json::from_value::<RequestMetaObject>(meta.clone()) {
                peer_options = peer_options.with_meta(meta);
            }
        }
        let handle = live
            .peer
            .send_request_with_option(request, peer_options)
            .await
            .map_err(|e| RequestFailure::NotSent(service_error(name, method, timeout_ms, e)))?;
        let request_id = handle.id.clone();
        let alias_key = options.progress_token.as_ref().map(|token| {
            let key = serde_json::to_value(&handle.progress_token).unwrap_or(Value::Null).to_string();
            if let Ok(mut aliases) = self.shared.progress_aliases.lock() {
                aliases.insert(key.clone(), token.clone());
            }
            key
        });
        let cancel = options.cancel.clone().unwrap_or_default();
        let outcome = tokio::select! {
            r = handle.await_response() => r.map_err(|e| service_error(name, method, timeout_ms, e)),
            _ = cancel.cancelled() => {
                let reason = options
                    .cancel_reason
                    .as_ref()
                    .and_then(|r| r.lock().ok().map(|s| s.clone()))
                    .unwrap_or_else(|| "This operation was aborted".to_string());
                let note = json!({ "method": "notifications/cancelled", "params": { "requestId": request_id, "reason": reason } });
                if let Ok(note) = serde_json::from_value::<ClientNotification>(note) {
                    let _ = live.peer.send_notification(note).await;
                }
                Err(McpError::new(ErrorKind::Aborted, name, reason))
            }
        };
        if let Some(key) = alias_key {
            // Progress precedes the response on the wire and is routed as it arrives (see
            // `transport::observed`), so the alias is no longer needed once the response is in.
            if let Ok(mut aliases) = self.shared.progress_aliases.lock() {
                aliases.remove(&key);
            }
        }
        let result = outcome.map_err(RequestFailure::Failed)?;
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }

    /// Sends a request. If it provably never reached the server (the session was already gone),
    /// reconnects and sends it once more; a request that may have been delivered is never resent.
    pub async fn request(&self, method: &str, params: Value, options: RequestOptions) -> Result<Value> {
        match self.send_once(method, params.clone(), &options).await {
            Ok(v) => Ok(v),
            Err(RequestFailure::NotSent(e)) => {
                self.shared.diagnostic("info", format!("{method} was not sent ({e}); reconnecting and retrying once"));
                self.reconnect().await?;
                self.send_once(method, params, &options).await.map_err(RequestFailure::into_error)
            }
            Err(RequestFailure::Failed(e)) => Err(e),
        }
    }

    /// Follows `nextCursor` to the end and concatenates `key` arrays.
    pub async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = self.request(method, params, RequestOptions::default()).await?;
            match page.get(key).and_then(Value::as_array) {
                Some(list) => items.extend(list.iter().cloned()),
                None => {
                    return Err(McpError::new(
                        ErrorKind::InvalidResponse,
                        self.name(),
                        format!("Server {} answered {method} without a \"{key}\" array", self.name()),
                    ))
                }
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if Some(next) != cursor.as_deref() => cursor = Some(next.to_string()),
                _ => return Ok(items),
            }
        }
        Err(McpError::new(
            ErrorKind::InvalidResponse,
            self.name(),
            format!("Server {} paginated {method} past {MAX_PAGES} pages", self.name()),
        ))
    }

    /// The server's tools, from cache when nothing invalidated it. Returns the cache epoch too.
    pub async fn tools(&self) -> Result<(u64, Arc<Vec<Value>>)> {
        let live = self.ensure_connected().await?;
        let epoch = self.shared.tools_epoch.load(Ordering::SeqCst);
        if let Ok(cache) = self.tools_cache.lock() {
            if let Some((cached_epoch, tools)) = cache.as_ref() {
                if *cached_epoch == epoch {
                    return Ok((epoch, tools.clone()));
                }
            }
        }
        let tools = if server_has(&live, "tools") {
            Arc::new(self.list_all("tools/list", "tools").await?)
        } else {
            Arc::new(Vec::new())
        };
        if let Ok(mut cache) = self.tools_cache.lock() {
            *cache = Some((epoch, tools.clone()));
        }
        Ok((epoch, tools))
    }

    /// Instructions of the live session, if connected.
    pub async fn instructions(&self) -> Option<String> {
        self.current().await.and_then(|l| l.instructions.clone())
    }
}

/// Whether the server advertises a capability (true when unknown).
pub fn server_has(live: &Live, capability: &str) -> bool {
    live.peer
        .peer_info()
        .map(|info| serde_json::to_value(&info.capabilities).ok().and_then(|c| c.get(capability).cloned()).is_some_and(|c| !c.is_null()))
        .unwrap_or(true)
}


fn service_error(server: &str, method: &str, timeout_ms: u64, e: ServiceError) -> McpError {
    match e {
        ServiceError::McpError(data) => {
            McpError::rpc(server, i64::from(data.code.0), format!("MCP error {}: {}", data.code.0, data.message), data.data)
        }
        ServiceError::Timeout { .. } => McpError::new(
            ErrorKind::Timeout,
            server,
            format!("Request timed out after {timeout_ms} ms ({method} on server {server})"),
        ),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => McpError::new(
            ErrorKind::TransportClosed,
            server,
            format!("Connection to MCP server {server} closed ({method}): {e}"),
        ),
        ServiceError::Cancelled { reason } => McpError::new(
            ErrorKind::Aborted,
            server,
            reason.unwrap_or_else(|| "This operation was aborted".into()),
        ),
        other => McpError::new(ErrorKind::InvalidResponse, server, format!("{method} failed on server {server}: {other}")),
    }
}

/// Opens a new session: starts the transport and runs the `initialize` handshake, bounded by
/// the connect timeout.
async fn open_session(
    config: ServerConfig,
    shared: Arc<HandlerShared>,
    request_timeout_ms: u64,
) -> Result<Arc<Live>> {
    let name = config.name.clone();
    let spec = config.spec()?.clone();
    let handler = Handler { shared: shared.clone() };
    shared.diagnostic("debug", "Connecting to MCP server");
    let (service, timeout_ms) = match spec {
        ServerSpec::Stdio(stdio) => {
            let (child, stderr) = transport::stdio::spawn(&name, &stdio)?;
            if let Some(stderr) = stderr {
                forward_stderr(shared.clone(), stderr);
            }
            let child = Observed::new(child, shared.clone());
            let outcome = tokio::time::timeout(Duration::from_millis(request_timeout_ms), handler.serve(child)).await;
            (outcome, request_timeout_ms)
        }
        ServerSpec::Http(http) => {
            let timeout_ms = http.connect_timeout_ms;
            let transport = Observed::new(transport::http::streamable(&name, &http)?, shared.clone());
            let outcome = tokio::time::timeout(Duration::from_millis(timeout_ms), handler.serve(transport)).await;
            (outcome, timeout_ms)
        }
    };
    let service = match service {
        Err(_) => {
            return Err(McpError::new(
                ErrorKind::Timeout,
                &name,
                format!("Request timed out after {timeout_ms} ms (initialize on server {name})"),
            )
            .in_connect())
        }
        Ok(Err(e)) => {
            return Err(McpError::new(ErrorKind::ConnectFailed, &name, initialize_error_text(&e)).in_connect());
        }
        Ok(Ok(service)) => service,
    };
    let peer = service.peer().clone();
    let info = peer.peer_info();
    let live = Live {
        instructions: info.as_ref().and_then(|i| i.instructions.clone()),
        server_version: info.as_ref().and_then(|i| i.server_info.as_ref().map(|s| s.version.clone())),
        protocol_version: info.as_ref().map(|i| i.protocol_version.to_string()).unwrap_or_default(),
        peer,
        service: tokio::sync::Mutex::new(Some(service)),
    };
    shared.diagnostic("debug", format!("Connected (protocol {})", live.protocol_version));
    Ok(Arc::new(live))
}

fn initialize_error_text(e: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::ConnectionClosed(_) => "Connection closed before the server completed the initialize handshake (the server exited or wrote something that is not JSON-RPC to stdout)".to_string(),
        E::JsonRpcError(data) => format!("MCP error {}: {}", data.code.0, data.message),
        E::TransportError { context, error } => format!("{context}: {}", error_and_causes(error.error.as_ref())),
        other => other.to_string(),
    }
}

/// An error's message followed by its causes' (when they add something), joined by ": ".
fn error_and_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(err) = cur {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = err.source();
    }
    parts.join(": ")
}

/// Pumps a child's stderr into the event sink until EOF.
fn forward_stderr(shared: Arc<HandlerShared>, mut stderr: tokio::process::ChildStderr) {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        loop {
            match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => shared.sink.stderr(&shared.server, buf[..n].to_vec()),
            }
        }
    });
}

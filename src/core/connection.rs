//! One server's lifecycle: lazy, memoised connect (concurrent callers share one attempt),
//! requests with bounded waits and cancellation, reconnect after the transport died, and a clean
//! disconnect. Tool lists are cached and invalidated by `list_changed` and by reconnects.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt, Shared};
use rmcp::model::{ClientNotification, ClientRequest, CustomRequest, RequestMetaObject};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService, ServiceError};
use rmcp::Peer;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::config::ServerConfig;
use super::error::{ErrorKind, McpError, Result};
use super::events::{ElicitationResponder, EventSink};
use super::handler::{Handler, HandlerShared, MODERN_PROTOCOL_VERSION};
use super::net::NetError;
use super::transport::streamable::FetchContext;
use rmcp::model::GetExtensions;
use rmcp::transport::streamable_http_client::StreamableHttpError;
use super::auth::{OAuthSession, Refusal};
use super::open::{error_and_causes, net_error, open_session, Remote};
use super::results::describe_tool_raw;
use super::transport::envelope::{Envelope, LOG_LEVEL_KEY};
use super::transport::lane::{Lane, LaneError, LaneOutcome};

/// Marks a request whose progress the user asked for; rmcp's own progress token is stripped from
/// every other request (see `transport::observed`).
#[derive(Clone, Copy)]
pub struct WantsProgress;

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
    http_session: Option<Arc<Mutex<Option<String>>>>,
    /// The request lane of a pipe (stdio) session: requests bypass rmcp's service loop.
    lane: Option<Arc<Lane>>,
    /// A 2026-07-28 session (no handshake): notifications come through `subscriptions/listen`.
    modern: bool,
    /// The session's `subscriptions/listen` stream (2026-07-28 sessions), while one is wanted.
    listener: super::listen::Listener,
    /// Whether a change of the server's tool list reaches us (it announces `tools.listChanged`
    /// and the session has a channel for it), so that a listed catalog may be reused until then.
    hears_tool_changes: bool,
}

impl Live {
    /// The Streamable HTTP session id, if this is such a session and the server assigned one.
    pub fn session_id(&self) -> Option<String> {
        self.http_session.as_ref().and_then(|s| s.lock().ok().and_then(|id| id.clone()))
    }

    /// A 2026-07-28 session (no handshake).
    pub fn is_modern(&self) -> bool {
        self.modern
    }

    /// The server's capabilities as JSON (`Null` when unknown).
    pub fn server_capabilities(&self) -> Value {
        self.peer.peer_info().and_then(|info| serde_json::to_value(&info.capabilities).ok()).unwrap_or(Value::Null)
    }

    fn is_closed(&self) -> bool {
        self.peer.is_transport_closed() || self.lane.as_ref().is_some_and(|l| l.is_closed())
    }

    /// Makes the session's `subscriptions/listen` ask for `interest` (2026-07-28 sessions only).
    fn listen(&self, shared: &Arc<HandlerShared>, interest: &super::listen::Interest) {
        if self.modern {
            self.listener.apply(&self.peer, shared, interest);
        }
    }

    async fn close(&self) {
        self.listener.stop();
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
#[derive(Default, Clone)]
pub struct RequestOptions {
    pub timeout_ms: Option<u64>,
    pub meta: Option<Value>,
    pub cancel: Option<CancellationToken>,
    /// Reason reported when `cancel` fires.
    pub cancel_reason: Option<Arc<Mutex<String>>>,
    /// The progress token the user wants to see in progress notifications.
    pub progress_token: Option<Value>,
    /// Id of the user operation (for a custom `fetch`'s request context).
    pub context: Option<u32>,
    /// Send `params` exactly as given: rmcp's typed requests drop fields they do not model
    /// (the 2025-11-25 `task` of a `tools/call`) and have no `tasks/result`.
    pub verbatim: bool,
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
    /// HTTP client and OAuth session of a `url` server.
    remote: Option<Remote>,
    default_timeout_ms: u64,
    shared: Arc<HandlerShared>,
    state: tokio::sync::Mutex<State>,
    /// Bumped by `disconnect()`; a connect that finishes under an older generation is discarded.
    generation: AtomicU64,
    tools_cache: Mutex<Option<(u64, Arc<String>)>>,
    /// Tools of the cached list that may run as tasks (`execution.taskSupport`), by name; also
    /// those the server refused a plain call for. Empty for most servers: calls do not look further.
    task_tools: Mutex<HashMap<String, super::tasks::TaskSupport>>,
    /// The list changes and resources this server's notifications are wanted for (kept across
    /// reconnects): what a 2026-07-28 session's `subscriptions/listen` asks for.
    interest: Mutex<super::listen::Interest>,
    /// First answers of lane `tools/call`s that need the async path to finish (see `hand_over`),
    /// by the call's context id.
    handed_over: Mutex<HashMap<u32, LaneOutcome>>,
}

impl Connection {
    pub fn new(
        config: ServerConfig,
        default_timeout_ms: u64,
        sink: Arc<dyn EventSink>,
        responder: Option<Arc<dyn ElicitationResponder>>,
        remote: Option<Remote>,
    ) -> Self {
        let shared = Arc::new(HandlerShared::from_config(&config, sink, responder));
        Connection {
            config,
            remote,
            default_timeout_ms,
            shared,
            state: tokio::sync::Mutex::new(State::Idle),
            generation: AtomicU64::new(0),
            tools_cache: Mutex::new(None),
            task_tools: Mutex::new(HashMap::new()),
            interest: Mutex::new(Default::default()),
            handed_over: Mutex::new(HashMap::new()),
        }
    }

    /// Hands the first answer of a `tools/call` written on the lane (e.g. an `input_required`
    /// result) to the async path: the next `tools/call` request made with `context` takes it as
    /// its answer instead of being sent, so the call is followed up exactly as a call sent by
    /// that path, and never sent twice.
    pub fn hand_over(&self, context: u32, first: LaneOutcome) {
        if let Ok(mut handed) = self.handed_over.lock() {
            handed.insert(context, first);
        }
    }

    /// The handed-over first answer for `context`, once.
    pub fn take_handed_over(&self, context: u32) -> Option<LaneOutcome> {
        self.handed_over.lock().ok().and_then(|mut h| h.remove(&context))
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

    /// Whether the user asked for `optional` task tools to run as tasks (`preferTasks`).
    pub fn prefers_tasks(&self) -> bool {
        self.config.prefer_tasks
    }

    /// Advertise elicitation on the next connect. Refused once a session exists, because
    /// capabilities are fixed at `initialize`.
    pub async fn enable_elicitation(&self) -> Result<()> {
        if self.shared.elicitation.load(Ordering::SeqCst) {
            return Ok(());
        }
        let state = self.state.lock().await;
        self.enable_elicitation_in(Some(&*state))
    }

    /// `enable_elicitation` without waiting, for the synchronous `setElicitationRequestHandler`:
    /// refused while a session exists or is being opened.
    pub fn enable_elicitation_now(&self) -> Result<()> {
        if self.shared.elicitation.load(Ordering::SeqCst) {
            return Ok(());
        }
        let state = self.state.try_lock();
        self.enable_elicitation_in(state.as_deref().ok())
    }

    /// Advertises elicitation if `state` (None: busy) is idle, else refuses.
    fn enable_elicitation_in(&self, state: Option<&State>) -> Result<()> {
        match state {
            Some(State::Idle) => {
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

    /// The request lane of the live session, without waiting: `None` when not connected (or
    /// connecting), or when the transport has no lane. Callers then take the async path.
    pub fn ready_lane(&self) -> Option<Arc<Lane>> {
        self.try_current().and_then(|live| live.lane.clone())
    }

    /// The live session without waiting: `None` when there is none or the state is busy.
    pub fn try_current(&self) -> Option<Arc<Live>> {
        match &*self.state.try_lock().ok()? {
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
                    let f = open_live(self.config.clone(), self.shared.clone(), self.request_timeout_ms(), self.remote.clone())
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
                    if let Ok(mut snapshot) = self.shared.instructions.lock() {
                        *snapshot = live.instructions.clone();
                    }
                    *state = State::Ready(live.clone());
                    live.listen(&self.shared, &self.interest());
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
        // Tasks being followed end with the session: the server hears it first (bounded).
        super::tasks::extension::cancel_running(self).await;
        self.generation.fetch_add(1, Ordering::SeqCst);
        let previous = std::mem::replace(&mut *self.state.lock().await, State::Idle);
        if let Ok(mut snapshot) = self.shared.instructions.lock() {
            *snapshot = None;
        }
        if let State::Ready(live) = previous {
            self.shared.diagnostic("debug", "Disconnecting");
            live.close().await;
        }
        if let Some(remote) = &self.remote {
            // Nothing of this server stays open: its pooled HTTP connections close now.
            remote.net.release();
        }
        self.shared.tools_epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Forces a fresh session. A handshake-era session is replaced now, as `@mastra/mcp` does (a
    /// failure throws). A 2026-07-28 session is stateless: over Streamable HTTP there is nothing to
    /// reopen, so its pooled connections are released and its `subscriptions/listen` (if one is
    /// wanted) reopened; over stdio the server is started again at the next request. Either way
    /// the era is kept (no second `server/discover` probe), nothing else is sent until the next
    /// request, and a reconnect during an outage does not fail.
    pub async fn reconnect(&self) -> Result<()> {
        if let Some(live) = self.current().await.filter(|live| live.modern && live.http_session.is_some()) {
            if let Some(remote) = &self.remote {
                remote.net.release();
            }
            live.listener.stop();
            live.listen(&self.shared, &self.interest());
            return Ok(());
        }
        self.disconnect().await;
        if super::era::start(&self.shared) == super::era::Start::Discover {
            return Ok(());
        }
        self.ensure_connected().await.map(|_| ())
    }

    /// Sends one request on the current session (connecting first).
    async fn send_once(&self, method: &str, params: Value, options: &RequestOptions) -> std::result::Result<String, RequestFailure> {
        let live = self.ensure_connected().await.map_err(RequestFailure::Failed)?;
        let name = self.name();
        if let Some(lane) = live.lane.clone() {
            return self.send_on_lane(&lane, method, params, options).await;
        }
        let mut request: ClientRequest = if options.verbatim {
            ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)))
        } else {
            serde_json::from_value(json!({ "method": method, "params": params })).map_err(|e| {
                RequestFailure::Failed(McpError::new(
                    ErrorKind::InvalidState,
                    name,
                    format!("Invalid {method} request: {e}"),
                ))
            })?
        };
        if let Some(id) = options.context {
            request.extensions_mut().insert(FetchContext(id));
        }
        // Progress is wanted when tracking set a token, or when the caller's own `_meta` carries one.
        let wanted_progress = options
            .progress_token
            .clone()
            .or_else(|| options.meta.as_ref().and_then(|m| m.get("progressToken")).cloned());
        if wanted_progress.is_some() {
            request.extensions_mut().insert(WantsProgress);
        }
        let timeout_ms = options.timeout_ms.unwrap_or_else(|| self.request_timeout_ms());
        let mut peer_options = PeerRequestOptions::with_timeout(Duration::from_millis(timeout_ms));
        let mut meta = options.meta.as_ref().and_then(Value::as_object).cloned().unwrap_or_default();
        if let (true, Some(level)) = (live.modern, self.shared.server_log_level()) {
            // 2026-07-28: a server sends logs for a request only if its `_meta` asks for them.
            meta.entry(LOG_LEVEL_KEY).or_insert_with(|| Value::String(level.into()));
        }
        if !meta.is_empty() {
            if let Ok(meta) = serde_json::from_value::<RequestMetaObject>(Value::Object(meta)) {
                peer_options = peer_options.with_meta(meta);
            }
        }
        let handle = live
            .peer
            .send_request_with_option(request, peer_options)
            .await
            .map_err(|e| RequestFailure::NotSent(service_error(name, method, timeout_ms, e)))?;
        let request_id = handle.id.clone();
        let alias_key = wanted_progress.as_ref().map(|token| {
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
        serde_json::to_string(&result).map_err(|e| RequestFailure::Failed(McpError::new(ErrorKind::InvalidResponse, name, format!("{method} failed on server {name}: {e}"))))
    }

    /// `send_once` over a pipe session's lane.
    async fn send_on_lane(&self, lane: &Lane, method: &str, mut params: Value, options: &RequestOptions) -> std::result::Result<String, RequestFailure> {
        let name = self.name();
        let timeout_ms = options.timeout_ms.unwrap_or_else(|| self.request_timeout_ms());
        // The caller's `_meta` replaces one in `params`; the lane merges it with the session's envelope.
        let own_meta = params.as_object_mut().and_then(|o| o.remove("_meta"));
        let meta = options.meta.as_ref().filter(|m| m.as_object().is_some_and(|o| !o.is_empty())).or(own_meta.as_ref()).filter(|m| m.is_object());
        let meta_json = meta.map(Value::to_string);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let id = lane.reserve_id();
        lane.send_with_meta(id, method, &params.to_string(), meta_json.as_deref(), timeout_ms, Box::new(move |outcome| {
            let _ = tx.send(outcome);
        }))
        .map_err(|e| RequestFailure::NotSent(lane_error(name, method, LaneError::Closed { detail: e.0 })))?;
        let cancel = options.cancel.clone().unwrap_or_default();
        let outcome = tokio::select! {
            r = rx => r.unwrap_or_else(|_| Err(LaneError::Closed { detail: "the connection was closed".into() })),
            _ = cancel.cancelled() => {
                let reason = options
                    .cancel_reason
                    .as_ref()
                    .and_then(|r| r.lock().ok().map(|s| s.clone()))
                    .unwrap_or_else(|| "This operation was aborted".to_string());
                lane.cancel(id, &reason);
                Err(LaneError::Cancelled { reason })
            }
        };
        outcome.map_err(|e| RequestFailure::Failed(lane_error(name, method, e)))
    }

    /// Sends a request, answering the server's input requests (2026-07-28 `input_required`
    /// results) and sending it again with the answers, as often as the server asks (bounded).
    pub async fn request(&self, method: &str, params: Value, options: RequestOptions) -> Result<Value> {
        let mut params = params;
        for _ in 0..super::input::MAX_ROUNDS {
            let raw = self.request_raw(method, params.clone(), options.clone()).await?;
            let result: Value = serde_json::from_str(&raw).map_err(|e| {
                McpError::new(ErrorKind::InvalidResponse, self.name(), format!("{method} failed on server {}: invalid result ({e})", self.name()))
            })?;
            let Some(input) = super::input::InputRequired::parse(&result) else {
                let mut result = result;
                super::results::strip_envelope(&mut result);
                return Ok(result);
            };
            let cancel = options.cancel.clone().unwrap_or_default();
            // The user's answer may take long: an abort (or disconnect) ends the wait.
            let responses = tokio::select! {
                r = super::input::answer(&self.shared, &input) => r.map_err(|message| McpError::new(ErrorKind::InvalidState, self.name(), message))?,
                _ = cancel.cancelled() => return Err(McpError::new(ErrorKind::Aborted, self.name(), cancel_reason(&options))),
            };
            params = input.retry_params(params, responses);
        }
        Err(McpError::new(
            ErrorKind::InvalidResponse,
            self.name(),
            format!("Server {} asked for input more than {} times ({method})", self.name(), super::input::MAX_ROUNDS),
        ))
    }

    /// `request` once, returning the result's JSON text. If it provably never reached the
    /// server (the session was already gone), reconnects and sends it once more; a request that
    /// may have been delivered is never resent.
    pub async fn request_raw(&self, method: &str, params: Value, options: RequestOptions) -> Result<String> {
        // (Only a plain call takes it: a 2025-11-25 task call is another request than the one answered.)
        let plain_call = method == "tools/call" && params.get("task").is_none();
        if let Some(first) = options.context.filter(|_| plain_call).and_then(|c| self.take_handed_over(c)) {
            return first.map_err(|e| lane_error(self.name(), method, e));
        }
        match self.send_once(method, params.clone(), &options).await {
            Ok(v) => Ok(v),
            Err(RequestFailure::Failed(e)) if e.kind == ErrorKind::AuthRequired => {
                // The token was rejected even after a refresh, or more scope is needed.
                if let Some(session) = self.oauth() {
                    session.refused(if e.http_status == Some(403) {
                        Refusal::InsufficientScope(e.auth_challenge.clone().unwrap_or_default())
                    } else {
                        Refusal::Unauthorized(e.auth_challenge.clone())
                    });
                }
                Err(e)
            }
            Err(RequestFailure::NotSent(e)) => {
                self.shared.diagnostic("info", format!("{method} was not sent ({e}); reconnecting and retrying once"));
                self.reconnect().await?;
                self.send_once(method, params, &options).await.map_err(RequestFailure::into_error)
            }
            Err(RequestFailure::Failed(e)) => Err(e),
        }
    }

    pub(crate) fn oauth(&self) -> Option<&Arc<OAuthSession>> {
        self.remote.as_ref().and_then(|r| r.oauth.as_ref())
    }

    /// `getServerAuthState()`: `None` without a provider or before any verdict.
    pub fn auth_state(&self) -> Option<&'static str> {
        self.oauth().and_then(|s| s.state().as_str())
    }

    /// Follows `nextCursor` to the end and concatenates `key` arrays; `meta`: each page request's
    /// `_meta` (trace context).
    pub async fn list_all(&self, method: &str, key: &str, meta: Option<&Value>) -> Result<Vec<Value>> {
        self.list_all_raw(method, key, meta)
            .await?
            .iter()
            .map(|item| {
                serde_json::from_str(item).map_err(|e| {
                    McpError::new(ErrorKind::InvalidResponse, self.name(), format!("Server {} answered {method} with an invalid item: {e}", self.name()))
                })
            })
            .collect()
    }

    /// `list_all` keeping each item as its JSON text (no tree is built for big catalogs).
    pub async fn list_all_raw(&self, method: &str, key: &str, meta: Option<&Value>) -> Result<Vec<String>> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let options = RequestOptions { meta: meta.cloned(), ..RequestOptions::default() };
            let page = self.request_raw(method, params, options).await?;
            let next = read_page(&page, key, &mut items).map_err(|why| {
                McpError::new(ErrorKind::InvalidResponse, self.name(), format!("Server {} answered {method} {why}", self.name()))
            })?;
            match next {
                Some(next) if Some(next.as_str()) != cursor.as_deref() => cursor = Some(next),
                _ => return Ok(items),
            }
        }
        Err(McpError::new(
            ErrorKind::InvalidResponse,
            self.name(),
            format!("Server {} paginated {method} past {MAX_PAGES} pages", self.name()),
        ))
    }

    /// Whether a change of the server's tool list reaches this session now: a 2026-07-28 session
    /// hears of one only while its `subscriptions/listen` asks.
    fn hears_tool_changes(&self, live: &Live) -> bool {
        live.hears_tool_changes && (!live.modern || self.interest().tools_list_changed)
    }

    /// The server's tools as the JSON text of an array of `describe_tool` entries, from cache
    /// when nothing invalidated it. Returns the cache epoch too. `meta`: the `_meta` of the
    /// `tools/list` requests, if any are sent (trace context).
    pub async fn tools(&self, meta: Option<&Value>) -> Result<(u64, Arc<String>)> {
        let live = self.ensure_connected().await?;
        if !self.hears_tool_changes(&live) {
            // Nothing would tell us of a change: list every time, as the anchor does.
            self.shared.tools_epoch.fetch_add(1, Ordering::SeqCst);
        }
        let epoch = self.shared.tools_epoch.load(Ordering::SeqCst);
        if let Ok(cache) = self.tools_cache.lock() {
            if let Some((cached_epoch, tools)) = cache.as_ref() {
                if *cached_epoch == epoch {
                    return Ok((epoch, tools.clone()));
                }
            }
        }
        let raw = if server_has(&live, "tools") { self.list_all_raw("tools/list", "tools", meta).await? } else { Vec::new() };
        let mut described = String::with_capacity(raw.iter().map(|t| t.len() + 16).sum::<usize>() + 2);
        described.push('[');
        for (i, tool) in raw.iter().enumerate() {
            if i > 0 {
                described.push(',');
            }
            described.push_str(&describe_tool_raw(self.name(), tool));
        }
        described.push(']');
        let tools = Arc::new(described);
        let tasks: HashMap<String, super::tasks::TaskSupport> = raw
            .iter()
            .filter(|t| t.contains("taskSupport"))
            .filter_map(|t| serde_json::from_str::<Value>(t).ok())
            .filter_map(|t| {
                let support = super::tasks::TaskSupport::of(&t);
                let name = t.get("name")?.as_str()?.to_string();
                (support != super::tasks::TaskSupport::Forbidden).then_some((name, support))
            })
            .collect();
        if let Ok(mut known) = self.task_tools.lock() {
            *known = tasks;
        }
        if let Ok(mut cache) = self.tools_cache.lock() {
            *cache = Some((epoch, tools.clone()));
        }
        Ok((epoch, tools))
    }

    /// The epoch of the cached tool list if it is current and the session is live.
    pub fn current_tools_epoch(&self) -> Option<u64> {
        // A 2026-07-28 session hears of changes only while its `subscriptions/listen` asks.
        self.try_current().filter(|live| self.hears_tool_changes(live))?;
        let epoch = self.shared.tools_epoch.load(Ordering::SeqCst);
        let cache = self.tools_cache.lock().ok()?;
        cache.as_ref().filter(|(cached, _)| *cached == epoch).map(|_| epoch)
    }

    fn interest(&self) -> super::listen::Interest {
        self.interest.lock().map(|i| i.clone()).unwrap_or_default()
    }

    /// A handler for a list's changes was registered: a 2026-07-28 session listens for them
    /// from now on (and so does every later session of this server).
    pub fn want_list_changes(&self, kind: super::listen::ListKind) {
        let changed = self.interest.lock().is_ok_and(|mut i| i.want(kind));
        if let (true, Some(live)) = (changed, self.try_current()) {
            live.listen(&self.shared, &self.interest());
        }
    }

    /// `resources/subscribe`; in a 2026-07-28 session, the resource joins the session's
    /// `subscriptions/listen` instead (which is reopened).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<Value> {
        self.resource_subscription(uri, true).await
    }

    /// `resources/unsubscribe`, or leaving the 2026-07-28 `subscriptions/listen`.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<Value> {
        self.resource_subscription(uri, false).await
    }

    async fn resource_subscription(&self, uri: &str, subscribe: bool) -> Result<Value> {
        let live = self.ensure_connected().await?;
        if !live.modern {
            let method = if subscribe { "resources/subscribe" } else { "resources/unsubscribe" };
            return self.request(method, json!({ "uri": uri }), RequestOptions::default()).await;
        }
        let interest = {
            let mut interest = self.interest.lock().map_err(|_| McpError::new(ErrorKind::InvalidState, self.name(), "subscriptions lock poisoned"))?;
            interest.subscribe(uri, subscribe);
            interest.clone()
        };
        live.listen(&self.shared, &interest);
        Ok(json!({}))
    }

    /// A tool's `execution.taskSupport` as far as known (`None` when no list is cached).
    pub fn tool_task_support(&self, name: &str) -> Option<super::tasks::TaskSupport> {
        use super::tasks::TaskSupport;
        let listed = self.tools_cache.lock().ok().is_some_and(|c| c.is_some());
        let known = self.task_tools.lock().ok().and_then(|t| t.get(name).copied());
        match known {
            Some(support) => Some(support),
            None if listed => Some(TaskSupport::Forbidden),
            None => None,
        }
    }

    /// Whether any tool of this server may run as a task.
    pub fn has_task_tools(&self) -> bool {
        self.task_tools.lock().is_ok_and(|t| !t.is_empty())
    }

    /// Records that a tool requires task augmentation (the server said so when called plainly;
    /// rmcp's typed tool list, used over HTTP, drops `execution`).
    pub fn mark_task_tool(&self, name: &str) {
        if let Ok(mut known) = self.task_tools.lock() {
            known.insert(name.to_string(), super::tasks::TaskSupport::Required);
        }
    }

    /// State shared with this server's handlers (events, task status wake-ups).
    pub(crate) fn shared(&self) -> &Arc<HandlerShared> {
        &self.shared
    }

    /// Instructions of the last initialized session, without waiting (`None` after `disconnect()`).
    pub fn instructions_now(&self) -> Option<String> {
        self.shared.instructions.lock().ok().and_then(|i| i.clone())
    }

    /// The protocol revision of the live session, now (`None` when not connected).
    pub fn protocol_version_now(&self) -> Option<String> {
        self.try_current().map(|live| live.protocol_version.clone()).filter(|v| !v.is_empty())
    }

    /// The roots answered to `roots/list`.
    pub fn roots(&self) -> Vec<Value> {
        self.shared.roots.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Replaces the roots; the server hears `notifications/roots/list_changed` if connected.
    pub async fn set_roots(&self, roots: Vec<Value>) -> Result<()> {
        if let Ok(mut current) = self.shared.roots.lock() {
            *current = roots;
        }
        self.send_roots_list_changed().await
    }

    /// Sends `notifications/roots/list_changed` on the live session; a no-op when not connected.
    pub async fn send_roots_list_changed(&self) -> Result<()> {
        let Some(live) = self.current().await else {
            self.shared.diagnostic("debug", "Cannot send roots/list_changed: not connected");
            return Ok(());
        };
        let note: ClientNotification = serde_json::from_value(json!({ "method": "notifications/roots/list_changed" }))
            .map_err(|e| McpError::new(ErrorKind::InvalidState, self.name(), format!("roots/list_changed: {e}")))?;
        live.peer.send_notification(note).await.map_err(|e| {
            McpError::new(
                ErrorKind::Disconnected,
                self.name(),
                format!("Failed to send notifications/roots/list_changed to server {}: {e}", self.name()),
            )
        })
    }

    /// Instructions of the live session, if connected.
    pub async fn instructions(&self) -> Option<String> {
        self.current().await.and_then(|l| l.instructions.clone())
    }
}

/// Appends the `key` items of one list page (as JSON text) to `items`; returns `nextCursor`.
fn read_page(page: &str, key: &str, items: &mut Vec<String>) -> std::result::Result<Option<String>, String> {
    use serde_json::value::RawValue;
    let fields: std::collections::BTreeMap<String, &RawValue> = serde_json::from_str(page).map_err(|e| format!("with an invalid page ({e})"))?;
    let list = fields.get(key).ok_or_else(|| format!("without a \"{key}\" array"))?;
    let list: Vec<&RawValue> = serde_json::from_str(list.get()).map_err(|_| format!("without a \"{key}\" array"))?;
    items.extend(list.into_iter().map(|item| item.get().to_string()));
    Ok(fields.get("nextCursor").and_then(|c| serde_json::from_str::<String>(c.get()).ok()))
}

/// Whether the server advertises a capability (true when unknown).
pub fn server_has(live: &Live, capability: &str) -> bool {
    live.peer
        .peer_info()
        .map(|info| serde_json::to_value(&info.capabilities).ok().and_then(|c| c.get(capability).cloned()).is_some_and(|c| !c.is_null()))
        .unwrap_or(true)
}


/// Why a request was cancelled, as the canceller said.
fn cancel_reason(options: &RequestOptions) -> String {
    options
        .cancel_reason
        .as_ref()
        .and_then(|r| r.lock().ok().map(|s| s.clone()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "This operation was aborted".to_string())
}

/// The user-facing error for a lane request that did not succeed.
pub fn lane_error(server: &str, method: &str, e: LaneError) -> McpError {
    match e {
        LaneError::Rpc { code, message, data } => McpError::rpc(server, code, format!("MCP error {code}: {message}"), data),
        LaneError::Timeout { after_ms } => McpError::new(
            ErrorKind::Timeout,
            server,
            format!("Request timed out after {after_ms} ms ({method} on server {server})"),
        ),
        LaneError::Closed { detail } => McpError::new(
            ErrorKind::TransportClosed,
            server,
            format!("Connection to MCP server {server} closed ({method}): {detail}"),
        ),
        LaneError::Cancelled { reason } => McpError::new(ErrorKind::Aborted, server, reason),
        LaneError::TooLarge { detail } => {
            McpError::new(ErrorKind::InvalidResponse, server, format!("{method} failed on server {server}: {detail}"))
        }
    }
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
        ServiceError::TransportSend(ref dynamic) => {
            let inner: &(dyn std::error::Error + Send + Sync + 'static) = dynamic.error.as_ref();
            let refusal = match inner.downcast_ref::<StreamableHttpError<NetError>>() {
                Some(StreamableHttpError::InsufficientScope(c)) => Some((403, "needs more scope", &c.www_authenticate_header)),
                Some(StreamableHttpError::AuthRequired(c)) => Some((401, "was refused", &c.www_authenticate_header)),
                _ => None,
            };
            if let Some((status, what, challenge)) = refusal {
                let mut err = McpError::new(
                    ErrorKind::AuthRequired,
                    server,
                    format!("UnauthorizedError: {method} on server {server} {what} (HTTP {status}); authorization is required"),
                );
                err.http_status = Some(status);
                err.auth_challenge = Some(challenge.clone());
                return err;
            }
            let net = inner
                .downcast_ref::<NetError>()
                .or_else(|| match inner.downcast_ref::<StreamableHttpError<NetError>>() {
                    Some(StreamableHttpError::Client(n)) => Some(n),
                    _ => None,
                });
            match net {
                Some(n) => {
                    let mut err = net_error(server, n);
                    err.during_connect = false;
                    err.message = format!("{method} failed on server {server}: {}", err.message);
                    err
                }
                None => McpError::new(
                    ErrorKind::TransportClosed,
                    server,
                    format!("Connection to MCP server {server} closed ({method}): {}", error_and_causes(inner)),
                ),
            }
        }
        ServiceError::TransportClosed => McpError::new(
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

/// The per-request `_meta` of a 2026-07-28 session: the negotiated version and the client info
/// and capabilities the session was opened with (what rmcp's peer sends) — declaring the Tasks
/// extension when the server has it, so a lane call may come back as a task — plus the server
/// log level when the user wants server logs.
fn session_envelope(service: &super::open::Service, shared: &HandlerShared, info: Option<&rmcp::model::ServerPeerInfo>) -> Envelope {
    use super::tasks::extension;
    let client = rmcp::handler::client::ClientHandler::get_info(service.service());
    let version = info.map(|i| i.protocol_version.to_string()).unwrap_or_else(|| MODERN_PROTOCOL_VERSION.to_string());
    let mut capabilities = serde_json::to_value(&client.capabilities).unwrap_or_else(|_| json!({}));
    if info.and_then(|i| serde_json::to_value(&i.capabilities).ok()).is_some_and(|c| extension::declared_in(&c)) {
        extension::declare_in(&mut capabilities);
    }
    Envelope::new(&version, &client.client_info, &capabilities, shared.server_log_level()).unwrap_or_else(|e| {
        tracing::warn!(server = %shared.server, "client info not serialisable for the request envelope: {e}");
        Envelope::new(&version, &serde_json::json!({ "name": shared.server, "version": shared.client_version }), &serde_json::json!({}), shared.server_log_level())
            .expect("static envelope serialises")
    })
}

/// Opens a session and wraps it as `Live`.
async fn open_live(config: ServerConfig, shared: Arc<HandlerShared>, request_timeout_ms: u64, remote: Option<Remote>) -> Result<Arc<Live>> {
    let opened = open_session(config, shared.clone(), request_timeout_ms, remote).await?;
    let peer = opened.service.peer().clone();
    let info = peer.peer_info();
    let modern = info.as_ref().map(|i| i.protocol_version.to_string()).as_deref() == Some(MODERN_PROTOCOL_VERSION);
    let announces_tool_changes = info.as_ref().and_then(|i| i.capabilities.tools.as_ref()).and_then(|t| t.list_changed) == Some(true);
    // Streamable HTTP carries notifications only within a session (the handshake's
    // Mcp-Session-Id) or, in 2026-07-28, on `subscriptions/listen`; stdio and SSE always can.
    let has_channel = match &opened.http_session {
        Some(cell) => modern || cell.lock().is_ok_and(|id| id.is_some()),
        None => true,
    };
    let live = Live {
        hears_tool_changes: announces_tool_changes && has_channel,
        instructions: info.as_ref().and_then(|i| i.instructions.clone()),
        server_version: info.as_ref().and_then(|i| i.server_info.as_ref().map(|s| s.version.clone())),
        protocol_version: info.as_ref().map(|i| i.protocol_version.to_string()).unwrap_or_default(),
        http_session: opened.http_session,
        // A 2026-07-28 request carries the client's context in `_meta`, as rmcp's peer adds it
        // to its own requests: the lane writes the same, from the info this session opened with.
        lane: opened.lane.filter(|lane| !modern || lane.set_envelope(session_envelope(&opened.service, &shared, info.as_deref()))),
        modern,
        listener: Default::default(),
        peer,
        service: tokio::sync::Mutex::new(Some(opened.service)),
    };
    // Remembered: the next connect to this server starts the way this one ended.
    super::era::remember(&shared, modern);
    shared.diagnostic("debug", format!("Connected (protocol {})", live.protocol_version));
    Ok(Arc::new(live))
}


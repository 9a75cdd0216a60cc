//! One server's lifecycle: lazy, memoised connect (concurrent callers share one attempt),
//! requests with bounded waits and cancellation, reconnect after the transport died, and a clean
//! disconnect. This is the lifecycle plus the one request path (`request_raw`); the protocol
//! features (tool-list cache, input rounds, `subscriptions/listen`, tasks, paged lists) are layers
//! above it ([`layer`]): they call the request path, keep their state in [`Slots`], and hook the
//! lifecycle through [`Layer`]. The connection names none of them.

pub mod announce;
mod carry;
mod errors;
pub mod layer;
mod live;
mod park;
mod restarts;
mod roots;
mod send;
mod trace;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::{BoxFuture, FutureExt, Shared};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::core::auth::{OAuthSession, Refusal};
use crate::core::config::ServerConfig;
use crate::core::error::{ErrorKind, McpError, Result};
use crate::core::events::{ElicitationResponder, EventSink};
use crate::core::handler::HandlerShared;
use crate::core::observe;
use crate::core::open::{open_session, starts_stateless, Remote};
use crate::core::transport::lane::Lane;
pub use carry::{carry_error, Carry, SESSION_ENTRY};
use errors::RequestFailure;
pub use errors::{cancel_reason, lane_error};
pub use layer::{Layer, Slots};
use live::live_of;
pub use live::{server_has, Live};

type ConnectFuture = Shared<BoxFuture<'static, Result<Arc<Live>>>>;

enum State {
    Idle,
    Connecting(ConnectFuture),
    Ready(Arc<Live>),
    /// An idle session whose rmcp machinery ended; the next request resumes it (see `park`).
    Parked(Box<park::Parked>),
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
    /// `maxTotalTimeout` of this request, over the server's (see `ServerConfig::progress_bound`).
    pub max_total_timeout_ms: Option<u64>,
}

pub struct Connection {
    config: ServerConfig,
    /// HTTP client and OAuth session of a `url` server.
    remote: Option<Remote>,
    default_timeout_ms: u64,
    shared: Arc<HandlerShared>,
    /// Shared with the watcher that parks an idle session (`park`).
    state: Arc<tokio::sync::Mutex<State>>,
    /// Bumped by `disconnect()`; a connect that finishes under an older generation is discarded.
    generation: AtomicU64,
    /// The layers whose hooks run as the lifecycle moves (see `core::features`).
    layers: Vec<Arc<dyn Layer>>,
    /// Per-connection state of the layers above (kept across sessions).
    slots: Slots,
    /// When sessions of this server died unexpectedly (restarts are bounded).
    deaths: restarts::Deaths,
    /// Where what outlives the process is kept (a store), and what this connection wrote there.
    carry: Option<Arc<dyn Carry>>,
    kept: Arc<carry::Kept>,
}

impl Connection {
    pub fn new(
        config: ServerConfig,
        default_timeout_ms: u64,
        sink: Arc<dyn EventSink>,
        responder: Option<Arc<dyn ElicitationResponder>>,
        remote: Option<Remote>,
    ) -> Self {
        let mut shared = HandlerShared::from_config(&config, sink, responder);
        shared.request_timeout_ms = config.timeout_ms.unwrap_or(default_timeout_ms);
        let shared = Arc::new(shared);
        Connection {
            config,
            remote,
            default_timeout_ms,
            shared,
            state: Arc::new(tokio::sync::Mutex::new(State::Idle)),
            generation: AtomicU64::new(0),
            layers: Vec::new(),
            slots: Slots::default(),
            deaths: Default::default(),
            carry: None,
            kept: Default::default(),
        }
    }

    /// The connection keeps its session in `carry` for the next process (see `carry`).
    pub fn with_carry(mut self, carry: Option<Arc<dyn Carry>>) -> Self {
        self.carry = carry;
        self
    }

    /// The connection with `layers`' hooks on its lifecycle.
    pub fn with_layers(mut self, layers: Vec<Arc<dyn Layer>>) -> Self {
        self.layers = layers;
        self
    }

    /// The layers' per-connection state.
    pub fn slots(&self) -> &Slots {
        &self.slots
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
        let mut started_ms = None; // when this caller started the connect (traced operations only)
        let (future, generation) = {
            let mut state = self.state.lock().await;
            match &*state {
                State::Ready(live) if !live.is_closed() => return Ok(live.clone()),
                State::Connecting(f) => (f.clone(), self.generation.load(Ordering::SeqCst)),
                State::Parked(_) => {
                    let State::Parked(parked) = std::mem::replace(&mut *state, State::Idle) else { unreachable!("matched above") };
                    let generation = self.generation.load(Ordering::SeqCst);
                    let f = self.resume_live(parked).shared();
                    *state = State::Connecting(f.clone());
                    (f, generation)
                }
                State::Ready(_) | State::Idle => {
                    let restore = matches!(&*state, State::Idle);
                    if let State::Ready(dead) = &*state {
                        self.session_ended(dead, Some("TRANSPORT_CLOSED"));
                        // A session that answered nothing is a crash; one that served requests
                        // (a server killed or redeployed) clears the count.
                        let crashed = if dead.answered() {
                            self.deaths.clear();
                            Ok(())
                        } else {
                            self.deaths.died()
                        };
                        if let Err(wait) = crashed {
                            return Err(McpError::new(
                                ErrorKind::TransportClosed,
                                self.name(),
                                format!(
                                    "MCP server {} keeps exiting ({} times within {} s): not started again for {} s{}",
                                    self.name(),
                                    restarts::MAX_RESTARTS,
                                    restarts::RESTART_WINDOW.as_secs(),
                                    wait.as_secs().max(1),
                                    self.shared.crash_reason()
                                ),
                            ));
                        }
                        self.shared.diagnostic("info", "Transport closed; reconnecting");
                        observe::note_event("mcp.client.reconnect", || observe::reason("the transport closed"));
                    }
                    self.shared.diagnostic("debug", "Connecting to MCP server");
                    started_ms = observe::recording().then(observe::now_ms);
                    let generation = self.generation.load(Ordering::SeqCst);
                    let f = if restore {
                        self.open_or_restore().shared()
                    } else {
                        open_live(self.config.clone(), self.shared.clone(), self.request_timeout_ms(), self.remote.clone()).boxed().shared()
                    };
                    *state = State::Connecting(f.clone());
                    (f, generation)
                }
            }
        };
        let outcome = future.await;
        if let Some(start_ms) = started_ms {
            self.note_connect(start_ms, &outcome);
        }
        let mut state = self.state.lock().await;
        let current = self.generation.load(Ordering::SeqCst) == generation;
        match outcome {
            Ok(live) if current => {
                if !matches!(&*state, State::Ready(l) if Arc::ptr_eq(l, &live)) {
                    if let Ok(mut snapshot) = self.shared.instructions.lock() {
                        *snapshot = live.instructions.clone();
                    }
                    *state = State::Ready(live.clone());
                    for layer in &self.layers {
                        layer.opened(self, &live);
                    }
                    self.park_when_idle(&live);
                    drop(state);
                    self.sync_kept(&live).await;
                }
                Ok(live)
            }
            Ok(live) => {
                drop(state);
                self.close_live(&live).await;
                Err(McpError::new(ErrorKind::Disconnected, self.name(), "MCP client was disconnected while connecting"))
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
        self.disconnect_for(!self.leaves_session()).await
    }

    /// `disconnect()`; `end_for_all`: the session ends on the server (DELETE) even when a store
    /// keeps it for the next process.
    async fn disconnect_for(&self, end_for_all: bool) {
        // What the layers still send on the session goes first (bounded): tasks being followed.
        for layer in &self.layers {
            layer.disconnecting(self).await;
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
        let previous = std::mem::replace(&mut *self.state.lock().await, State::Idle);
        if let Ok(mut snapshot) = self.shared.instructions.lock() {
            *snapshot = None;
        }
        match previous {
            State::Ready(live) => {
                self.shared.diagnostic("debug", "Disconnecting");
                if !end_for_all {
                    // Kept for the next process: closed here as a pause (no DELETE).
                    self.sync_kept(&live).await;
                    if let Some(parkable) = live.parkable() {
                        parkable.resume.pause();
                    }
                }
                self.close_live(&live).await;
            }
            State::Parked(_) if !end_for_all => {
                self.shared.diagnostic("debug", "Disconnecting (the session stays kept for the next process)");
            }
            State::Parked(parked) => {
                self.shared.diagnostic("debug", "Disconnecting");
                self.end_parked(parked).await;
            }
            State::Idle | State::Connecting(_) => {}
        }
        if let Some(remote) = &self.remote {
            // Nothing of this server stays open: its pooled HTTP connections close now.
            remote.net.release();
        }
        for layer in &self.layers {
            layer.disconnected(self);
        }
    }

    /// Closes a session: the layers let go of it first.
    async fn close_live(&self, live: &Live) {
        for layer in &self.layers {
            layer.closing(live);
        }
        self.session_ended(live, None);
        live.close_service().await;
    }

    /// Forces a fresh session. A handshake-era session is replaced now, as `@mastra/mcp` does (a
    /// failure throws). A 2026-07-28 session is stateless: over Streamable HTTP there is nothing to
    /// reopen, so its pooled connections are released and its `subscriptions/listen` (if one is
    /// wanted) reopened; over stdio the server is started again at the next request. Either way
    /// the era is kept (no second `server/discover` probe), nothing else is sent until the next
    /// request, and a reconnect during an outage does not fail.
    pub async fn reconnect(&self) -> Result<()> {
        if let Some(live) = self.current().await.filter(|live| live.is_modern() && live.http_session.is_some()) {
            if let Some(remote) = &self.remote {
                remote.net.release();
            }
            for layer in &self.layers {
                layer.renewed(self, &live).await;
            }
            return Ok(());
        }
        if let Err(e) = self.forget_kept().await {
            self.shared.diagnostic("warn", format!("The kept session could not be removed from the store: {}", e.message));
        }
        self.disconnect_for(true).await;
        if starts_stateless(&self.shared) {
            return Ok(());
        }
        self.ensure_connected().await.map(|_| ())
    }

    /// Sends a request once, returning the result's JSON text. If it provably never reached the
    /// server (the session was already gone), it is sent once more on a new session, within what
    /// is left of its timeout (`send_unsent_again`); a request that may have been delivered is
    /// never resent.
    pub async fn request_raw(&self, method: &str, params: Value, options: RequestOptions) -> Result<String> {
        let timeout = std::time::Duration::from_millis(options.timeout_ms.unwrap_or_else(|| self.request_timeout_ms()));
        let deadline = tokio::time::Instant::now() + timeout;
        let live = self.ensure_connected().await?;
        let sent = self.send_on(&live, method, params.clone(), &options).await;
        if self.carry().is_some() {
            // rmcp may have opened a new session under the request (after a 404).
            self.sync_kept(&live).await;
        }
        match sent {
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
            // Boxed: the rare retry does not size every request's future.
            Err(RequestFailure::NotSent(e)) => Box::pin(self.send_unsent_again(live, deadline, method, params, &options, e)).await,
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

    /// State shared with this server's handlers (events, task status wake-ups).
    pub(crate) fn shared(&self) -> &Arc<HandlerShared> {
        &self.shared
    }

    /// Instructions of the last initialized session, without waiting (`None` after `disconnect()`).
    pub fn instructions_now(&self) -> Option<String> {
        self.shared.instructions.lock().ok().and_then(|i| i.clone())
    }

    /// The protocol revision of the session, now (`None` when not connected).
    pub fn protocol_version_now(&self) -> Option<String> {
        let version = match &*self.state.try_lock().ok()? {
            State::Ready(live) if !live.is_closed() => live.protocol_version.clone(),
            State::Parked(parked) => parked.protocol_version().to_string(),
            _ => return None,
        };
        Some(version).filter(|v| !v.is_empty())
    }

    /// The Streamable HTTP session id of the session, now, live or parked (`None` when there is
    /// none or the state is busy).
    pub fn session_id_now(&self) -> Option<String> {
        match &*self.state.try_lock().ok()? {
            State::Ready(live) if !live.is_closed() => live.session_id(),
            State::Parked(parked) => parked.session_id(),
            _ => None,
        }
    }
}

/// Opens a session and wraps it as `Live`.
pub(super) async fn open_live(
    config: ServerConfig,
    shared: Arc<HandlerShared>,
    request_timeout_ms: u64,
    remote: Option<Remote>,
) -> Result<Arc<Live>> {
    let http_url = match &config.spec {
        Ok(crate::core::config::ServerSpec::Http(spec)) => Some(spec.url.clone()),
        _ => None,
    };
    let announce_over = remote.as_ref().filter(|r| r.oauth.is_none()).map(|r| r.net.clone());
    let opened = open_session(config, shared.clone(), request_timeout_ms, remote).await?;
    let live = live_of(opened, &shared, http_url, announce_over);
    shared.diagnostic("debug", format!("Connected (protocol {})", live.protocol_version));
    Ok(Arc::new(live))
}

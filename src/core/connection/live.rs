//! A live session: rmcp's peer and service, the pipe lane (stdio), what the server said about
//! itself, and a slot for each layer's per-session state.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{RoleClient, RunningService};
use rmcp::Peer;
use serde_json::{json, Value};

use super::announce::CancelAnnouncer;
use super::layer::Slots;
use crate::core::handler::{declare_tasks_extension, declares_tasks_extension, Handler, HandlerShared, MODERN_PROTOCOL_VERSION};
use crate::core::open::{Opened, Service};
use crate::core::transport::envelope::Envelope;
use crate::core::transport::lane::Lane;
use crate::core::transport::listener::Listener;
use crate::core::transport::resume::Resume;

/// Bound on the graceful close of one session (stdin EOF, SIGTERM, SIGKILL take up to ~6 s).
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// A live MCP session.
pub struct Live {
    pub(super) peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    pub instructions: Option<String>,
    pub server_version: Option<String>,
    pub protocol_version: String,
    pub(super) http_session: Option<Arc<Mutex<Option<String>>>>,
    /// The request lane of a pipe (stdio) session: requests bypass rmcp's service loop.
    pub(super) lane: Option<Arc<Lane>>,
    /// A 2026-07-28 session (no handshake): notifications come through `subscriptions/listen`.
    modern: bool,
    /// Whether a change of the server's tool list can reach us (it announces `tools.listChanged`
    /// and the session has a channel for it), so that a listed catalog may be reused until then.
    hears_tool_changes: bool,
    /// A Streamable HTTP handshake session's GET stream, which carries that channel only while open.
    listener: Option<Listener>,
    /// Per-session state of the layers above the connection (a `subscriptions/listen` stream).
    pub slots: Slots,
    /// A 2026-07-28 Streamable HTTP session's way to tell the server a request is cancelled.
    cancel_announcer: Option<Arc<CancelAnnouncer>>,
    /// Whether the session answered a request (a session that dies before is a crash).
    answered: std::sync::atomic::AtomicBool,
    /// When the session opened, and whether its end was told (`end`).
    opened_at: std::time::Instant,
    ended: std::sync::atomic::AtomicBool,
    /// A legacy SSE session: its requests say whether their POST went out (`transport::posted`).
    pub(super) sse: bool,
    /// A request found the session unusable before it could be sent: the next connect replaces it.
    retired: std::sync::atomic::AtomicBool,
    /// How the session pauses and resumes, when it may park (see `park`).
    pub(super) resume: Option<Resume>,
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

    /// Whether the server announces `tools.listChanged` and the session has a channel on which
    /// that notification can arrive now (a Streamable HTTP session: while its GET stream is open).
    pub fn hears_tool_changes(&self) -> bool {
        self.hears_tool_changes && self.listener.as_ref().is_none_or(Listener::is_open)
    }

    /// How many times the channel for unasked server messages (re)opened: anything learned
    /// before the latest opening may have missed a notification. 0 where it is always open.
    pub fn channel_openings(&self) -> u64 {
        self.listener.as_ref().map_or(0, Listener::openings)
    }

    /// Whether the session answered a request.
    pub fn answered(&self) -> bool {
        self.answered.load(std::sync::atomic::Ordering::Relaxed) || self.lane.as_ref().is_some_and(|l| l.answered())
    }

    /// How long the session lived, in seconds, the first time it is asked; `None` after.
    pub(super) fn end(&self) -> Option<f64> {
        (!self.ended.swap(true, std::sync::atomic::Ordering::AcqRel)).then(|| self.opened_at.elapsed().as_secs_f64())
    }

    /// The session answered a request.
    pub(super) fn note_answer(&self) {
        self.answered.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// How to tell the server a request is cancelled where rmcp only closes its stream (a
    /// 2026-07-28 Streamable HTTP session without OAuth); `None` where rmcp's own cancel reaches it.
    pub fn cancel_announcer(&self) -> Option<Arc<CancelAnnouncer>> {
        self.cancel_announcer.clone()
    }

    /// Asks for the channel of unasked server messages now, without waiting for it.
    pub fn want_channel(&self) {
        if let (Some(listener), false) = (&self.listener, self.modern) {
            listener.want();
        }
    }

    /// Asks for the channel of unasked server messages now (a Streamable HTTP handshake
    /// session's GET stream) and waits, at most `bound`, until it is open; whether it is (always
    /// for stdio and SSE; 2026-07-28 sessions use `subscriptions/listen` instead).
    pub async fn open_channel(&self, bound: Duration) -> bool {
        match (&self.listener, self.modern) {
            (Some(listener), false) if self.session_id().is_some() => {
                listener.want();
                listener.until_open(bound).await
            }
            _ => true,
        }
    }

    /// The session's rmcp peer.
    pub fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }

    /// The server's capabilities as JSON (`Null` when unknown).
    pub fn server_capabilities(&self) -> Value {
        self.peer.peer_info().and_then(|info| serde_json::to_value(&info.capabilities).ok()).unwrap_or(Value::Null)
    }

    pub(super) fn is_closed(&self) -> bool {
        self.retired.load(std::sync::atomic::Ordering::SeqCst) || self.transport_gone()
    }

    /// Whether the transport itself has ended (the server went away), retired or not.
    pub(super) fn transport_gone(&self) -> bool {
        self.peer.is_transport_closed() || self.lane.as_ref().is_some_and(|l| l.is_closed())
    }

    /// A request could not be sent on this session: the next `ensure_connected` opens another.
    /// Whether this call retired it (false when it already was).
    pub(super) fn retire(&self) -> bool {
        !self.retired.swap(true, std::sync::atomic::Ordering::SeqCst)
    }

    /// What a parked session keeps (see `park`); `None` for a session that cannot park.
    pub(super) fn parkable(&self) -> Option<Parkable<'_>> {
        Some(Parkable { resume: self.resume.as_ref()?, listener: self.listener.as_ref()?, session: self.http_session.as_ref()? })
    }

    /// When the session opened and whether it answered a request (a resumed session is the same
    /// session: both carry over).
    pub(super) fn history(&self) -> (std::time::Instant, bool) {
        (self.opened_at, self.answered())
    }

    /// A resumed session takes over `history` from its parked self.
    pub(super) fn with_history(mut self, (opened_at, answered): (std::time::Instant, bool)) -> Self {
        self.opened_at = opened_at;
        self.answered = answered.into();
        self
    }

    /// Closes rmcp's service (bounded). The layers' `closing` hooks run first (see `Connection::close_live`).
    pub(super) async fn close_service(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(CLOSE_TIMEOUT).await;
        }
    }
}

/// The parts of a session that may park (see `park`).
pub(super) struct Parkable<'a> {
    pub resume: &'a Resume,
    pub listener: &'a Listener,
    pub session: &'a Arc<Mutex<Option<String>>>,
}

/// Whether the server advertises a capability (true when unknown).
pub fn server_has(live: &Live, capability: &str) -> bool {
    live.peer
        .peer_info()
        .map(|info| serde_json::to_value(&info.capabilities).ok().and_then(|c| c.get(capability).cloned()).is_some_and(|c| !c.is_null()))
        .unwrap_or(true)
}

/// The per-request `_meta` of a 2026-07-28 session: the negotiated version and the client info
/// and capabilities the session was opened with (what rmcp's peer sends) — declaring the Tasks
/// extension when the server has it, so a lane call may come back as a task — plus the server
/// log level when the user wants server logs.
fn session_envelope(service: &Service, shared: &HandlerShared, info: Option<&rmcp::model::ServerPeerInfo>) -> Envelope {
    let client = rmcp::handler::client::ClientHandler::get_info(service.service());
    let version = info.map(|i| i.protocol_version.to_string()).unwrap_or_else(|| MODERN_PROTOCOL_VERSION.to_string());
    let mut capabilities = serde_json::to_value(&client.capabilities).unwrap_or_else(|_| json!({}));
    if info.and_then(|i| serde_json::to_value(&i.capabilities).ok()).is_some_and(|c| declares_tasks_extension(&c)) {
        declare_tasks_extension(&mut capabilities);
    }
    Envelope::new(&version, &client.client_info, &capabilities, shared.server_log_level()).unwrap_or_else(|e| {
        tracing::warn!(server = %shared.server, "client info not serialisable for the request envelope: {e}");
        Envelope::new(
            &version,
            &serde_json::json!({ "name": shared.server, "version": shared.client_version }),
            &serde_json::json!({}),
            shared.server_log_level(),
        )
        .expect("static envelope serialises")
    })
}

/// A started session as `Live` (`http_url` and `announce_over`: where and how a 2026-07-28
/// Streamable HTTP session tells the server a request is cancelled).
pub(super) fn live_of(
    opened: Opened,
    shared: &Arc<HandlerShared>,
    http_url: Option<url::Url>,
    announce_over: Option<crate::core::net::NetClient>,
) -> Live {
    let peer = opened.service.peer().clone();
    let info = peer.peer_info();
    let modern = opened.modern;
    let announces_tool_changes = info.as_ref().and_then(|i| i.capabilities.tools.as_ref()).and_then(|t| t.list_changed) == Some(true);
    // Streamable HTTP carries notifications only within a session (the handshake's
    // Mcp-Session-Id) or, in 2026-07-28, on `subscriptions/listen`; stdio and SSE always can.
    let has_channel = match &opened.http_session {
        Some(cell) => modern || cell.lock().is_ok_and(|id| id.is_some()),
        None => true,
    };
    let cancel_announcer = match (modern, opened.http_session.is_some(), announce_over, http_url) {
        (true, true, Some(net), Some(url)) => Some(Arc::new(CancelAnnouncer {
            net,
            url,
            protocol_version: MODERN_PROTOCOL_VERSION.to_string(),
            envelope: session_envelope(&opened.service, shared, info.as_deref()).members().to_string(),
        })),
        _ => None,
    };
    Live {
        cancel_announcer,
        answered: Default::default(),
        opened_at: std::time::Instant::now(),
        ended: Default::default(),
        sse: opened.sse,
        retired: Default::default(),
        hears_tool_changes: announces_tool_changes && has_channel,
        instructions: info.as_ref().and_then(|i| i.instructions.clone()),
        server_version: info.as_ref().and_then(|i| i.server_info.as_ref().map(|s| s.version.clone())),
        protocol_version: info.as_ref().map(|i| i.protocol_version.to_string()).unwrap_or_default(),
        http_session: opened.http_session,
        listener: opened.listener,
        // A 2026-07-28 request carries the client's context in `_meta`, as rmcp's peer adds it
        // to its own requests: the lane writes the same, from the info this session opened with.
        lane: opened.lane.filter(|lane| !modern || lane.set_envelope(session_envelope(&opened.service, shared, info.as_deref()))),
        modern,
        slots: Slots::default(),
        peer,
        // A 2026-07-28 session holds nothing a handshake would give back: it does not park.
        resume: opened.resume.filter(|_| !modern),
        service: tokio::sync::Mutex::new(Some(opened.service)),
    }
}

//! Parking an idle session. A Streamable HTTP session of the handshake era without OAuth,
//! whose server has no stream to give (its GET was refused: 405; or the session has no id, as
//! with stateless servers), that nothing wants a stream of, and that has had no request for [`PARK_AFTER`], needs none of rmcp's machinery (its
//! service, its worker and their channels: most of what an idle client holds). It is parked:
//! that machinery ends without ending the session on the server (no DELETE), and the connection
//! keeps only the session's id, its GET-stream gate and the server's `initialize` answer.
//!
//! The next request resumes it under a new rmcp service whose handshake is answered from that
//! answer (`transport::resume`): the server sees the request and nothing else, under the same
//! `Mcp-Session-Id`. A session that expired meanwhile is opened again by rmcp, as after any 404;
//! `disconnect()` ends a parked session on the server as it ends a live one.
//!
//! A session parks only when nothing but the connection holds it: a request being sent, a task
//! being followed, a list being read each hold the session, and it waits for them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::{BoxFuture, FutureExt};
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_client::StreamableHttpClient;
use serde_json::json;

use super::live::{live_of, Parkable};
use super::{Connection, Live, State};
use crate::core::config::ServerSpec;
use crate::core::error::{McpError, Result};
use crate::core::open::{mcp_http, open_session, resume_streamable, SessionParts};
use crate::core::transport::listener::Listener;
use crate::core::transport::resume::Resume;

/// How long a session must be idle before it parks.
pub(super) const PARK_AFTER: Duration = Duration::from_secs(1);
/// Bound on ending a parked session on the server (`disconnect()`).
const END_BOUND: Duration = Duration::from_secs(5);

/// What a parked session keeps.
pub(super) struct Parked {
    session: Arc<Mutex<Option<String>>>,
    listener: Listener,
    /// The server's `initialize` answer, as rmcp's handshake reads it.
    answer: ServerJsonRpcMessage,
    protocol_version: String,
    history: (Instant, bool),
}

impl Parked {
    /// The parked session's `Mcp-Session-Id`.
    pub(super) fn session_id(&self) -> Option<String> {
        self.session.lock().ok().and_then(|id| id.clone())
    }

    pub(super) fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// A session of another process (kept in the store, see `carry`): its id, the server's
    /// `initialize` answer and whether the server refused a GET stream.
    pub(super) fn new(session_id: String, answer: ServerJsonRpcMessage, protocol_version: String, refused: bool) -> Parked {
        let listener = Listener::default();
        if refused {
            listener.stream_refused();
        }
        Parked { session: Arc::new(Mutex::new(Some(session_id))), listener, answer, protocol_version, history: (Instant::now(), true) }
    }
}

/// What `park` did.
enum Parking {
    Parked,
    /// Something holds the session, or a request came: watch on.
    Busy,
    /// The session is no longer the connection's.
    Gone,
}

impl Connection {
    /// Watches a session that just became live and parks it once it is idle (see the module).
    pub(super) fn park_when_idle(&self, live: &Arc<Live>) {
        let Some(parkable) = live.parkable() else { return };
        let listener = parkable.listener.clone();
        if parkable.session.lock().is_ok_and(|id| id.is_none()) {
            // A session without an id (a stateless server) has no GET stream to ask for.
            listener.stream_refused();
        }
        let state = Arc::downgrade(&self.state);
        let session = Arc::downgrade(live);
        // Weak: the watcher keeps nothing of the client alive (it ends within `PARK_AFTER` of the session).
        let shared = Arc::downgrade(&self.shared);
        tokio::spawn(async move {
            loop {
                let alive = || session.upgrade().is_some_and(|live| !live.is_closed());
                if !listener.until_idle(PARK_AFTER, alive).await {
                    return;
                }
                let (Some(state), Some(live)) = (state.upgrade(), session.upgrade()) else { return };
                match park(&state, live, &listener).await {
                    Parking::Parked => {
                        if let Some(shared) = shared.upgrade() {
                            shared.diagnostic("debug", "Session idle: parked until the next request");
                        }
                        return;
                    }
                    Parking::Busy => {}
                    Parking::Gone => return,
                }
            }
        });
    }

    /// A parked session back under a new rmcp service; should that fail, a new session.
    pub(super) fn resume_live(&self, parked: Box<Parked>) -> BoxFuture<'static, Result<Arc<Live>>> {
        (self.resumer())(parked)
    }

    /// `resume_live` as a function that holds nothing of the connection.
    pub(super) fn resumer(&self) -> impl FnOnce(Box<Parked>) -> BoxFuture<'static, Result<Arc<Live>>> + Send + 'static {
        let (config, shared, remote, timeout_ms) = (self.config.clone(), self.shared.clone(), self.remote.clone(), self.request_timeout_ms());
        move |parked: Box<Parked>| {
            async move {
                let name = config.name.clone();
                let (Ok(ServerSpec::Http(spec)), Some(remote)) = (&config.spec, remote) else {
                    return Err(McpError::invalid_config(&name, "internal: a parked session of a server without HTTP"));
                };
                let resume = Resume::with_answer(parked.answer);
                let parts = SessionParts { session: &parked.session, listener: &parked.listener, resume: &resume };
                match resume_streamable(&name, spec, shared.clone(), &remote.net, parts, timeout_ms).await {
                    Ok(opened) => {
                        shared.diagnostic("debug", "Parked session resumed");
                        Ok(Arc::new(live_of(opened, &shared, None, None).with_history(parked.history)))
                    }
                    Err(e) => {
                        shared.diagnostic("debug", format!("The parked session could not resume ({}); opening a new one", e.message));
                        let opened = open_session(config.clone(), shared.clone(), timeout_ms, Some(remote)).await?;
                        Ok(Arc::new(live_of(opened, &shared, None, None)))
                    }
                }
            }
            .boxed()
        }
    }

    /// Ends a parked session on the server, as closing a live one does (bounded).
    pub(super) async fn end_parked(&self, parked: Box<Parked>) {
        self.told_ended(parked.history.0.elapsed().as_secs_f64(), &parked.protocol_version, None);
        let (Ok(ServerSpec::Http(spec)), Some(remote), Some(id)) = (&self.config.spec, &self.remote, parked.session_id()) else { return };
        let resume = Resume::default();
        let parts = SessionParts { session: &parked.session, listener: &parked.listener, resume: &resume };
        let http = mcp_http(spec, &self.shared, &remote.net, &parts);
        let ended = tokio::time::timeout(END_BOUND, http.delete_session(spec.url.as_str().into(), id.into(), None, HashMap::new())).await;
        if !matches!(ended, Ok(Ok(()))) {
            self.shared.diagnostic("debug", "The parked session could not be ended on the server");
        }
    }
}

/// Parks `live` if it is still the connection's, nothing else holds it and it is still idle.
async fn park(state: &tokio::sync::Mutex<State>, live: Arc<Live>, listener: &Listener) -> Parking {
    {
        let mut current = state.lock().await;
        match &*current {
            State::Ready(l) if Arc::ptr_eq(l, &live) => {}
            _ => return Parking::Gone,
        }
        // The state's hold and ours: no request can take it while the state is held.
        if Arc::strong_count(&live) > 2 || !listener.is_idle() {
            return Parking::Busy;
        }
        let Some(parked) = parked_of(&live) else { return Parking::Gone };
        *current = State::Parked(Box::new(parked));
    }
    if let Some(parkable) = live.parkable() {
        parkable.resume.pause();
    }
    live.close_service().await;
    drop(live);
    crate::core::memory::released();
    Parking::Parked
}

/// What `live` keeps parked: `None` when it cannot park or the server's answer is not known.
fn parked_of(live: &Live) -> Option<Parked> {
    let Parkable { listener, session, .. } = live.parkable()?;
    let info = live.peer().peer_info()?;
    let answer = serde_json::from_value(json!({ "jsonrpc": "2.0", "id": 0, "result": &*info })).ok()?;
    Some(Parked {
        session: session.clone(),
        listener: listener.clone(),
        answer,
        protocol_version: live.protocol_version.clone(),
        history: live.history(),
    })
}

//! Opening a session: start the transport, run `initialize`, bounded by the right timeout.
//! For `url` servers: Streamable HTTP first, then the legacy SSE transport when the failure
//! says the server may speak it (HTTP 400/404/405 or no HTTP answer at all); a path ending in
//! `/sse` goes straight to SSE. Policy errors and other statuses never fall back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::ServiceExt;
use tokio::io::AsyncReadExt;

mod failure;

use super::auth::bearer::BearerClient;
use super::auth::{AuthState, BeginError, OAuthSession};
use super::config::{HttpSpec, ServerConfig, ServerSpec};
use super::era::{
    self,
    handshake_first::HandshakeFirst,
    known::{Endpoint, Remembered, ReuseDiscover},
    probe_window::ProbeWindow,
    Start,
};
use super::error::{ErrorKind, McpError, Result};
use super::handler::{Handler, HandlerShared, MODERN_PROTOCOL_VERSION};
use super::net::{NetClient, NetError};
use super::observe;
use super::transport::lane::Lane;
use super::transport::listener::Listener;
use super::transport::observed::Observed;
use super::transport::pipe::PipeTransport;
use super::transport::resume::Resume;
use super::transport::streamable::McpHttp;
use super::transport::{sse, stdio, streamable};
use rmcp::{ClientLifecycleMode, ClientServiceExt};

use failure::{both_failed, classify, hung_up, net_failure, refuses_handshake, timed_out, Failure};
pub use failure::{error_and_causes, net_error};

pub type Service = RunningService<RoleClient, Handler>;

/// The HTTP side of a `url` server, built once per server: its policy-checked client and, when
/// it has an OAuth provider, its OAuth session (which outlives reconnects).
#[derive(Clone)]
pub struct Remote {
    pub net: NetClient,
    pub oauth: Option<Arc<OAuthSession>>,
}

/// A started session plus what the transport knows about it.
pub struct Opened {
    pub service: Service,
    /// The Streamable HTTP session id cell (for `sessionIds`); `None` for stdio and SSE.
    pub http_session: Option<Arc<Mutex<Option<String>>>>,
    /// The request lane of a pipe (stdio) session.
    pub lane: Option<Arc<Lane>>,
    /// A 2026-07-28 session (no handshake).
    pub modern: bool,
    /// When a Streamable HTTP session's GET stream goes out; `None` for stdio and SSE.
    pub listener: Option<Listener>,
    /// A legacy SSE session: its requests carry a `Posted` cell (see `transport::posted`).
    pub sse: bool,
    /// How a Streamable HTTP session without OAuth pauses and resumes (`transport::resume`);
    /// `None` for a session that cannot park.
    pub resume: Option<Resume>,
}

/// Whether the next session of this server starts stateless (2026-07-28 pinned or learned, no
/// handshake): there is nothing to open before the next request needs it.
pub fn starts_stateless(shared: &HandlerShared) -> bool {
    era::start(shared) == Start::Discover
}

/// Opens a session of the server (see `open_any`) and remembers its era: the next connect to
/// this server starts the way this one ended.
pub async fn open_session(config: ServerConfig, shared: Arc<HandlerShared>, request_timeout_ms: u64, remote: Option<Remote>) -> Result<Opened> {
    let mut opened = open_any(config, shared.clone(), request_timeout_ms, remote).await?;
    let version = opened.service.peer().peer_info().map(|i| i.protocol_version.to_string());
    opened.modern = version.as_deref() == Some(MODERN_PROTOCOL_VERSION);
    era::remember(&shared, opened.modern);
    Ok(opened)
}

/// Starts the transport and the session: stdio, or Streamable HTTP with the SSE fallback.
async fn open_any(config: ServerConfig, shared: Arc<HandlerShared>, request_timeout_ms: u64, remote: Option<Remote>) -> Result<Opened> {
    let name = config.name.clone();
    let spec = config.spec()?.clone();
    shared.diagnostic("debug", "Connecting to MCP server");
    let handler = Handler { shared: shared.clone() };
    match spec {
        ServerSpec::Stdio(spec) => {
            let budget = Budget::new(request_timeout_ms);
            let before = era::start(&shared);
            match open_stdio(&name, &spec, handler.clone(), shared.clone(), request_timeout_ms, &budget).await {
                Err(first) if era::learned(&before, &shared) => {
                    shared.diagnostic("debug", format!("Automatic protocol start failed ({}); starting the server again", first.message));
                    observe::note_event("mcp.client.era_fallback", || observe::reason(first.message.clone()));
                    let retried = open_stdio(&name, &spec, handler, shared.clone(), request_timeout_ms, &budget).await;
                    if retried.is_err() {
                        era::forget(&shared);
                    }
                    retried
                }
                other => other,
            }
        }
        ServerSpec::Http(spec) => {
            let remote = remote.ok_or_else(|| McpError::invalid_config(&name, "internal: no HTTP client for a url server"))?;
            let oauth = remote.oauth.clone();
            let mut result = open_http(&name, &spec, handler.clone(), request_timeout_ms, remote.clone()).await;
            // A provider without a browser step (client credentials) gets tokens now; the
            // connect is tried once more with them.
            if let (Err(Failure { auth: Some(challenge), .. }), Some(session)) = (&result, &oauth) {
                match session.authorize_without_browser(challenge.as_deref()).await {
                    Ok(true) => {
                        observe::note_event("mcp.client.oauth.token", || observe::reason("tokens obtained without a browser; connecting again"));
                        result = open_http(&name, &spec, handler, request_timeout_ms, remote).await;
                    }
                    Ok(false) => {}
                    Err(BeginError::Policy { id, message }) => return Err(McpError::new(ErrorKind::Policy(id), &name, message).in_connect()),
                    Err(BeginError::Failed(e)) => return Err(McpError::new(ErrorKind::AuthFailed, &name, e).in_connect()),
                }
            }
            match (result, oauth) {
                (Ok(opened), Some(session)) => {
                    session.set_state(AuthState::Authorized);
                    Ok(opened)
                }
                (Ok(opened), None) => Ok(opened),
                (Err(failure), Some(session)) if failure.auth.is_some() => Err(begin_authorization(&name, &session, failure).await),
                (Err(failure), _) => Err(failure.error),
            }
        }
    }
}

/// Spawns a stdio server and starts its session.
async fn open_stdio(
    name: &str,
    spec: &super::config::StdioSpec,
    handler: Handler,
    shared: Arc<HandlerShared>,
    request_timeout_ms: u64,
    budget: &Budget,
) -> Result<Opened> {
    let start = era::start(&shared);
    let mut spawned = stdio::spawn(name, spec)?;
    if let Some(stderr) = spawned.stderr.take() {
        forward_stderr(shared.clone(), stderr);
    }
    let transport = PipeTransport::over_spawned(spawned, shared.clone());
    let lane = transport.lane();
    let lifecycle = start.lifecycle();
    let service = match start {
        Start::HandshakeFirst => {
            let initialize = rmcp::handler::client::ClientHandler::get_info(&handler);
            handshake(name, handler, HandshakeFirst::new(transport, initialize), &start, lifecycle, request_timeout_ms, budget).await
        }
        Start::Probe => {
            let writer = transport.writer();
            let window = ProbeWindow::new(transport, Box::new(move || writer.unread()));
            handshake(name, handler, window, &start, lifecycle, request_timeout_ms, budget).await
        }
        Start::Handshake | Start::Discover => {
            let transport = ReuseDiscover::new(transport, Remembered::new(shared.clone(), None));
            handshake(name, handler, transport, &start, lifecycle, request_timeout_ms, budget).await
        }
    };
    let service = service.map_err(|f| f.error)?;
    Ok(Opened { service, http_session: None, lane: Some(lane), modern: false, listener: None, sse: false, resume: None })
}

/// Starts the OAuth flow after a 401: the provider's `redirectToAuthorization` fires, the
/// server is marked `needs-auth`, and the connect fails with an `UnauthorizedError`.
async fn begin_authorization(name: &str, session: &OAuthSession, failure: Failure) -> McpError {
    let challenge = failure.auth.flatten();
    let mut error = match session.begin(challenge.as_deref()).await {
        Ok(_) => McpError::new(ErrorKind::AuthRequired, name, "UnauthorizedError: Unauthorized"),
        Err(BeginError::Policy { id, message }) => return McpError::new(ErrorKind::Policy(id), name, message).in_connect(),
        Err(BeginError::Failed(e)) => McpError::new(ErrorKind::AuthFailed, name, format!("UnauthorizedError: authorization could not start: {e}")),
    };
    error.http_status = Some(401);
    error.during_connect = true;
    error
}

async fn open_http(name: &str, spec: &HttpSpec, handler: Handler, request_timeout_ms: u64, remote: Remote) -> std::result::Result<Opened, Failure> {
    let net = remote.net;
    // Checked before any transport exists, like the anchor's up-front check.
    net.policy().check(&spec.url, super::net::policy::BlockedBecause::NotSent).map_err(|e| Failure {
        error: net_error(name, &e),
        falls_back: false,
        auth: None,
    })?;
    if spec.url.path().ends_with("/sse") {
        // Only SSE is tried: the request timeout bounds it, as in `@mastra/mcp`.
        return open_sse(name, spec, handler, &Budget::new(request_timeout_ms), net, remote.oauth.as_deref()).await;
    }
    // One budget for the whole connect, the Streamable HTTP attempt and the SSE fallback alike.
    let budget = Budget::new(request_timeout_ms.max(spec.connect_timeout_ms));
    let session = Arc::new(Mutex::new(None));
    let listener = Listener::default();
    let resume = Resume::default();
    let before = era::start(&handler.shared);
    let parts = SessionParts { session: &session, listener: &listener, resume: &resume };
    let mut attempt = open_streamable(name, spec, &handler, &remote.oauth, &net, &parts, &budget).await?;
    if let Err(first) = &attempt {
        // A server of the handshake era may refuse `server/discover` before `initialize` at the
        // HTTP layer (400 "no session yet", 404 "unknown session", 405, even a 500): it is
        // remembered as such, and the handshake follows (then, if that fails too, the SSE
        // fallback). An authorization challenge (401, 403) is not about the era. A refused
        // handshake was learned from in `handshake`: 2026-07-28 follows on the same endpoint.
        if before == Start::Probe && era::probe_refused(first.error.http_status) {
            era::remember(&handler.shared, false);
        }
        if era::learned(&before, &handler.shared) {
            handler.shared.diagnostic("debug", format!("Protocol start failed ({}); starting again", first.error.message));
            observe::note_event("mcp.client.era_fallback", || observe::reason(first.error.message.clone()));
            attempt = open_streamable(name, spec, &handler, &remote.oauth, &net, &parts, &budget).await?;
            if attempt.is_err() {
                era::forget(&handler.shared);
            }
        }
    }
    let pinned_modern = handler.shared.pinned_version.as_deref() == Some(MODERN_PROTOCOL_VERSION);
    match attempt {
        Ok(service) => {
            let resume = remote.oauth.is_none().then_some(resume);
            Ok(Opened { service, http_session: Some(session), lane: None, modern: false, listener: Some(listener), sse: false, resume })
        }
        // A pinned 2026-07-28 fails as it is: the legacy SSE transport cannot speak it.
        Err(first) if first.falls_back && !pinned_modern => {
            handler.shared.diagnostic("debug", format!("Streamable HTTP failed ({}); trying the legacy SSE transport", first.error.message));
            observe::note_event("mcp.client.transport_fallback", || observe::reason(first.error.message.clone()));
            if budget.remaining_ms() == 0 {
                let sse = McpError::new(ErrorKind::Timeout, name, format!("not tried: the connect budget of {} ms was used up", budget.total_ms));
                return Err(Failure { auth: None, error: both_failed(name, first.error, sse), falls_back: false });
            }
            match open_sse(name, spec, handler, &budget, net, remote.oauth.as_deref()).await {
                Ok(opened) => Ok(opened),
                Err(second) => Err(Failure { auth: second.auth.clone(), error: both_failed(name, first.error, second.error), falls_back: false }),
            }
        }
        Err(first) => Err(first),
    }
}

/// What a Streamable HTTP session keeps across its connect attempts (and, parked, across its
/// rmcp services): its id, its GET-stream gate, its way to pause and resume.
pub struct SessionParts<'a> {
    pub session: &'a Arc<Mutex<Option<String>>>,
    pub listener: &'a Listener,
    pub resume: &'a Resume,
}

/// Our HTTP client of one Streamable HTTP session.
pub fn mcp_http(spec: &HttpSpec, shared: &Arc<HandlerShared>, net: &NetClient, parts: &SessionParts) -> McpHttp {
    let endpoint = Endpoint::new(&spec.url, &spec.headers, spec.oauth || spec.custom_fetch);
    McpHttp {
        net: net.clone(),
        session: parts.session.clone(),
        scope_refusal: super::auth::challenge::scope_refusal,
        challenge_headers: super::auth::challenge::CHALLENGE_HEADERS,
        listener: parts.listener.clone(),
        discover: Some(Arc::new(Remembered::new(shared.clone(), endpoint))),
        reach: Default::default(),
        resume: parts.resume.clone(),
    }
}

/// Resumes a parked Streamable HTTP session (see `connection::park`) under a new rmcp service:
/// `parts.resume` answers its handshake, so nothing reaches the server.
pub async fn resume_streamable(
    name: &str,
    spec: &HttpSpec,
    shared: Arc<HandlerShared>,
    net: &NetClient,
    parts: SessionParts<'_>,
    timeout_ms: u64,
) -> Result<Opened> {
    let handler = Handler { shared: shared.clone() };
    let transport = streamable::transport(&spec.url, mcp_http(spec, &shared, net, &parts));
    let service = match tokio::time::timeout(
        Duration::from_millis(timeout_ms),
        handler.serve_with_lifecycle(Observed::new(transport, shared), ClientLifecycleMode::Initialize),
    )
    .await
    {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => return Err(classify(name, &e).error),
        Err(_) => return Err(timed_out(name, timeout_ms, "resuming the session")),
    };
    Ok(Opened {
        service,
        http_session: Some(parts.session.clone()),
        lane: None,
        modern: false,
        listener: Some(parts.listener.clone()),
        sse: false,
        resume: Some(parts.resume.clone()),
    })
}

/// One Streamable HTTP connect. The outer error is final (OAuth could not even start).
async fn open_streamable(
    name: &str,
    spec: &HttpSpec,
    handler: &Handler,
    oauth: &Option<Arc<OAuthSession>>,
    net: &NetClient,
    parts: &SessionParts<'_>,
    budget: &Budget,
) -> std::result::Result<std::result::Result<Service, Failure>, Failure> {
    let shared = handler.shared.clone();
    let start = era::start(&shared);
    let http = mcp_http(spec, &shared, net, parts);
    // Over HTTP a refused `initialize` ends the transport: the handshake-first start is a plain
    // handshake, and `handshake` learns from a refusal so that `server/discover` follows.
    let lifecycle = if start == Start::HandshakeFirst { ClientLifecycleMode::Initialize } else { start.lifecycle() };
    Ok(match oauth {
        Some(oauth) => {
            let client = BearerClient::new(http, oauth.clone());
            let transport = streamable::transport(&spec.url, client);
            handshake(name, handler.clone(), Observed::new(transport, shared), &start, lifecycle, spec.connect_timeout_ms, budget).await
        }
        None => {
            let transport = streamable::transport(&spec.url, http);
            handshake(name, handler.clone(), Observed::new(transport, shared), &start, lifecycle, spec.connect_timeout_ms, budget).await
        }
    })
}

async fn open_sse(
    name: &str,
    spec: &HttpSpec,
    handler: Handler,
    budget: &Budget,
    net: NetClient,
    oauth: Option<&OAuthSession>,
) -> std::result::Result<Opened, Failure> {
    let shared = handler.shared.clone();
    // A legacy SSE session keeps connections of its own, closed with it: a server that holds one
    // SSE session at a time (1.18's MCPServer) must see the old stream's connection go before a
    // reconnect's new stream arrives.
    let net = net.with_own_pool();
    let work = async {
        let net = match oauth {
            Some(session) => match session.access_token().await {
                Some(token) => net.with_header("authorization", format!("Bearer {token}")),
                None => net,
            },
            None => net,
        };
        let transport = connect_sse_riding_restarts(&spec.url, net, &shared, budget).await.map_err(|e| net_failure(name, &e))?;
        shared.sse_reached.store(true, std::sync::atomic::Ordering::SeqCst);
        handler.serve(Observed::new(transport, shared)).await.map_err(|e| classify(name, &e))
    };
    match tokio::time::timeout_at(budget.deadline, work).await {
        Ok(Ok(service)) => Ok(Opened { service, http_session: None, lane: None, modern: false, listener: None, sse: true, resume: None }),
        Ok(Err(f)) => Err(f),
        Err(_) => Err(Failure { error: timed_out(name, budget.total_ms, "SSE connect"), falls_back: false, auth: None }),
    }
}

/// Opens a legacy SSE stream. A server this client reached before that is now unreachable (no
/// connection could be opened: it is restarting) is tried again with a backoff (50 ms doubling
/// to 500 ms) until it answers or the connect's budget is nearly spent (it then fails saying how
/// long the server was unreachable); a server never reached fails at once.
async fn connect_sse_riding_restarts(
    url: &url::Url,
    net: NetClient,
    shared: &HandlerShared,
    budget: &Budget,
) -> std::result::Result<sse::SseTransport, NetError> {
    use crate::core::transport::reachability::{FIRST_BACKOFF, MAX_BACKOFF};
    let since = tokio::time::Instant::now();
    // Given up a little before the budget ends (at most a tenth of it), so the caller hears why.
    let give_up = budget.deadline.checked_sub(Duration::from_millis(100.min(budget.total_ms / 10))).unwrap_or(budget.deadline);
    let mut backoff = FIRST_BACKOFF;
    loop {
        match sse::connect(url, net.clone()).await {
            Err(NetError::Unreachable(why)) if shared.sse_reached.load(std::sync::atomic::Ordering::SeqCst) => {
                if tokio::time::Instant::now() + backoff >= give_up {
                    let ms = since.elapsed().as_millis();
                    return Err(NetError::Unreachable(format!("the server was unreachable for {ms} ms ({why})")));
                }
                tracing::debug!(server = %shared.server, "SSE server unreachable ({why}); trying again in {backoff:?}");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            other => return other,
        }
    }
}

/// The time a whole connect may take: every attempt of it ends by one deadline.
pub struct Budget {
    pub total_ms: u64,
    pub deadline: tokio::time::Instant,
}

impl Budget {
    pub fn new(total_ms: u64) -> Self {
        Budget { total_ms, deadline: tokio::time::Instant::now() + Duration::from_millis(total_ms) }
    }

    pub fn remaining_ms(&self) -> u64 {
        self.deadline.saturating_duration_since(tokio::time::Instant::now()).as_millis() as u64
    }
}

/// Starts a session over `transport` (`lifecycle`: how, for the era start `start`) within
/// `timeout_ms`, and within the connect budget; learns the era from a negotiating start's failure.
async fn handshake<T, E, A>(
    name: &str,
    handler: Handler,
    transport: T,
    start: &Start,
    lifecycle: ClientLifecycleMode,
    timeout_ms: u64,
    budget: &Budget,
) -> std::result::Result<Service, Failure>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let own = tokio::time::Instant::now() + Duration::from_millis(timeout_ms);
    let (deadline, reported_ms) = if own < budget.deadline { (own, timeout_ms) } else { (budget.deadline, budget.total_ms.min(timeout_ms)) };
    let shared = handler.shared.clone();
    match tokio::time::timeout_at(deadline, handler.serve_with_lifecycle(transport, lifecycle)).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(e)) => {
            match start {
                Start::Probe => era::learn_from_probe(
                    &shared,
                    &e,
                    |e| matches!(e, ClientInitializeError::TransportError { error, .. } if hung_up(error.error.as_ref())),
                ),
                Start::HandshakeFirst if refuses_handshake(&e) => {
                    shared.diagnostic(
                        "debug",
                        "The server refused the initialize handshake as a 2026-07-28 server does; continuing with server/discover",
                    );
                    era::refused_handshake(&shared);
                }
                _ => {}
            }
            Err(classify(name, &e))
        }
        // No answer at all: as with a refused connection, another transport may still work.
        Err(_) => Err(Failure { error: timed_out(name, reported_ms, "initialize"), falls_back: true, auth: None }),
    }
}

/// Pumps a child's stderr into the event sink until EOF.
fn forward_stderr(shared: Arc<HandlerShared>, mut stderr: tokio::process::ChildStderr) {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        loop {
            match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    shared.note_stderr(&buf[..n]);
                    shared.sink.stderr(&shared.server, buf[..n].to_vec());
                }
            }
        }
    });
}

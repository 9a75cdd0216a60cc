//! Opening a session: start the transport, run `initialize`, bounded by the right timeout.
//! For `url` servers: Streamable HTTP first, then the legacy SSE transport when the failure
//! says the server may speak it (HTTP 400/404/405 or no HTTP answer at all); a path ending in
//! `/sse` goes straight to SSE. Policy errors and other statuses never fall back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{ClientInitializeError, RoleClient, RunningService};

mod failure;
mod sse;

use super::auth::bearer::BearerClient;
use super::auth::{AuthState, BeginError, OAuthSession};
use super::config::{HttpSpec, ServerConfig, ServerSpec};
use super::era::{
    self,
    handshake_first::HandshakeFirst,
    known::{Endpoint, Remembered, ReuseDiscover},
    probe_window::ProbeWindow,
    Era, Lesson, Outcome, Plan, Start,
};
use super::error::{ErrorKind, McpError, Result};
use super::handler::{Handler, HandlerShared, MODERN_PROTOCOL_VERSION};
use super::net::NetClient;
use super::observe;
use super::transport::lane::Lane;
use super::transport::listener::Listener;
use super::transport::observed::Observed;
use super::transport::pipe::PipeTransport;
use super::transport::resume::Resume;
use super::transport::streamable::McpHttp;
use super::transport::{stdio, streamable};
use rmcp::model::ServerJsonRpcMessage;
use rmcp::{ClientLifecycleMode, ClientServiceExt};

use failure::{both_failed, classify, hung_up, refuses_handshake, timed_out, Failure};
pub use failure::{error_and_causes, net_error};
use sse::open_sse;

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

/// Opens a session of the server: decide, then do, then learn once. The era layer makes the
/// connect's plan from what it knows (`era::plan`), `open_any` runs it and notes what refused
/// and what worked, and the era layer takes that outcome (`era::learn`): the next connect to
/// this server starts the way this one ended.
pub async fn open_session(config: ServerConfig, shared: Arc<HandlerShared>, request_timeout_ms: u64, remote: Option<Remote>) -> Result<Opened> {
    let endpoint = match &config.spec {
        Ok(ServerSpec::Http(spec)) => endpoint_of(spec),
        _ => None,
    };
    let plan = era::plan(&shared, endpoint.as_ref());
    let mut outcome = Outcome::default();
    let opened = open_any(config, shared.clone(), request_timeout_ms, remote, plan, &mut outcome).await;
    era::learn(&shared, outcome);
    opened
}

/// Runs a connect's plan: stdio, or Streamable HTTP with the SSE fallback; notes in `outcome`
/// what each start showed and the era the session opened in.
async fn open_any(
    config: ServerConfig,
    shared: Arc<HandlerShared>,
    request_timeout_ms: u64,
    remote: Option<Remote>,
    mut plan: Plan,
    outcome: &mut Outcome,
) -> Result<Opened> {
    let name = config.name.clone();
    let spec = config.spec()?.clone();
    shared.diagnostic("debug", "Connecting to MCP server");
    let handler = Handler { shared: shared.clone() };
    // The answer at hand serves the first start only: a later one asks what is known then.
    let answer = plan.discover.take();
    let mut opened = match spec {
        ServerSpec::Stdio(spec) => {
            let budget = Budget::new(request_timeout_ms);
            match open_stdio(&name, &spec, handler.clone(), (&plan.first, answer), request_timeout_ms, &budget, outcome).await {
                Err(first) => match plan.after(&outcome.shown_since(0)) {
                    Some(next) => {
                        shared.diagnostic("debug", format!("Automatic protocol start failed ({}); starting the server again", first.message));
                        observe::note_event("mcp.client.era_fallback", || observe::reason(first.message.clone()));
                        let retried = open_stdio(&name, &spec, handler, (next, None), request_timeout_ms, &budget, outcome).await;
                        if retried.is_err() {
                            outcome.note(Lesson::Forget);
                        }
                        retried
                    }
                    None => Err(first),
                },
                other => other,
            }
        }
        ServerSpec::Http(spec) => {
            let remote = remote.ok_or_else(|| McpError::invalid_config(&name, "internal: no HTTP client for a url server"))?;
            let oauth = remote.oauth.clone();
            let mut result = open_http(&name, &spec, handler.clone(), request_timeout_ms, remote.clone(), (&plan, answer), outcome).await;
            // A provider without a browser step (client credentials) gets tokens now; the
            // connect is tried once more with them.
            if let (Err(Failure { auth: Some(challenge), .. }), Some(session)) = (&result, &oauth) {
                match session.authorize_without_browser(challenge.as_deref()).await {
                    Ok(true) => {
                        observe::note_event("mcp.client.oauth.token", || observe::reason("tokens obtained without a browser; connecting again"));
                        result = open_http(&name, &spec, handler, request_timeout_ms, remote, (&plan, None), outcome).await;
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
    }?;
    let version = opened.service.peer().peer_info().map(|i| i.protocol_version.to_string());
    opened.modern = version.as_deref() == Some(MODERN_PROTOCOL_VERSION);
    outcome.note(Lesson::Opened { modern: opened.modern });
    Ok(opened)
}

/// Where a `url` server's discover answers may be shared (see `era::known::Endpoint`).
fn endpoint_of(spec: &HttpSpec) -> Option<Endpoint> {
    Endpoint::new(&spec.url, &spec.headers, spec.oauth || spec.custom_fetch)
}

/// Spawns a stdio server and starts its session as `start` (with the discover answer at hand).
async fn open_stdio(
    name: &str,
    spec: &super::config::StdioSpec,
    handler: Handler,
    starting: (&Start, Option<ServerJsonRpcMessage>),
    request_timeout_ms: u64,
    budget: &Budget,
    outcome: &mut Outcome,
) -> Result<Opened> {
    let (start, answer) = starting;
    let shared = handler.shared.clone();
    let mut spawned = stdio::spawn(name, spec)?;
    if let Some(stderr) = spawned.stderr.take() {
        stdio::forward_stderr(shared.clone(), stderr);
    }
    let transport = PipeTransport::over_spawned(spawned, shared.clone());
    let lane = transport.lane();
    let lifecycle = start.lifecycle();
    let service = match start {
        Start::HandshakeFirst => {
            let initialize = rmcp::handler::client::ClientHandler::get_info(&handler);
            handshake(name, handler, HandshakeFirst::new(transport, initialize), start, lifecycle, request_timeout_ms, budget, outcome).await
        }
        Start::Probe => {
            let writer = transport.writer();
            let window = ProbeWindow::new(transport, Box::new(move || writer.unread()));
            handshake(name, handler, window, start, lifecycle, request_timeout_ms, budget, outcome).await
        }
        Start::Handshake | Start::Discover => {
            let transport = ReuseDiscover::new(transport, Remembered::new(shared.clone(), None).with_answer(answer));
            handshake(name, handler, transport, start, lifecycle, request_timeout_ms, budget, outcome).await
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

/// Runs a `url` server's plan (`planned`: the plan and the discover answer at hand for its first start).
async fn open_http(
    name: &str,
    spec: &HttpSpec,
    handler: Handler,
    request_timeout_ms: u64,
    remote: Remote,
    planned: (&Plan, Option<ServerJsonRpcMessage>),
    outcome: &mut Outcome,
) -> std::result::Result<Opened, Failure> {
    let (plan, answer) = planned;
    let net = remote.net.clone();
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
    let parts = SessionParts { session: &session, listener: &listener, resume: &resume };
    let seen = outcome.lessons.len();
    let mut attempt = open_streamable(name, spec, &handler, (&remote, &parts), &budget, (&plan.first, answer), outcome).await?;
    if let Err(first) = &attempt {
        // A server of the handshake era may refuse `server/discover` before `initialize` at the
        // HTTP layer (400 "no session yet", 404 "unknown session", 405, even a 500): it is
        // noted as such, and the handshake follows (then, if that fails too, the SSE
        // fallback). An authorization challenge (401, 403) is not about the era. A refused
        // handshake was noted in `handshake`: 2026-07-28 follows on the same endpoint.
        if plan.first == Start::Probe && era::probe_refused(first.error.http_status) {
            outcome.note(Lesson::Shown { era: Era::Legacy, refused_handshake: false });
        }
        if let Some(next) = plan.after(&outcome.shown_since(seen)) {
            handler.shared.diagnostic("debug", format!("Protocol start failed ({}); starting again", first.error.message));
            observe::note_event("mcp.client.era_fallback", || observe::reason(first.error.message.clone()));
            attempt = open_streamable(name, spec, &handler, (&remote, &parts), &budget, (next, None), outcome).await?;
            if attempt.is_err() {
                outcome.note(Lesson::Forget);
            }
        }
    }
    match attempt {
        Ok(service) => {
            let resume = remote.oauth.is_none().then_some(resume);
            Ok(Opened { service, http_session: Some(session), lane: None, modern: false, listener: Some(listener), sse: false, resume })
        }
        // A pinned 2026-07-28 fails as it is: the legacy SSE transport cannot speak it.
        Err(first) if first.falls_back && plan.sse_fallback => {
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
    mcp_http_answered(spec, shared, net, parts, None)
}

/// `mcp_http`, its first `server/discover` answered from `answer` when there is one.
fn mcp_http_answered(
    spec: &HttpSpec,
    shared: &Arc<HandlerShared>,
    net: &NetClient,
    parts: &SessionParts,
    answer: Option<ServerJsonRpcMessage>,
) -> McpHttp {
    McpHttp {
        net: net.clone(),
        session: parts.session.clone(),
        scope_refusal: super::auth::challenge::scope_refusal,
        challenge_headers: super::auth::challenge::CHALLENGE_HEADERS,
        listener: parts.listener.clone(),
        discover: Some(Arc::new(Remembered::new(shared.clone(), endpoint_of(spec)).with_answer(answer))),
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

/// One Streamable HTTP connect, started as `start` (with the discover answer at hand). The
/// outer error is final (OAuth could not even start).
async fn open_streamable(
    name: &str,
    spec: &HttpSpec,
    handler: &Handler,
    (remote, parts): (&Remote, &SessionParts<'_>),
    budget: &Budget,
    starting: (&Start, Option<ServerJsonRpcMessage>),
    outcome: &mut Outcome,
) -> std::result::Result<std::result::Result<Service, Failure>, Failure> {
    let (start, answer) = starting;
    let (oauth, net) = (&remote.oauth, &remote.net);
    let shared = handler.shared.clone();
    let http = mcp_http_answered(spec, &shared, net, parts, answer);
    // Over HTTP a refused `initialize` ends the transport: the handshake-first start is a plain
    // handshake, and `handshake` learns from a refusal so that `server/discover` follows.
    let lifecycle = if *start == Start::HandshakeFirst { ClientLifecycleMode::Initialize } else { start.lifecycle() };
    Ok(match oauth {
        Some(oauth) => {
            let client = BearerClient::new(http, oauth.clone());
            let transport = streamable::transport(&spec.url, client);
            handshake(name, handler.clone(), Observed::new(transport, shared), start, lifecycle, spec.connect_timeout_ms, budget, outcome).await
        }
        None => {
            let transport = streamable::transport(&spec.url, http);
            handshake(name, handler.clone(), Observed::new(transport, shared), start, lifecycle, spec.connect_timeout_ms, budget, outcome).await
        }
    })
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
/// `timeout_ms`, and within the connect budget; notes the era a negotiating start's failure shows.
#[allow(clippy::too_many_arguments)]
async fn handshake<T, E, A>(
    name: &str,
    handler: Handler,
    transport: T,
    start: &Start,
    lifecycle: ClientLifecycleMode,
    timeout_ms: u64,
    budget: &Budget,
    outcome: &mut Outcome,
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
                Start::Probe => {
                    let hung_up =
                        |e: &ClientInitializeError| matches!(e, ClientInitializeError::TransportError { error, .. } if hung_up(error.error.as_ref()));
                    if let Some(era) = era::probe_shows(&e, hung_up) {
                        outcome.note(Lesson::Shown { era, refused_handshake: false });
                    }
                }
                Start::HandshakeFirst if refuses_handshake(&e) => {
                    shared.diagnostic(
                        "debug",
                        "The server refused the initialize handshake as a 2026-07-28 server does; continuing with server/discover",
                    );
                    outcome.note(Lesson::Shown { era: Era::Modern, refused_handshake: true });
                }
                _ => {}
            }
            Err(classify(name, &e))
        }
        // No answer at all: as with a refused connection, another transport may still work.
        Err(_) => Err(Failure { error: timed_out(name, reported_ms, "initialize"), falls_back: true, auth: None }),
    }
}

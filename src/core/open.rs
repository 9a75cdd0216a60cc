//! Opening a session: start the transport, run `initialize`, bounded by the right timeout.
//! For `url` servers: Streamable HTTP first, then the legacy SSE transport when the failure
//! says the server may speak it (HTTP 400/404/405 or no HTTP answer at all); a path ending in
//! `/sse` goes straight to SSE. Policy errors and other statuses never fall back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpError;
use rmcp::ServiceExt;
use tokio::io::AsyncReadExt;

use super::config::{HttpSpec, ServerConfig, ServerSpec};
use super::error::{ErrorKind, McpError, Result};
use super::era::{self, handshake_first::HandshakeFirst, probe_window::ProbeWindow, Start};
use super::handler::{Handler, HandlerShared, MODERN_PROTOCOL_VERSION};
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use super::auth::{AuthState, BeginError, OAuthSession};
use super::net::{NetClient, NetError};
use super::transport::observed::Observed;
use super::transport::streamable::McpHttp;
use super::transport::lane::Lane;
use super::transport::pipe::PipeTransport;
use super::transport::{sse, stdio, streamable};

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
}

pub async fn open_session(
    config: ServerConfig,
    shared: Arc<HandlerShared>,
    request_timeout_ms: u64,
    remote: Option<Remote>,
) -> Result<Opened> {
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
                    Ok(true) => result = open_http(&name, &spec, handler, request_timeout_ms, remote).await,
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
async fn open_stdio(name: &str, spec: &super::config::StdioSpec, handler: Handler, shared: Arc<HandlerShared>, request_timeout_ms: u64, budget: &Budget) -> Result<Opened> {
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
        Start::Handshake | Start::Discover => handshake(name, handler, transport, &start, lifecycle, request_timeout_ms, budget).await,
    };
    let service = service.map_err(|f| f.error)?;
    Ok(Opened { service, http_session: None, lane: Some(lane) })
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
    net.policy()
        .check(&spec.url, super::net::policy::BlockedBecause::NotSent)
        .map_err(|e| Failure { error: net_error(name, &e), falls_back: false, auth: None })?;
    if spec.url.path().ends_with("/sse") {
        // Only SSE is tried: the request timeout bounds it, as in `@mastra/mcp`.
        return open_sse(name, spec, handler, &Budget::new(request_timeout_ms), net, remote.oauth.as_deref()).await;
    }
    // One budget for the whole connect, the Streamable HTTP attempt and the SSE fallback alike.
    let budget = Budget::new(request_timeout_ms.max(spec.connect_timeout_ms));
    let session = Arc::new(Mutex::new(None));
    let before = era::start(&handler.shared);
    let mut attempt = open_streamable(name, spec, &handler, &remote.oauth, &net, &session, &budget).await?;
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
            attempt = open_streamable(name, spec, &handler, &remote.oauth, &net, &session, &budget).await?;
            if attempt.is_err() {
                era::forget(&handler.shared);
            }
        }
    }
    let pinned_modern = handler.shared.pinned_version.as_deref() == Some(MODERN_PROTOCOL_VERSION);
    match attempt {
        Ok(service) => Ok(Opened { service, http_session: Some(session), lane: None }),
        // A pinned 2026-07-28 fails as it is: the legacy SSE transport cannot speak it.
        Err(first) if first.falls_back && !pinned_modern => {
            handler.shared.diagnostic(
                "debug",
                format!("Streamable HTTP failed ({}); trying the legacy SSE transport", first.error.message),
            );
            if budget.remaining_ms() == 0 {
                let sse = McpError::new(
                    ErrorKind::Timeout,
                    name,
                    format!("not tried: the connect budget of {} ms was used up", budget.total_ms),
                );
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

/// One Streamable HTTP connect. The outer error is final (OAuth could not even start).
async fn open_streamable(
    name: &str,
    spec: &HttpSpec,
    handler: &Handler,
    oauth: &Option<Arc<OAuthSession>>,
    net: &NetClient,
    session: &Arc<Mutex<Option<String>>>,
    budget: &Budget,
) -> std::result::Result<std::result::Result<Service, Failure>, Failure> {
    let http = McpHttp { net: net.clone(), session: session.clone() };
    let shared = handler.shared.clone();
    let start = era::start(&shared);
    // Over HTTP a refused `initialize` ends the transport: the handshake-first start is a plain
    // handshake, and `handshake` learns from a refusal so that `server/discover` follows.
    let lifecycle = if start == Start::HandshakeFirst { ClientLifecycleMode::Initialize } else { start.lifecycle() };
    Ok(match oauth {
        Some(oauth) => {
            let client = oauth.authorize(http).await.map_err(|e| Failure {
                error: McpError::new(ErrorKind::AuthFailed, name, e).in_connect(),
                falls_back: false,
                auth: None,
            })?;
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
    let work = async {
        let net = match oauth {
            Some(session) => match session.access_token().await {
                Some(token) => net.with_header("authorization", format!("Bearer {token}")),
                None => net,
            },
            None => net,
        };
        let transport = sse::connect(&spec.url, net).await.map_err(|e| net_failure(name, &e))?;
        handler
            .serve(Observed::new(transport, shared))
            .await
            .map_err(|e| classify(name, &e))
    };
    match tokio::time::timeout_at(budget.deadline, work).await {
        Ok(Ok(service)) => Ok(Opened { service, http_session: None, lane: None }),
        Ok(Err(f)) => Err(f),
        Err(_) => Err(Failure { error: timed_out(name, budget.total_ms, "SSE connect"), falls_back: false, auth: None }),
    }
}

fn both_failed(name: &str, streamable: McpError, sse: McpError) -> McpError {
    let mut e = McpError::new(
        ErrorKind::ConnectFailed,
        name,
        format!(
            "Could not connect to server with any available HTTP transport. Streamable HTTP: {}. SSE: {}",
            streamable.message, sse.message
        ),
    );
    e.http_status = streamable.http_status.or(sse.http_status);
    if let ErrorKind::Policy(_) = sse.kind {
        return sse;
    }
    e.during_connect = true;
    e
}

/// A failed handshake and whether another transport is worth trying.
pub struct Failure {
    pub error: McpError,
    pub falls_back: bool,
    /// The server answered 401: `Some(challenge)` (the `WWW-Authenticate` value, if any).
    pub auth: Option<Option<String>>,
}

fn net_failure(name: &str, e: &NetError) -> Failure {
    Failure {
        error: net_error(name, e),
        falls_back: net_falls_back(e),
        auth: (e.status() == Some(401)).then_some(None),
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
                Start::Probe => era::learn_from_probe(&shared, &e, |e| matches!(e, ClientInitializeError::TransportError { error, .. } if hung_up(error.error.as_ref()))),
                Start::HandshakeFirst if refuses_handshake(&e) => {
                    shared.diagnostic("debug", "The server refused the initialize handshake as a 2026-07-28 server does; continuing with server/discover");
                    era::remember(&shared, true);
                }
                _ => {}
            }
            Err(classify(name, &e))
        }
        // No answer at all: as with a refused connection, another transport may still work.
        Err(_) => Err(Failure { error: timed_out(name, reported_ms, "initialize"), falls_back: true, auth: None }),
    }
}

/// Whether a failed `initialize` was refused the way a modern-only server refuses it: a
/// JSON-RPC -32022 or -32601 answer, or (over HTTP) one inside a 4xx.
fn refuses_handshake(e: &ClientInitializeError) -> bool {
    match e {
        ClientInitializeError::JsonRpcError(data) => era::handshake_first::refuses_handshake(data.code),
        ClientInitializeError::TransportError { error, .. } => {
            let inner: &(dyn std::error::Error + Send + Sync + 'static) = error.error.as_ref();
            let net = inner.downcast_ref::<NetError>().or_else(|| match inner.downcast_ref::<StreamableHttpError<NetError>>() {
                Some(StreamableHttpError::Client(n)) => Some(n),
                _ => None,
            });
            matches!(net, Some(NetError::Status { status, body }) if era::http_refuses_handshake(Some(*status), body))
        }
        _ => false,
    }
}

/// A pipe error that means the server process went away.
fn hung_up(e: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| matches!(io.kind(), std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset))
}

fn timed_out(name: &str, timeout_ms: u64, what: &str) -> McpError {
    McpError::new(ErrorKind::Timeout, name, format!("Request timed out after {timeout_ms} ms ({what} on server {name})")).in_connect()
}

/// The user-facing error for a network failure.
pub fn net_error(name: &str, e: &NetError) -> McpError {
    match e {
        NetError::Policy { id, message } => McpError::new(ErrorKind::Policy(id), name, message.clone()).in_connect(),
        NetError::Status { status, .. } => {
            let mut err = McpError::new(ErrorKind::ConnectFailed, name, e.to_string());
            err.http_status = Some(*status);
            err
        }
        other => McpError::new(ErrorKind::ConnectFailed, name, other.to_string()),
    }
}

/// Falls back on HTTP 400/404/405 and on failures without an HTTP answer; never on policy
/// errors, authorization challenges or other statuses.
fn net_falls_back(e: &NetError) -> bool {
    match e {
        NetError::Policy { .. } | NetError::Fetch(_) => false,
        NetError::Status { status, .. } => matches!(status, 400 | 404 | 405),
        NetError::Connect(_) | NetError::Timeout(_) | NetError::Body(_) => true,
    }
}

fn classify(name: &str, e: &ClientInitializeError) -> Failure {
    match e {
        ClientInitializeError::TransportError { error, context } => {
            let inner: &(dyn std::error::Error + Send + Sync + 'static) = error.error.as_ref();
            if let Some(http) = inner.downcast_ref::<StreamableHttpError<NetError>>() {
                return match http {
                    StreamableHttpError::Client(net) => net_failure(name, net),
                    StreamableHttpError::AuthRequired(challenge) => {
                        let mut err = McpError::new(ErrorKind::ConnectFailed, name, "HTTP 401: the server requires authorization");
                        err.http_status = Some(401);
                        Failure { error: err, falls_back: false, auth: Some(Some(challenge.www_authenticate_header.clone())) }
                    }
                    StreamableHttpError::SessionExpired => {
                        let mut err = McpError::new(ErrorKind::ConnectFailed, name, "HTTP 404");
                        err.http_status = Some(404);
                        Failure { error: err, falls_back: true, auth: None }
                    }
                    StreamableHttpError::Auth(e) => Failure {
                        error: McpError::new(ErrorKind::AuthFailed, name, format!("OAuth: {e}")),
                        falls_back: false,
                        auth: None,
                    },
                    other => Failure {
                        error: McpError::new(ErrorKind::ConnectFailed, name, format!("{context}: {}", error_and_causes(other))),
                        falls_back: true,
                        auth: None,
                    },
                };
            }
            if let Some(net) = inner.downcast_ref::<NetError>() {
                return net_failure(name, net);
            }
            if hung_up(inner) {
                // A stdio server that exits at once closes its stdin before we write to it.
                return Failure {
                    error: McpError::new(
                        ErrorKind::ConnectFailed,
                        name,
                        format!("Connection closed before the server completed the initialize handshake (the server exited: {inner})"),
                    ),
                    falls_back: true,
                    auth: None,
                };
            }
            Failure {
                error: McpError::new(ErrorKind::ConnectFailed, name, format!("{context}: {}", error_and_causes(inner))),
                falls_back: true,
                auth: None,
            }
        }
        // The handshake-first start: rmcp's own `initialize` got the server's answer.
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => return classify(name, fallback),
        // A JSON-RPC answer to `initialize` means an MCP server is there: no other transport.
        ClientInitializeError::JsonRpcError(data) => Failure {
            error: McpError::new(ErrorKind::ConnectFailed, name, format!("MCP error {}: {}", data.code.0, data.message)),
            falls_back: false,
            auth: None,
        },
        ClientInitializeError::ConnectionClosed(_) => Failure {
            error: McpError::new(
                ErrorKind::ConnectFailed,
                name,
                "Connection closed before the server completed the initialize handshake (the server exited or wrote something that is not JSON-RPC)",
            ),
            falls_back: true,
            auth: None,
        },
        other => Failure { error: McpError::new(ErrorKind::ConnectFailed, name, other.to_string()), falls_back: true, auth: None },
    }
    .in_connect()
}

impl Failure {
    fn in_connect(mut self) -> Self {
        self.error.during_connect = true;
        self
    }
}

/// An error's message followed by its causes' (when they add something), joined by ": ".
pub fn error_and_causes(e: &(dyn std::error::Error + 'static)) -> String {
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

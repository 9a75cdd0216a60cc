//! Opening a `url` server's session: Streamable HTTP first, then the legacy SSE transport when
//! the failure says the server may speak it (HTTP 400/404/405 or no HTTP answer at all); a path
//! ending in `/sse` goes straight to SSE. Policy errors and other statuses never fall back. Also
//! resuming a parked session, and the HTTP client every Streamable HTTP session sends through.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ServerJsonRpcMessage;
use rmcp::{ClientLifecycleMode, ClientServiceExt};

use super::failure::{classify, net_error, timed_out, Failure};
use super::handshake::handshake;
use super::parts::{Budget, Opened, Remote, Service, SessionParts};
use super::sse::{fall_back, open_sse};
use crate::core::auth::bearer::BearerClient;
use crate::core::auth::{AuthState, BeginError, OAuthSession};
use crate::core::config::HttpSpec;
use crate::core::era::known::{Endpoint, Remembered};
use crate::core::era::{self, Era, Lesson, Outcome, Plan, Start};
use crate::core::error::{ErrorKind, McpError, Result};
use crate::core::handler::{Handler, HandlerShared};
use crate::core::net::NetClient;
use crate::core::observe;
use crate::core::transport::listener::Listener;
use crate::core::transport::observed::Observed;
use crate::core::transport::resume::Resume;
use crate::core::transport::streamable::{self, McpHttp};

/// Runs a `url` server's plan: Streamable HTTP (the plan's starts), then the SSE fallback; a
/// provider without a browser step (client credentials) gets tokens after a 401 and the connect
/// is run once more; another 401 starts the OAuth flow.
pub(super) async fn run_http(
    name: &str,
    spec: &HttpSpec,
    handler: Handler,
    request_timeout_ms: u64,
    remote: Option<Remote>,
    plan: &Plan,
    outcome: &mut Outcome,
) -> Result<Opened> {
    let remote = remote.ok_or_else(|| McpError::invalid_config(name, "internal: no HTTP client for a url server"))?;
    let oauth = remote.oauth.clone();
    let mut result = open_http(name, spec, handler.clone(), request_timeout_ms, remote.clone(), (plan, plan.discover.clone()), outcome).await;
    if let (Err(Failure { auth: Some(challenge), .. }), Some(session)) = (&result, &oauth) {
        match session.authorize_without_browser(challenge.as_deref()).await {
            Ok(true) => {
                observe::note_event("mcp.client.oauth.token", || observe::reason("tokens obtained without a browser; connecting again"));
                // The answer at hand served the first start only: this run asks what is known now.
                result = open_http(name, spec, handler, request_timeout_ms, remote, (plan, None), outcome).await;
            }
            Ok(false) => {}
            Err(BeginError::Policy { id, message }) => return Err(McpError::new(ErrorKind::Policy(id), name, message).in_connect()),
            Err(BeginError::Failed(e)) => return Err(McpError::new(ErrorKind::AuthFailed, name, e).in_connect()),
        }
    }
    match (result, oauth) {
        (Ok(opened), Some(session)) => {
            session.set_state(AuthState::Authorized);
            Ok(opened)
        }
        (Ok(opened), None) => Ok(opened),
        (Err(failure), Some(session)) if failure.auth.is_some() => Err(begin_authorization(name, &session, failure).await),
        (Err(failure), _) => Err(failure.error),
    }
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
    net.policy().check(&spec.url, crate::core::net::policy::BlockedBecause::NotSent).map_err(|e| Failure {
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
            fall_back(name, spec, handler, &budget, net, remote.oauth.as_deref(), first).await
        }
        Err(first) => Err(first),
    }
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
        scope_refusal: crate::core::auth::challenge::scope_refusal,
        challenge_headers: crate::core::auth::challenge::CHALLENGE_HEADERS,
        listener: parts.listener.clone(),
        discover: Some(Arc::new(Remembered::new(shared.clone(), Endpoint::of(spec)).with_answer(answer))),
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

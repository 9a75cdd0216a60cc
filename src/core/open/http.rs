//! Opening a `url` server's session: Streamable HTTP first, then the legacy SSE transport when
//! the failure says the server may speak it (HTTP 400/404/405 or no HTTP answer at all); a path
//! ending in `/sse` goes straight to SSE. Policy errors and other statuses never fall back. Also
//! resuming a parked session, and the HTTP client every Streamable HTTP session sends through.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ServerJsonRpcMessage;
use rmcp::{ClientLifecycleMode, ClientServiceExt};

use super::failure::{authorization_begun, classify, net_error, timed_out, Failure};
use super::handshake::{handshake, Starts};
use super::parts::{Budget, Opened, Remote, SessionClient, SessionParts};
use super::sse::open_sse;
use crate::core::auth::{AuthState, BeginError};
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
    // The answer at hand serves the first run only: a run after tokens were obtained asks what is known then.
    let (mut answer, mut tokens_obtained) = (plan.discover.clone(), false);
    let result = loop {
        let result = open_http(name, spec, handler.clone(), request_timeout_ms, remote.clone(), (plan, answer.take()), outcome).await;
        let (Err(Failure { auth: Some(challenge), .. }), Some(session), false) = (&result, &remote.oauth, tokens_obtained) else { break result };
        match session.authorize_without_browser(challenge.as_deref()).await {
            Ok(true) => {
                observe::note_event("mcp.client.oauth.token", || observe::reason("tokens obtained without a browser; connecting again"));
                tokens_obtained = true;
            }
            Ok(false) => break result,
            Err(BeginError::Policy { id, message }) => return Err(McpError::new(ErrorKind::Policy(id), name, message).in_connect()),
            Err(BeginError::Failed(e)) => return Err(McpError::new(ErrorKind::AuthFailed, name, e).in_connect()),
        }
    };
    match (result, &remote.oauth) {
        (Ok(opened), Some(session)) => {
            session.set_state(AuthState::Authorized);
            Ok(opened)
        }
        (Ok(opened), None) => Ok(opened),
        (Err(failure), Some(session)) if failure.auth.is_some() => Err(authorization_begun(name, session, failure).await),
        (Err(failure), _) => Err(failure.error),
    }
}

/// Runs a `url` server's plan (`planned`: the plan and the discover answer at hand for its first
/// start): the Streamable HTTP starts, then the SSE fallback when the failure allows it.
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
    // Checked before any transport exists, like the anchor's up-front check.
    remote.net.policy().check(&spec.url, crate::core::net::policy::BlockedBecause::NotSent).map_err(|e| Failure::no_fallback(net_error(name, &e)))?;
    // A URL ending in `/sse` is SSE only, bounded by the request timeout as in `@mastra/mcp`;
    // otherwise one budget bounds the whole connect, Streamable HTTP and the SSE fallback alike.
    let sse_only = spec.url.path().ends_with("/sse");
    let budget = Budget::new(if sse_only { request_timeout_ms } else { request_timeout_ms.max(spec.connect_timeout_ms) });
    let streamable_failed = if sse_only {
        None
    } else {
        match open_streamable(name, spec, &handler, &remote, &budget, (plan, answer), outcome).await {
            Ok(opened) => return Ok(opened),
            // A pinned 2026-07-28 fails as it is: the legacy SSE transport cannot speak it.
            Err(first) if first.falls_back && plan.sse_fallback => {
                handler.shared.diagnostic("debug", format!("Streamable HTTP failed ({}); trying the legacy SSE transport", first.error.message));
                observe::note_event("mcp.client.transport_fallback", || observe::reason(first.error.message.clone()));
                Some(first)
            }
            Err(first) => return Err(first),
        }
    };
    // Boxed: the fallback is rare, and inline it would size every connect.
    Box::pin(open_sse(name, spec, handler, &budget, remote.net, remote.oauth.as_deref(), streamable_failed)).await
}

/// The Streamable HTTP starts of a plan, on one session's parts: the first start, and the one
/// more the plan names when the first one's failure showed the era.
async fn open_streamable(
    name: &str,
    spec: &HttpSpec,
    handler: &Handler,
    remote: &Remote,
    budget: &Budget,
    planned: (&Plan, Option<ServerJsonRpcMessage>),
    outcome: &mut Outcome,
) -> std::result::Result<Opened, Failure> {
    let (plan, mut answer) = planned;
    let (session, listener, resume) = (Arc::new(Mutex::new(None)), Listener::default(), Resume::default());
    let parts = SessionParts { session: &session, listener: &listener, resume: &resume };
    let (mut starts, mut start) = Starts::first(plan, outcome);
    let started = loop {
        let http = mcp_http_answered(spec, &handler.shared, &remote.net, &parts, answer.take());
        let transport = Observed::new(streamable::transport(&spec.url, SessionClient::new(http, remote.oauth.as_ref())), handler.shared.clone());
        // Over HTTP a refused `initialize` ends the transport: the handshake-first start is a plain
        // handshake, and `handshake` learns from a refusal so that `server/discover` follows.
        let lifecycle = if *start == Start::HandshakeFirst { ClientLifecycleMode::Initialize } else { start.lifecycle() };
        let failed = match handshake(name, handler.clone(), transport, start, lifecycle, spec.connect_timeout_ms, budget, outcome).await {
            Err(failed) => failed,
            started => break started,
        };
        // A server of the handshake era may refuse `server/discover` before `initialize` at the
        // HTTP layer (400 "no session yet", 404 "unknown session", 405, even a 500): it is noted
        // as such, and the handshake follows (then, if that fails too, the SSE fallback). An
        // authorization challenge (401, 403) is not about the era. A refused handshake was noted
        // in `handshake`: 2026-07-28 follows on the same endpoint.
        if *start == Start::Probe && era::probe_refused(failed.error.http_status) {
            outcome.note(Lesson::Shown { era: Era::Legacy, refused_handshake: false });
        }
        match starts.after(&failed, &handler.shared, "starting again", outcome) {
            Some(next) => start = next,
            None => break Err(failed),
        }
    };
    started.map(|service| {
        let resume = remote.oauth.is_none().then_some(resume);
        Opened { service, http_session: Some(session), lane: None, modern: false, listener: Some(listener), sse: false, resume }
    })
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

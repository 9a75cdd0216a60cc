//! The legacy HTTP+SSE connect: the fallback of a Streamable HTTP connect that failed the way a
//! legacy server fails it, or the only transport of a URL ending in `/sse`.

use std::time::Duration;

use rmcp::ServiceExt;

use super::failure::{both_failed, classify, net_failure, timed_out, Failure};
use super::parts::{Budget, Opened, Service};
use crate::core::auth::OAuthSession;
use crate::core::config::HttpSpec;
use crate::core::error::{ErrorKind, McpError};
use crate::core::handler::{Handler, HandlerShared};
use crate::core::net::{NetClient, NetError};
use crate::core::transport::observed::Observed;
use crate::core::transport::sse;

/// A legacy SSE connect within `budget` (its bearer token, if any, on the stream's request): the
/// fallback of a Streamable HTTP connect that failed (`streamable_failed`), within what is left
/// of the connect's budget, its failure then naming both transports' errors; or the only try.
pub(super) async fn open_sse(
    name: &str,
    spec: &HttpSpec,
    handler: Handler,
    budget: &Budget,
    net: NetClient,
    oauth: Option<&OAuthSession>,
    streamable_failed: Option<Failure>,
) -> std::result::Result<Opened, Failure> {
    let failed = if budget.remaining_ms() == 0 {
        let error = McpError::new(ErrorKind::Timeout, name, format!("not tried: the connect budget of {} ms was used up", budget.total_ms));
        Failure::no_fallback(error)
    } else {
        match connect_within(name, spec, handler, budget, net, oauth).await {
            Ok(service) => return Ok(Opened { service, http_session: None, lane: None, modern: false, listener: None, sse: true, resume: None }),
            Err(failed) => failed,
        }
    };
    Err(match streamable_failed {
        Some(first) => Failure { auth: failed.auth.clone(), error: both_failed(name, first.error, failed.error), falls_back: false },
        None => failed,
    })
}

/// The SSE stream opened and the session started over it, by the budget's deadline.
async fn connect_within(
    name: &str,
    spec: &HttpSpec,
    handler: Handler,
    budget: &Budget,
    net: NetClient,
    oauth: Option<&OAuthSession>,
) -> std::result::Result<Service, Failure> {
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
        Ok(started) => started,
        Err(_) => Err(Failure::no_fallback(timed_out(name, budget.total_ms, "SSE connect"))),
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

//! A plan's starts (`Starts`: the first, then the one more the failure's era names), and
//! one start of a session (`handshake`): rmcp's `initialize` or `server/discover` over a
//! transport, bounded by its own timeout and the connect's budget; what a negotiating start's
//! failure shows of the era is noted in the connect's `Outcome`.

use std::time::Duration;

use rmcp::service::{ClientInitializeError, RoleClient};
use rmcp::{ClientLifecycleMode, ClientServiceExt};

use super::failure::{classify, hung_up, refuses_handshake, timed_out, Failure};
use super::parts::{Budget, Service};
use crate::core::era::{self, Era, Lesson, Outcome, Plan, Start};
use crate::core::handler::{Handler, HandlerShared};
use crate::core::observe;

/// A plan's starts, one at a time: the first (with the discover answer at hand), then, after
/// its failure, the one more start the plan names when the failure showed the era; a second
/// failure forgets what was known.
pub(super) struct Starts<'p> {
    plan: &'p Plan,
    /// The lessons noted before the first start.
    seen: usize,
    retried: bool,
}

impl<'p> Starts<'p> {
    /// The plan's starts, and its first one.
    pub(super) fn first(plan: &'p Plan, outcome: &Outcome) -> (Self, &'p Start) {
        (Starts { plan, seen: outcome.lessons.len(), retried: false }, &plan.first)
    }

    /// The start that follows the failed one (`again`: what it does, for the log), or `None`: the
    /// failure is the connect's.
    pub(super) fn after(&mut self, failed: &Failure, shared: &HandlerShared, again: &str, outcome: &mut Outcome) -> Option<&'p Start> {
        if self.retried {
            outcome.note(Lesson::Forget);
            return None;
        }
        let next = self.plan.after(&outcome.shown_since(self.seen))?;
        shared.diagnostic("debug", format!("Protocol start failed ({}); {again}", failed.error.message));
        observe::note_event("mcp.client.era_fallback", || observe::reason(failed.error.message.clone()));
        self.retried = true;
        Some(next)
    }
}

/// Starts a session over `transport` (`lifecycle`: how, for the era start `start`) within
/// `timeout_ms`, and within the connect budget; notes the era a negotiating start's failure shows.
#[allow(clippy::too_many_arguments)]
pub(super) async fn handshake<T, E, A>(
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

//! Opening a stdio server's session: spawn it, pipe it, start the session as the plan says
//! (the handshake first under `HandshakeFirst`, a probe under `ProbeWindow`, or a plain start
//! whose `server/discover` may be answered from what is known).

use rmcp::model::ServerJsonRpcMessage;

use super::handshake::handshake;
use super::parts::{Budget, Opened};
use crate::core::config::StdioSpec;
use crate::core::era::handshake_first::HandshakeFirst;
use crate::core::era::known::{Remembered, ReuseDiscover};
use crate::core::era::probe_window::ProbeWindow;
use crate::core::era::{Lesson, Outcome, Plan, Start};
use crate::core::error::Result;
use crate::core::handler::Handler;
use crate::core::observe;
use crate::core::transport::pipe::PipeTransport;
use crate::core::transport::stdio as child;

/// Runs a stdio server's plan: its first start, and the one more start the plan names when the
/// first one failed showing the era (the server is started again).
pub(super) async fn run_stdio(
    name: &str,
    spec: &StdioSpec,
    handler: Handler,
    request_timeout_ms: u64,
    plan: &Plan,
    outcome: &mut Outcome,
) -> Result<Opened> {
    let budget = Budget::new(request_timeout_ms);
    match open_stdio(name, spec, handler.clone(), (&plan.first, plan.discover.clone()), request_timeout_ms, &budget, outcome).await {
        Err(first) => match plan.after(&outcome.shown_since(0)) {
            Some(next) => {
                handler.shared.diagnostic("debug", format!("Automatic protocol start failed ({}); starting the server again", first.message));
                observe::note_event("mcp.client.era_fallback", || observe::reason(first.message.clone()));
                // The answer at hand served the first start only: this one asks what is known now.
                let retried = open_stdio(name, spec, handler, (next, None), request_timeout_ms, &budget, outcome).await;
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

/// Spawns a stdio server and starts its session as `start` (with the discover answer at hand).
async fn open_stdio(
    name: &str,
    spec: &StdioSpec,
    handler: Handler,
    starting: (&Start, Option<ServerJsonRpcMessage>),
    request_timeout_ms: u64,
    budget: &Budget,
    outcome: &mut Outcome,
) -> Result<Opened> {
    let (start, answer) = starting;
    let shared = handler.shared.clone();
    let mut spawned = child::spawn(name, spec)?;
    if let Some(stderr) = spawned.stderr.take() {
        child::forward_stderr(shared.clone(), stderr);
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

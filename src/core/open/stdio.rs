//! Opening a stdio server's session: spawn it, pipe it, start the session as the plan says
//! (the handshake first under `HandshakeFirst`, a probe under `ProbeWindow`, or a plain start
//! whose `server/discover` may be answered from what is known).

use rmcp::model::ServerJsonRpcMessage;

use super::failure::Failure;
use super::handshake::{handshake, Starts};
use super::parts::{Budget, Opened};
use crate::core::config::StdioSpec;
use crate::core::era::handshake_first::HandshakeFirst;
use crate::core::era::known::{Remembered, ReuseDiscover};
use crate::core::era::probe_window::ProbeWindow;
use crate::core::era::{Outcome, Plan, Start};
use crate::core::error::Result;
use crate::core::handler::Handler;
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
    let (mut starts, mut start) = Starts::first(plan, outcome);
    // The answer at hand serves the first start only: a second one asks what is known then.
    let mut answer = plan.discover.clone();
    loop {
        let failed = match open_stdio(name, spec, handler.clone(), (start, answer.take()), request_timeout_ms, &budget, outcome).await {
            Err(failed) => failed,
            opened => return opened.map_err(|f| f.error),
        };
        start = starts.after(&failed, &handler.shared, "starting the server again", outcome).ok_or(failed.error)?;
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
) -> std::result::Result<Opened, Failure> {
    let (start, answer) = starting;
    let shared = handler.shared.clone();
    let mut spawned = child::spawn(name, spec).map_err(Failure::no_fallback)?;
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
    Ok(Opened { service: service?, http_session: None, lane: Some(lane), modern: false, listener: None, sse: false, resume: None })
}

//! Opening a session, as decide, then do, then learn once (`open_session`): the era layer makes
//! the connect's plan from what it knows (`era::plan`); the transport the config names runs it
//! (`stdio.rs`; `http.rs`, with the SSE fallback in `sse.rs`), each start in `handshake.rs`,
//! noting in an `Outcome` what refused and what opened, without asking the era layer anything
//! more; the era layer takes that outcome once (`era::known::learn`).

mod failure;
mod handshake;
mod http;
mod parts;
mod sse;
mod stdio;

use std::sync::Arc;

use super::config::{ServerConfig, ServerSpec};
use super::era::{self, Lesson, Outcome, Start};
use super::error::Result;
use super::handler::{Handler, HandlerShared, MODERN_PROTOCOL_VERSION};

pub use failure::{error_and_causes, net_error};
pub use http::{mcp_http, resume_streamable};
pub use parts::{Opened, Remote, Service, SessionParts};

/// Whether the next session of this server starts stateless (2026-07-28 pinned or learned, no
/// handshake): there is nothing to open before the next request needs it.
pub fn starts_stateless(shared: &HandlerShared) -> bool {
    era::start(shared) == Start::Discover
}

/// Opens a session of the server: the plan, its run (stdio, or Streamable HTTP then SSE, within
/// one connect budget), then one lesson: the next connect to this server starts the way this
/// one ended.
pub async fn open_session(config: ServerConfig, shared: Arc<HandlerShared>, request_timeout_ms: u64, remote: Option<Remote>) -> Result<Opened> {
    let name = config.name.clone();
    let spec = config.spec()?.clone();
    let plan = era::plan(&shared, &spec);
    let handler = Handler { shared: shared.clone() };
    let mut outcome = Outcome::default();
    // Each transport's run is boxed: inline, the larger of the two (stdio's handshakes) would size
    // every connect, and 200 users connecting at once hold 200 of them.
    let mut opened = match &spec {
        ServerSpec::Stdio(spec) => Box::pin(stdio::run_stdio(&name, spec, handler, request_timeout_ms, &plan, &mut outcome)).await,
        ServerSpec::Http(spec) => Box::pin(http::run_http(&name, spec, handler, request_timeout_ms, remote, &plan, &mut outcome)).await,
    };
    if let Ok(opened) = &mut opened {
        let version = opened.service.peer().peer_info().map(|i| i.protocol_version.to_string());
        opened.modern = version.as_deref() == Some(MODERN_PROTOCOL_VERSION);
        outcome.note(Lesson::Opened { modern: opened.modern });
    }
    era::known::learn(&shared, outcome);
    opened
}

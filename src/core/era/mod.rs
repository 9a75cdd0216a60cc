//! Which protocol era a session starts in, by the `protocolVersion` option and what this server
//! answered before:
//! - omitted: the `initialize` handshake first (as `@mastra/mcp` 1.18), 2026-07-28 when the
//!   server refuses it as a modern-only server does ([`handshake_first`]);
//! - `'auto'`: `server/discover` first, the handshake when the server does not know it (as
//!   `@mastra/mcp` 2.0);
//! - `'2026-07-28'`: `server/discover` only; `'legacy'` or a handshake revision: the handshake only.
//!
//! Either negotiated start is remembered per server: the next connect goes straight to the era
//! this server answered with (a server that refused the probe: the handshake first). A URL that
//! answered as a 2026-07-28 server is one for every client of the process, and a `server/discover`
//! answer is reused as far as it allows ([`known`]).

pub mod handshake_first;
pub mod known;
pub mod plan;
pub mod probe_window;

use std::sync::atomic::Ordering;

use rmcp::model::ProtocolVersion;
use rmcp::service::ClientInitializeError;
use rmcp::ClientLifecycleMode;

use super::handler::HandlerShared;
pub use known::{Era, Lesson, Outcome};
pub use plan::{plan, Plan};

/// The `protocolVersion` value that probes with `server/discover` first.
pub const AUTO: &str = "auto";

/// How the next session of a server starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// `initialize` only.
    Handshake,
    /// `server/discover` only.
    Discover,
    /// `server/discover`, then `initialize` when the server does not know it (`'auto'`).
    Probe,
    /// `initialize`, then `server/discover` when the server refuses it as a modern-only server.
    HandshakeFirst,
}

impl Start {
    /// Whether this start may still learn the era (and so be worth one more try on failure).
    pub fn negotiates(&self) -> bool {
        matches!(self, Start::Probe | Start::HandshakeFirst)
    }

    /// rmcp's lifecycle for this start. `HandshakeFirst` runs rmcp's probe under the
    /// [`handshake_first::HandshakeFirst`] layer, which turns it around.
    pub fn lifecycle(&self) -> ClientLifecycleMode {
        let modern = || vec![ProtocolVersion::V_2026_07_28];
        match self {
            Start::Handshake => ClientLifecycleMode::Initialize,
            Start::Discover => ClientLifecycleMode::Discover { preferred_versions: modern() },
            Start::Probe | Start::HandshakeFirst => ClientLifecycleMode::Auto { preferred_versions: modern(), legacy_version: None },
        }
    }
}

/// How the next session of this server starts.
pub fn start(shared: &HandlerShared) -> Start {
    plan::Known::of(shared).start()
}

/// Records the era a session opened in: the next connect starts that way.
pub fn remember(shared: &HandlerShared, modern: bool) {
    let flag = if modern { &shared.modern_era } else { &shared.legacy_era };
    flag.store(true, Ordering::SeqCst);
}

/// What a failed `'auto'` start shows of the server's era (the plan then starts once more, on a
/// fresh transport): an answer to `server/discover` that is not a discover result means the
/// handshake era, and so does a server that hangs up on the probe (some handshake-era servers
/// exit on a request before `initialize`); a discover answer that came after rmcp's 10 s probe
/// window (a slow-starting server) means 2026-07-28.
pub fn probe_shows(e: &ClientInitializeError, hung_up: impl Fn(&ClientInitializeError) -> bool) -> Option<Era> {
    match e {
        ClientInitializeError::ExpectedInitResult(_)
        | ClientInitializeError::ExpectedInitResponse(_)
        | ClientInitializeError::UncorrelatedErrorResponse { .. }
        | ClientInitializeError::ConnectionClosed(_) => Some(Era::Legacy),
        ClientInitializeError::TransportError { .. } if hung_up(e) => Some(Era::Legacy),
        ClientInitializeError::ConflictInitResponseId(..) => Some(Era::Modern),
        _ => None,
    }
}

/// Whether an HTTP status answering the `server/discover` probe means "try the handshake": any
/// refusal but an authorization challenge (a handshake-era server may answer 400 "no session
/// yet", 404, 405, even 500).
pub fn probe_refused(status: Option<u16>) -> bool {
    matches!(status, Some(s) if (400..600).contains(&s) && s != 401 && s != 403)
}

/// Whether an HTTP refusal of `initialize` (its status and body) is a modern-only server's: one
/// of the 2026-07-28 revision's errors (-32020, -32021, -32022: a 400), or -32601 (a 404),
/// inside a 4xx other than an authorization challenge.
pub fn http_refuses_handshake(status: Option<u16>, body: &str) -> bool {
    if !matches!(status, Some(400..=499)) || matches!(status, Some(401 | 403)) {
        return false;
    }
    serde_json::from_str::<serde_json::Value>(body.trim())
        .ok()
        .and_then(|v| v.pointer("/error/code").and_then(serde_json::Value::as_i64))
        .is_some_and(|code| handshake_first::refuses_handshake(rmcp::model::ErrorCode(code as i32)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_refusal_is_modern_only_when_its_body_says_so() {
        let refusal =
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}"#;
        assert!(http_refuses_handshake(Some(400), refusal));
        // The revision's answer to a request without its header (the conformance suite's stateless mocks).
        let header = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32020,"message":"Missing MCP-Protocol-Version header"}}"#;
        assert!(http_refuses_handshake(Some(400), header));
        let capability = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32021,"message":"Missing capability","data":{"requiredCapabilities":{}}}}"#;
        assert!(http_refuses_handshake(Some(400), capability));
        assert!(http_refuses_handshake(Some(404), r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}"#));
        assert!(!http_refuses_handshake(Some(401), header));
        assert!(!http_refuses_handshake(Some(400), r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Invalid params"}}"#));
        assert!(!http_refuses_handshake(
            Some(400),
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}"#
        ));
        assert!(!http_refuses_handshake(Some(401), refusal));
        assert!(!http_refuses_handshake(Some(500), refusal));
        assert!(!http_refuses_handshake(Some(400), "Bad Request: Server not initialized"));
        assert!(!http_refuses_handshake(Some(400), r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}"#));
    }

    #[test]
    fn the_default_start_is_the_handshake_first() {
        let sink: std::sync::Arc<dyn crate::core::EventSink> = std::sync::Arc::new(crate::core::events::NullSink);
        let mut config = crate::core::ServerConfig::from_json("s", &serde_json::json!({ "command": "x" }));
        let shared = HandlerShared::from_config(&config, sink.clone(), None);
        assert_eq!(start(&shared), Start::HandshakeFirst);
        remember(&shared, true);
        assert_eq!(start(&shared), Start::Discover);
        config.protocol_version = Some(AUTO.into());
        let shared = HandlerShared::from_config(&config, sink, None);
        assert_eq!(start(&shared), Start::Probe);
        remember(&shared, false);
        assert_eq!(start(&shared), Start::HandshakeFirst, "a server that did not take the probe gets the handshake first");
    }
}

//! What the lifecycle tells an operation's trace (`core::observe`) and the face's session
//! metric: a connect as steps (`initialize` and `notifications/initialized`, or
//! `server/discover`), and a session's end with how long it lived.

use std::sync::Arc;

use serde_json::json;

use super::{Connection, Live};
use crate::core::error::Result;
use crate::core::events::EventKind;
use crate::core::observe::{self, Step};
use crate::core::open::starts_stateless;

/// What a traced request's trace needs from before it was sent: what rmcp's transport may
/// change under it, out of the operation's sight (it runs in a task of its own).
pub(super) struct Watch {
    session_id: Option<String>,
    renewals: Option<u64>,
}

impl Connection {
    /// Before a request on `live` (only while a trace is recorded): where it is sent.
    pub(super) fn watch(&self, live: &Live) -> Option<Watch> {
        if !observe::recording() {
            return None;
        }
        let session_id = live.session_id();
        observe::note_session(session_id.clone(), &live.protocol_version, self.http_version());
        Some(Watch { session_id, renewals: self.oauth().map(|s| s.renewals()) })
    }

    /// After it: a Streamable HTTP session the server no longer knew, initialized again inside
    /// rmcp's transport (a 404) with the request sent in the new one; an OAuth token renewed
    /// (expired, or refused with a 401) before it went out.
    pub(super) fn watched(&self, live: &Live, before: Watch) {
        let now = live.session_id();
        if before.session_id.is_some() && now != before.session_id {
            observe::note_event("mcp.client.session_reinitialized", || observe::reason("the server no longer knew the session"));
            observe::note_session(now, &live.protocol_version, None);
        }
        if let (Some(before), Some(session)) = (before.renewals, self.oauth()) {
            if session.renewals() > before {
                observe::note_event("mcp.client.oauth.refresh", || observe::reason("the access token was renewed without the user"));
            }
        }
    }

    /// The connect this operation started at `start_ms`, as its steps.
    pub(super) fn note_connect(&self, start_ms: f64, outcome: &Result<Arc<Live>>) {
        let end_ms = observe::now_ms();
        match outcome {
            Ok(live) => {
                let session_id = live.session_id();
                observe::note_session(session_id.clone(), &live.protocol_version, self.http_version());
                let method = if live.is_modern() { "server/discover" } else { "initialize" };
                let protocol_version = Some(live.protocol_version.clone()).filter(|v| !v.is_empty());
                let step = |method, start_ms| Step {
                    method,
                    start_ms,
                    end_ms,
                    protocol_version: protocol_version.clone(),
                    session_id: session_id.clone(),
                    error: None,
                };
                observe::note_step(step(method, start_ms));
                if !live.is_modern() {
                    // Sent by rmcp as the handshake's last message.
                    observe::note_step(step("notifications/initialized", end_ms));
                }
            }
            Err(e) => {
                let method = if starts_stateless(&self.shared) { "server/discover" } else { "initialize" };
                observe::note_step(Step { method, start_ms, end_ms, protocol_version: None, session_id: None, error: Some(e.to_json()) });
            }
        }
    }

    /// A session ended: closed (`error` None) or found dead. Told once per session, to the face
    /// (its `mcp.client.session.duration`).
    pub(super) fn session_ended(&self, live: &Live, error: Option<&str>) {
        if let Some(seconds) = live.end() {
            self.told_ended(seconds, &live.protocol_version, error);
        }
    }

    /// Tells the face a session ended after `seconds` (a parked one is told by `end_parked`).
    pub(super) fn told_ended(&self, seconds: f64, protocol_version: &str, error: Option<&str>) {
        self.shared.emit(
            EventKind::SessionEnded,
            json!({ "durationS": seconds, "protocolVersion": protocol_version, "error": error, "httpVersion": self.http_version() }),
        );
    }

    /// The HTTP version of this server's requests, when the core's own HTTP client sends them.
    pub(super) fn http_version(&self) -> Option<&'static str> {
        self.remote.as_ref().and_then(|r| r.net.protocol_version())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::core::config::ServerConfig;
    use crate::core::error::{ErrorKind, McpError};
    use crate::core::events::NullSink;

    fn connection(def: Value) -> Connection {
        Connection::new(ServerConfig::from_json("s", &def), 1000, Arc::new(NullSink), None, None)
    }

    fn refused() -> McpError {
        McpError::new(ErrorKind::ConnectFailed, "s", "refused")
    }

    #[tokio::test]
    async fn a_failed_connect_is_one_failed_step_named_by_how_the_session_starts() {
        for (def, method) in [
            (json!({ "command": "node" }), "initialize"),
            (json!({ "command": "node", "protocolVersion": "2025-06-18" }), "initialize"),
            (json!({ "command": "node", "protocolVersion": "2026-07-28" }), "server/discover"),
        ] {
            let conn = connection(def.clone());
            let ((), trace) = observe::scope(true, "tools/list", async { conn.note_connect(observe::now_ms() - 5.0, &Err(refused())) }).await;
            let trace = trace.expect("recorded");
            let [step] = trace.steps.as_slice() else { panic!("one step for {def}: {:?}", trace.steps) };
            assert_eq!(step.method, method, "{def}");
            assert!(step.end_ms >= step.start_ms + 5.0);
            assert_eq!(step.error.as_ref().and_then(|e| e.get("code")).and_then(Value::as_str), Some("CONNECT_FAILED"));
            assert_eq!((step.protocol_version.as_deref(), step.session_id.as_deref()), (None, None));
        }
    }

    #[tokio::test]
    async fn outside_a_recorded_operation_nothing_is_noted() {
        let conn = connection(json!({ "command": "node" }));
        conn.note_connect(observe::now_ms(), &Err(refused()));
        let ((), trace) = observe::scope(false, "tools/list", async { conn.note_connect(observe::now_ms(), &Err(refused())) }).await;
        assert!(trace.is_none());
        assert_eq!(conn.http_version(), None, "a stdio server has no HTTP version");
    }
}

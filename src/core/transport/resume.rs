//! A Streamable HTTP session's way out of rmcp's machinery and back in (see
//! `connection::park`). An idle session is *paused*: rmcp's service and worker end, and the
//! session is not ended on the server (no DELETE). It *resumes* under a new rmcp service whose
//! handshake never reaches the server: the `initialize` the new service sends is answered with
//! what the server said when the session opened, under the same `Mcp-Session-Id`, and the
//! `notifications/initialized` that follows is acknowledged here (the server had it once).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use serde_json::value::RawValue;

/// One session's pause and resume (cheap to clone; clones share it).
#[derive(Clone, Default)]
pub struct Resume(Arc<State>);

#[derive(Default)]
struct State {
    /// The session's `initialize` answer, given once to the resumed service's handshake.
    answer: Mutex<Option<ServerJsonRpcMessage>>,
    /// The handshake was answered here: its `notifications/initialized` is acknowledged here.
    answered: AtomicBool,
    /// The session is being paused: its end must not end it on the server.
    pausing: AtomicBool,
    /// How many `initialize` requests went to the server (rmcp opens a new session after a 404).
    handshakes: AtomicU64,
    /// The `initialize` result the server gave last, when it was read here (`None` when the
    /// latest handshake's answer came on an event stream). Kept as its JSON text: held as a
    /// `Value` (a map per object), it took about 1 KiB a live session (heaptrack).
    latest: Mutex<Option<Box<RawValue>>>,
}

/// What the transport does with a message of a resuming session.
pub enum Local {
    /// Answer it with this, without sending it.
    Answer(Box<ServerJsonRpcMessage>),
    /// Acknowledge it without sending it.
    Accepted,
}

impl Resume {
    /// The way back into a session whose `initialize` was answered with `answer`.
    pub fn with_answer(answer: ServerJsonRpcMessage) -> Self {
        let resume = Resume::default();
        if let Ok(mut slot) = resume.0.answer.lock() {
            *slot = Some(answer);
        }
        resume
    }

    /// The local answer to `message`, if it is the resumed handshake's: its `initialize` (the
    /// first only: an `initialize` after the session expired goes to the server) and the
    /// `notifications/initialized` after it.
    pub fn local(&self, message: &ClientJsonRpcMessage) -> Option<Local> {
        match message {
            JsonRpcMessage::Request(r) if matches!(r.request, ClientRequest::InitializeRequest(_)) => {
                let answer = self.0.answer.lock().ok()?.take()?;
                self.0.answered.store(true, Ordering::SeqCst);
                Some(Local::Answer(Box::new(super::reply::answer_with_id(answer, r.id.clone()))))
            }
            JsonRpcMessage::Notification(n) if matches!(n.notification, ClientNotification::InitializedNotification(_)) => {
                self.0.answered.swap(false, Ordering::SeqCst).then_some(Local::Accepted)
            }
            _ => None,
        }
    }

    /// An `initialize` went to the server (the session is new from here on).
    pub fn handshake_sent(&self) {
        self.0.handshakes.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut latest) = self.0.latest.lock() {
            *latest = None;
        }
    }

    /// The server answered the latest `initialize` with `answer` (read as JSON).
    pub fn handshake_answered(&self, answer: &ServerJsonRpcMessage) {
        let JsonRpcMessage::Response(response) = answer else { return };
        if let (Ok(result), Ok(mut latest)) = (serde_json::value::to_raw_value(&response.result), self.0.latest.lock()) {
            *latest = Some(result);
        }
    }

    /// How many `initialize` requests went to the server.
    pub fn handshakes(&self) -> u64 {
        self.0.handshakes.load(Ordering::SeqCst)
    }

    /// The `initialize` result of the session's latest handshake, if it was read here.
    pub fn latest_answer(&self) -> Option<serde_json::Value> {
        let latest = self.0.latest.lock().ok()?;
        serde_json::from_str(latest.as_ref()?.get()).ok()
    }

    /// The session is about to be paused: its end sends no DELETE.
    pub fn pause(&self) {
        self.0.pausing.store(true, Ordering::SeqCst);
    }

    /// Whether the session is being paused.
    pub fn is_pausing(&self) -> bool {
        self.0.pausing.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn client(message: serde_json::Value) -> ClientJsonRpcMessage {
        serde_json::from_value(message).expect("a client message")
    }

    fn initialize(id: u32) -> ClientJsonRpcMessage {
        client(json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }))
    }

    fn initialized() -> ClientJsonRpcMessage {
        client(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
    }

    fn answer() -> ServerJsonRpcMessage {
        serde_json::from_value(json!({ "jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25", "capabilities": { "tools": {} }, "serverInfo": { "name": "s", "version": "2" } } }))
        .expect("an initialize answer")
    }

    #[test]
    fn the_handshake_is_answered_once_under_the_request_id_and_the_rest_goes_to_the_server() {
        let resume = Resume::with_answer(answer());
        let Some(Local::Answer(answer)) = resume.local(&initialize(7)) else { panic!("answered locally") };
        let JsonRpcMessage::Response(r) = *answer else { panic!("a response") };
        assert_eq!(r.id, rmcp::model::RequestId::Number(7));
        assert!(matches!(resume.local(&initialized()), Some(Local::Accepted)));
        // A second `initialize` (the session expired: rmcp starts a new one) reaches the server,
        // and so does its `initialized`.
        assert!(resume.local(&initialize(8)).is_none());
        assert!(resume.local(&initialized()).is_none());
        let call = client(json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/list" }));
        assert!(resume.local(&call).is_none());
    }

    #[test]
    fn a_session_that_never_paused_answers_nothing_and_ends_on_the_server() {
        let fresh = Resume::default();
        assert!(fresh.local(&initialize(1)).is_none());
        assert!(fresh.local(&initialized()).is_none());
        assert!(!fresh.is_pausing());
        let clone = fresh.clone();
        fresh.pause();
        assert!(clone.is_pausing(), "clones share the pause");
    }
}

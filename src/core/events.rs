//! What flows up from a server: notifications, stderr chunks, diagnostics; and the one
//! server→client request a user answers (elicitation). The core routes them to a sink; the
//! node layer implements the sink over ThreadsafeFunctions.

use futures::future::BoxFuture;
use serde_json::Value;

/// The kinds of events a server produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    Progress,
    ServerLog,
    ResourceUpdated,
    ResourceListChanged,
    ToolListChanged,
    PromptListChanged,
    /// A client-side diagnostic line about this server (connects, failures).
    Diagnostic,
    /// A session ended (`{ durationS, protocolVersion, error, httpVersion }`), for the face's session metric.
    SessionEnded,
}

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Progress => "progress",
            EventKind::ServerLog => "serverLog",
            EventKind::ResourceUpdated => "resourceUpdated",
            EventKind::ResourceListChanged => "resourceListChanged",
            EventKind::ToolListChanged => "toolListChanged",
            EventKind::PromptListChanged => "promptListChanged",
            EventKind::Diagnostic => "diagnostic",
            EventKind::SessionEnded => "sessionEnded",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServerEvent {
    pub server: String,
    pub kind: EventKind,
    pub payload: Value,
}

/// Receives events. Implementations must not block.
pub trait EventSink: Send + Sync + 'static {
    fn emit(&self, event: ServerEvent);
    /// A chunk of a stdio child's stderr (only for `stderr: 'pipe'`).
    fn stderr(&self, server: &str, chunk: Vec<u8>);
}

/// Answers a server's requests for input: `elicitation/create` (a server→client request of the
/// handshake era), a key of a 2026-07-28 `input_required` result, or a task's input request.
/// `key` identifies the request: the embedded request's key, or the JSON-RPC id of a pushed
/// `elicitation/create`. Returns the `ElicitResult` JSON, or a message that becomes an error.
///
/// Dropping the returned future before it resolves means the request is no longer wanted (the
/// call was aborted or timed out, the server cancelled it, or the client disconnected): an
/// implementation tells the user's handler so (the JS face aborts the handler's `signal`).
/// `id` is the request's, unique in the process (`asking::ask` allocates it).
pub trait ElicitationResponder: Send + Sync + 'static {
    fn respond(&self, server: String, key: String, id: u32, params: Value) -> BoxFuture<'static, Result<Value, String>>;

    /// The core stopped waiting for request `id` (its bound ran out, `reason` says so): tells the
    /// user's handler before the wait is dropped (the face aborts its `signal` with a `TimeoutError`).
    fn timed_out(&self, _server: String, _id: u32, _reason: String) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// A sink that drops everything (tests, and clients without listeners).
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: ServerEvent) {}
    fn stderr(&self, _server: &str, _chunk: Vec<u8>) {}
}

//! The trace of one operation, for the face's OpenTelemetry spans: what the core did on the
//! wire while serving it (the request id it sent, the Streamable HTTP session id, the HTTP
//! version), the connect or notifications it sent on the way (`Step`s, each a span of its own),
//! and what it suffered (`Event`s: a reconnect, a retry, the era fallback, a token fetched).
//!
//! Recorded only inside [`scope`] (the binding opens one when the face asked for traces): a task
//! local, so nothing is threaded through the layers, and outside a scope every `note_*` is one
//! failed task-local lookup. The face turns a `Trace` into spans only when a provider is
//! registered; nothing here knows OpenTelemetry.

use std::cell::RefCell;
use std::future::Future;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Map, Value};

tokio::task_local! {
    static CURRENT: RefCell<Trace>;
}

/// What one operation's trace holds (serialized camelCase for the face).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// The operation's MCP method: the request id recorded is that of this method's request.
    #[serde(skip)]
    method: String,
    /// The JSON-RPC id of the (last) request of `method` the core sent, as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The Streamable HTTP session the operation ran in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The MCP revision of the session the operation ran in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The HTTP version the operation's requests went over (`1.1`), when the core knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_protocol_version: Option<&'static str>,
    /// Requests and notifications sent on the way (the connect), each a span of its own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// What happened to the operation on the way.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
}

impl Trace {
    /// The trace of a request written outside any scope (a stdio lane call), with its id.
    pub fn sent(request_id: String) -> Self {
        Trace { request_id: Some(request_id), ..Trace::default() }
    }
}

/// A request or notification sent while serving the operation (times in ms since the epoch).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub method: &'static str,
    pub start_ms: f64,
    pub end_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The failure (`McpError::to_json`), when the step failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

/// Something the operation suffered, at `at_ms` (ms since the epoch).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub name: &'static str,
    pub at_ms: f64,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub attributes: Map<String, Value>,
}

/// Runs `f`, recording its trace when `on` (for `method`, the operation's MCP method).
///
/// Not an `async fn`: one would keep `f` twice (as its argument and as what it awaits), and a
/// traced run inside a task-local scope a third time; `f` is the whole operation (a tool call's
/// future is some 12 KiB), and every call on the async path is a task of that size. Untraced,
/// `f` is held once, inline; traced, the scope is boxed (one allocation a traced operation).
pub fn scope<'a, F: Future + Send + 'a>(on: bool, method: &str, f: F) -> impl Future<Output = (F::Output, Option<Trace>)> + Send + 'a
where
    F::Output: Send,
{
    use futures::future::{Either, FutureExt};
    if !on {
        return Either::Left(f.map(|out| (out, None)));
    }
    let trace = Trace { method: method.to_string(), ..Trace::default() };
    Either::Right(Box::pin(CURRENT.scope(RefCell::new(trace), async move {
        let out = f.await;
        (out, Some(CURRENT.with(|t| t.try_borrow_mut().map(|mut t| std::mem::take(&mut *t)).unwrap_or_default())))
    })))
}

/// Whether a trace is being recorded here.
pub fn recording() -> bool {
    CURRENT.try_with(|_| ()).is_ok()
}

/// Now, in ms since the epoch (what OpenTelemetry's `TimeInput` takes).
pub fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn with(f: impl FnOnce(&mut Trace)) {
    let _ = CURRENT.try_with(|t| {
        if let Ok(mut t) = t.try_borrow_mut() {
            f(&mut t);
        }
    });
}

/// A request of `method` went out with `id` (the operation's own method sets `request_id`).
pub fn note_sent(method: &str, id: impl FnOnce() -> String) {
    with(|t| {
        if t.method == method {
            t.request_id = Some(id());
        }
    });
}

/// Where the operation ran: its Streamable HTTP session, MCP revision and HTTP version (each
/// kept once known).
pub fn note_session(session_id: Option<String>, protocol_version: &str, http_version: Option<&'static str>) {
    with(|t| {
        if !protocol_version.is_empty() {
            t.protocol_version = Some(protocol_version.to_string());
        }
        if session_id.is_some() {
            t.session_id = session_id;
        }
        if http_version.is_some() {
            t.network_protocol_version = http_version;
        }
    });
}

/// A request or notification sent on the operation's way.
pub fn note_step(step: Step) {
    with(|t| t.steps.push(step));
}

/// A notification sent on the operation's way (from `start_ms` to now), `error` if it failed.
pub fn note_notification(method: &'static str, start_ms: f64, error: Option<String>) {
    with(|t| {
        let error = error.map(|message| serde_json::json!({ "code": "NOTIFICATION_FAILED", "message": message }));
        t.steps.push(Step { method, start_ms, end_ms: now_ms(), protocol_version: None, session_id: None, error });
    });
}

/// Something the operation suffered; `attributes` is built only while recording.
pub fn note_event(name: &'static str, attributes: impl FnOnce() -> Map<String, Value>) {
    with(|t| t.events.push(Event { name, at_ms: now_ms(), attributes: attributes() }));
}

/// `{ "reason": … }`, the usual attributes of an event.
pub fn reason(text: impl Into<String>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("reason".into(), Value::String(text.into()));
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn records_only_inside_a_scope_and_only_the_operations_request_id() {
        note_event("outside", Map::new);
        assert!(!recording());
        let ((), trace) = scope(true, "tools/call", async {
            assert!(recording());
            note_sent("initialize", || "0".into());
            note_sent("tools/call", || "7".into());
            note_event("mcp.client.retry", || reason("not sent"));
            note_session(Some("abc".into()), "2025-11-25", Some("1.1"));
        })
        .await;
        let trace = trace.expect("a trace");
        assert_eq!(trace.request_id.as_deref(), Some("7"));
        assert_eq!(trace.session_id.as_deref(), Some("abc"));
        assert_eq!(trace.events.len(), 1);
        let json = serde_json::to_value(&trace).unwrap_or_default();
        assert_eq!(json["networkProtocolVersion"], "1.1");
        assert_eq!(json["protocolVersion"], "2025-11-25");
        assert_eq!(json["events"][0]["attributes"]["reason"], "not sent");
        let ((), none) = scope(false, "tools/call", async { note_sent("tools/call", || "1".into()) }).await;
        assert!(none.is_none());
    }
}

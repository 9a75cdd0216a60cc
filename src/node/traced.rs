//! An operation's trace (`core::observe::Trace`) carried to the face with its result, only once
//! the face asked for traces (`NativeClient::observe_operations`): as a `trace` member of the
//! result's or the error's JSON, so it costs no call of its own.

use napi::{Error, Status};
use serde_json::Value;

use crate::core::observe::{self, Step, Trace};
use crate::core::transport::lane::{LaneError, LaneOutcome};
use crate::core::McpError;

/// `text`, the JSON text of an object, with `"trace": …` added (unchanged without a trace).
pub fn with_trace_text(mut text: String, trace: Option<&Trace>) -> String {
    let Some(trace) = trace.and_then(|t| serde_json::to_string(t).ok()) else { return text };
    if text.ends_with('}') {
        text.pop();
        if !text.ends_with('{') {
            text.push(',');
        }
        text.push_str("\"trace\":");
        text.push_str(&trace);
        text.push('}');
    }
    text
}

/// `value` (an object) with its `trace` member.
pub fn with_trace(mut value: Value, trace: Option<&Trace>) -> Value {
    if let (Some(trace), Some(object)) = (trace.and_then(|t| serde_json::to_value(t).ok()), value.as_object_mut()) {
        object.insert("trace".into(), trace);
    }
    value
}

/// The napi error of a failed operation, its trace inside (see `lib/telemetry.cjs`).
pub fn error_with_trace(e: McpError, trace: Option<&Trace>) -> Error {
    Error::new(Status::GenericFailure, with_trace(e.to_json(), trace).to_string())
}

/// `{ result, mastraMcpTrace }` when traced, the bare result otherwise (results handed to the
/// user as they are: a plain `trace` member could clash with the server's own fields).
pub fn wrapped(value: Value, trace: Option<Trace>) -> Value {
    match trace.and_then(|t| serde_json::to_value(t).ok()) {
        Some(trace) => serde_json::json!({ "result": value, "mastraMcpTrace": trace }),
        None => value,
    }
}

/// The trace of a direct (stdio lane) request: the id it was written with, and the
/// `notifications/cancelled` the lane wrote when the call was cancelled or timed out.
pub fn lane_trace(id: u64, outcome: &LaneOutcome) -> Trace {
    let mut trace = Trace::sent(format!("n{id}"));
    if matches!(outcome, Err(LaneError::Cancelled { .. } | LaneError::Timeout { .. })) {
        let now = observe::now_ms();
        trace.steps.push(Step { method: "notifications/cancelled", start_ms: now, end_ms: now, protocol_version: None, session_id: None, error: None });
    }
    trace
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_is_spliced_into_an_object() {
        let t = lane_trace(3, &Ok(String::new()));
        assert_eq!(with_trace_text("{\"a\":1}".into(), Some(&t)), "{\"a\":1,\"trace\":{\"requestId\":\"n3\"}}");
        assert_eq!(with_trace_text("{}".into(), Some(&t)), "{\"trace\":{\"requestId\":\"n3\"}}");
        assert_eq!(with_trace_text("{}".into(), None), "{}");
    }
}

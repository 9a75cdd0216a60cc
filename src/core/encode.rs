//! What the face receives, as JSON (text where the face parses it itself): fan-out outcomes,
//! a server's tool listing, a settled tool call, an error (`McpError::to_json`), each with its
//! operation's trace (`observe::Trace`) once the face asked for traces. Pure: no I/O.

use serde_json::{json, Value};

use super::connection::lane_error;
use super::error::{McpError, Result};
use super::observe::{self, Step, Trace};
use super::registry::ServerOutcome;
use super::results::{shape_call_result, shape_call_result_text};
use super::transport::lane::{LaneError, LaneOutcome};

/// An operation's result with its trace (`None` when not traced).
pub type Traced<T> = (Result<T>, Option<Trace>);

/// `text`, the JSON text of an object, with `"trace": …` added (unchanged without a trace).
pub fn with_trace_text(mut text: String, trace: Option<&Trace>) -> String {
    let Some(trace) = trace.and_then(|t| serde_json::to_string(t).ok()) else {
        return text;
    };
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

/// The JSON text of a failed operation's error, its trace inside (see `lib/telemetry.cjs`).
pub fn error_json(e: &McpError, trace: Option<&Trace>) -> String {
    with_trace(e.to_json(), trace).to_string()
}

/// `{ result, mastraMcpTrace }` when traced, the bare result otherwise (results handed to the
/// user as they are: a plain `trace` member could clash with the server's own fields).
pub fn wrapped(value: Value, trace: Option<Trace>) -> Value {
    match trace.and_then(|t| serde_json::to_value(t).ok()) {
        Some(trace) => json!({ "result": value, "mastraMcpTrace": trace }),
        None => value,
    }
}

/// A traced operation's result for the face: `wrapped` on success, the error's JSON text else.
pub fn wrapped_or_error(traced: Traced<Value>) -> std::result::Result<Value, String> {
    let (result, trace) = traced;
    match result {
        Ok(value) => Ok(wrapped(value, trace)),
        Err(e) => Err(error_json(&e, trace.as_ref())),
    }
}

/// The trace alone of an operation whose result is nothing (`setRoots`), or its error's JSON text.
pub fn trace_or_error(traced: Traced<()>) -> std::result::Result<Option<Value>, String> {
    let (result, trace) = traced;
    match result {
        Ok(()) => Ok(trace.and_then(|t| serde_json::to_value(t).ok())),
        Err(e) => Err(error_json(&e, trace.as_ref())),
    }
}

/// The trace of a direct (stdio lane) request: the id it was written with, and the
/// `notifications/cancelled` the lane wrote when the call was cancelled or timed out.
pub fn lane_trace(id: u64, outcome: &LaneOutcome) -> Trace {
    let mut trace = Trace::sent(format!("n{id}"));
    if matches!(outcome, Err(LaneError::Cancelled { .. } | LaneError::Timeout { .. } | LaneError::TotalTimeout { .. })) {
        let now = observe::now_ms();
        trace.steps.push(Step {
            method: "notifications/cancelled",
            start_ms: now,
            end_ms: now,
            protocol_version: None,
            session_id: None,
            error: None,
        });
    }
    trace
}

/// A `tools/call` of the async path as the face reads it: the shaped result's JSON text
/// (`{ kind: 'toolError' | 'structured' | 'raw', … }`), or the error's JSON text.
pub fn call_result(server: &str, traced: Traced<Value>) -> std::result::Result<String, String> {
    let (result, trace) = traced;
    match result {
        Ok(result) => Ok(with_trace_text(shape_call_result(server, result).to_string(), trace.as_ref())),
        Err(e) => Err(error_json(&e, trace.as_ref())),
    }
}

/// A direct call's answer from the lane, as `call_result` reads one of the async path
/// (`observed`: with its trace).
pub fn lane_call_result(server: &str, lane_id: u64, outcome: LaneOutcome, observed: bool) -> std::result::Result<String, String> {
    let trace = observed.then(|| lane_trace(lane_id, &outcome));
    match outcome {
        Ok(raw) => Ok(with_trace_text(shape_call_result_text(server, &raw), trace.as_ref())),
        Err(e) => Err(error_json(&lane_error(server, "tools/call", e), trace.as_ref())),
    }
}

/// Fan-out outcomes of lists (each with its trace, when traced):
/// `Array<{ server, ok, value?, error?, durationMs, trace? }>`.
pub fn outcomes_json(outcomes: Vec<ServerOutcome<Traced<Vec<Value>>>>) -> Value {
    let list: Vec<Value> = outcomes
        .into_iter()
        .map(|o| {
            let (result, trace) = o.result.unwrap_or_else(|e| (Err(e), None));
            let entry = match result {
                Ok(v) => json!({ "server": o.server, "ok": true, "value": Value::Array(v), "durationMs": o.duration_ms }),
                Err(e) => json!({ "server": o.server, "ok": false, "error": e.to_json(), "durationMs": o.duration_ms }),
            };
            with_trace(entry, trace.as_ref())
        })
        .collect();
    Value::Array(list)
}

/// Fan-out outcomes whose values are JSON text (each with its trace, when traced), as the JSON
/// text of the outcome array.
pub fn outcomes_text(outcomes: Vec<ServerOutcome<Traced<String>>>) -> String {
    let mut out = String::from("[");
    for (i, o) in outcomes.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let server = Value::String(o.server).to_string();
        let duration = json!(o.duration_ms);
        let (result, trace) = match o.result {
            Ok((result, trace)) => (result, trace),
            Err(e) => (Err(e), None),
        };
        let entry = match result {
            Ok(value) => format!("{{\"server\":{server},\"ok\":true,\"durationMs\":{duration},\"value\":{value}}}"),
            Err(e) => format!("{{\"server\":{server},\"ok\":false,\"durationMs\":{duration},\"error\":{}}}", e.to_json()),
        };
        out.push_str(&with_trace_text(entry, trace.as_ref()));
    }
    out.push(']');
    out
}

/// One server's tool listing as JSON text: its session info (an object), the cache epoch, the
/// key of the tools' text (`toolsKey`: the face parses and keeps one copy per process) and the
/// described tools (`tools_text`, a JSON array; `null` when `None`: the face holds that text's
/// parse already, or asks for it by its key, see `interned::lookup`).
pub fn tool_listing(info: &Value, epoch: u64, tools_key: &str, tools_text: Option<&str>) -> String {
    let tools_text = tools_text.unwrap_or("null");
    let info = info.to_string();
    let mut out = String::with_capacity(info.len() + tools_text.len() + tools_key.len() + 48);
    out.push_str(info.strip_suffix('}').unwrap_or("{"));
    if out.len() > 1 {
        out.push(',');
    }
    out.push_str(&format!("\"epoch\":{epoch},\"toolsKey\":\"{tools_key}\",\"tools\":"));
    out.push_str(tools_text);
    out.push('}');
    out
}

#[cfg(test)]
#[path = "encode/tests.rs"]
mod tests;

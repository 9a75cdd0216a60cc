//! Which first answers of a `tools/call` sent on the stdio lane are final, and which need the
//! async path to finish the call: a 2026-07-28 result that is not `complete` (an
//! `input_required` result of a multi-round-trip request, a task handle), the `-32601`
//! refusal of a tool that must run as a task, and the `-32021` refusal of a call made without a
//! capability the server requires (the Tasks extension, declared on the retry). The check is a scan of the answer's text, not a
//! parse: it may send a final answer down the async path (which then returns it unchanged),
//! never the reverse.

use std::collections::HashMap;
use std::sync::Mutex;

use super::connection::Connection;
use super::transport::lane::{LaneError, LaneOutcome};

/// First answers of lane `tools/call`s that need the async path to finish (see `hand_over`),
/// by the call's context id (a connection slot).
#[derive(Default)]
struct HandedOver(Mutex<HashMap<u32, LaneOutcome>>);

/// Hands the first answer of a `tools/call` written on the lane (e.g. an `input_required`
/// result) to the async path: the next `tools/call` request made with `context` takes it as
/// its answer instead of being sent (`input::request`), so the call is followed up exactly as a
/// call sent by that path, and never sent twice.
pub fn hand_over(conn: &Connection, context: u32, first: LaneOutcome) {
    if let Ok(mut handed) = conn.slots().get::<HandedOver>().0.lock() {
        handed.insert(context, first);
    }
}

/// The handed-over first answer for `context`, once.
pub fn take_handed_over(conn: &Connection, context: u32) -> Option<LaneOutcome> {
    conn.slots().peek::<HandedOver>()?.0.lock().ok().and_then(|mut h| h.remove(&context))
}

/// The JSON-RPC code of a task tool's refusal of a plain call (and of unknown methods).
const METHOD_NOT_FOUND: i64 = -32601;
/// 2026-07-28: the call needs a client capability (an extension) it did not declare.
const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

/// Whether the async path must take over from this first answer.
pub fn needs_follow_up(outcome: &LaneOutcome) -> bool {
    match outcome {
        Ok(raw) => result_types(raw).any(|t| t != Some("complete")) || (raw.contains("\"isError\"") && raw.contains("-32601")),
        Err(LaneError::Rpc { code, .. }) => matches!(*code, METHOD_NOT_FOUND | MISSING_REQUIRED_CLIENT_CAPABILITY),
        Err(_) => false,
    }
}

/// The values of every `"resultType"` member in `raw` (`None` for a value that is not a plain string).
fn result_types(raw: &str) -> impl Iterator<Item = Option<&str>> {
    const KEY: &str = "\"resultType\"";
    raw.match_indices(KEY).map(|(at, _)| {
        let rest = raw[at + KEY.len()..].trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
        let end = rest.find(['"', '\\'])?;
        (rest.as_bytes()[end] == b'"').then(|| &rest[..end])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(raw: &str) -> LaneOutcome {
        Ok(raw.to_string())
    }

    #[test]
    fn plain_and_complete_results_are_final() {
        assert!(!needs_follow_up(&ok(r#"{"content":[{"type":"text","text":"Echo: hi"}]}"#)));
        assert!(!needs_follow_up(&ok(r#"{"content":[],"resultType":"complete"}"#)));
        assert!(!needs_follow_up(&ok(r#"{"content":[], "resultType" : "complete" }"#)));
        assert!(!needs_follow_up(&ok(r#"{"content":[{"type":"text","text":"say \"resultType\""}]}"#)));
        assert!(!needs_follow_up(&ok(r#"{"isError":true,"content":[{"type":"text","text":"disk full"}]}"#)));
    }

    #[test]
    fn input_required_and_other_result_types_are_followed_up() {
        assert!(needs_follow_up(&ok(r#"{"resultType":"input_required","inputRequests":{}}"#)));
        assert!(needs_follow_up(&ok(r#"{"resultType": "task","task":{"taskId":"a"}}"#)));
        assert!(needs_follow_up(&ok(r#"{"resultType":7}"#)));
    }

    #[test]
    fn task_refusals_are_followed_up_and_other_errors_are_final() {
        let refusal = LaneError::Rpc { code: -32601, message: "Tool t requires task augmentation".into(), data: None };
        assert!(needs_follow_up(&Err(refusal)));
        let text = r#"{"isError":true,"content":[{"type":"text","text":"MCP error -32601: requires task augmentation"}]}"#;
        assert!(needs_follow_up(&ok(text)));
        let missing = LaneError::Rpc { code: -32021, message: "Missing required client capability".into(), data: None };
        assert!(needs_follow_up(&Err(missing)));
        assert!(!needs_follow_up(&Err(LaneError::Rpc { code: -32602, message: "bad".into(), data: None })));
        assert!(!needs_follow_up(&Err(LaneError::Timeout { after_ms: 5 })));
        assert!(!needs_follow_up(&Err(LaneError::Cancelled { reason: "stop".into() })));
    }
}

//! Snapshots of what the face parses (`lib/client.cjs`, `lib/tools.cjs`, `lib/errors.cjs`): a
//! change here is a change of the face ↔ binding contract.

use super::*;
use crate::core::error::ErrorKind;

fn outcome<T>(server: &str, result: Result<T>) -> ServerOutcome<Traced<T>> {
    ServerOutcome { server: server.into(), result: Ok((result, None)), duration_ms: 1.5 }
}

#[test]
fn the_trace_is_spliced_into_an_object() {
    let t = lane_trace(3, &Ok(String::new()));
    assert_eq!(with_trace_text("{\"a\":1}".into(), Some(&t)), "{\"a\":1,\"trace\":{\"requestId\":\"n3\"}}");
    assert_eq!(with_trace_text("{}".into(), Some(&t)), "{\"trace\":{\"requestId\":\"n3\"}}");
    assert_eq!(with_trace_text("{}".into(), None), "{}");
    assert_eq!(with_trace(json!({ "a": 1 }), Some(&t)), json!({ "a": 1, "trace": { "requestId": "n3" } }));
    assert_eq!(wrapped(json!([1]), Some(Trace::sent("7".into()))), json!({ "result": [1], "mastraMcpTrace": { "requestId": "7" } }));
    assert_eq!(wrapped(json!([1]), None), json!([1]));
}

#[test]
fn a_cancelled_lane_call_traces_its_cancel_notification() {
    let t = lane_trace(9, &Err(LaneError::Cancelled { reason: "stop".into() }));
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(v["requestId"], "n9");
    assert_eq!(v["steps"][0]["method"], "notifications/cancelled");
}

#[test]
fn list_outcomes_snapshot() {
    let err = McpError::new(ErrorKind::Timeout, "b", "Request timed out after 5 ms (prompts/list on server b)");
    let out = outcomes_json(vec![outcome("a", Ok(vec![json!({ "name": "p" })])), outcome("b", Err(err))]);
    assert_eq!(
        out,
        json!([
            { "server": "a", "ok": true, "value": [{ "name": "p" }], "durationMs": 1.5 },
            { "server": "b", "ok": false, "durationMs": 1.5, "error": {
                "code": "REQUEST_TIMEOUT", "server": "b", "message": "Request timed out after 5 ms (prompts/list on server b)",
                "detail": "Request timed out after 5 ms (prompts/list on server b)", "rpcCode": null, "rpcData": null,
                "httpStatus": null, "duringConnect": false } }
        ])
    );
}

#[test]
fn tool_listing_outcomes_snapshot() {
    let listing = tool_listing(&json!({ "protocolVersion": "2025-06-18", "instructions": null }), 4, "k1", Some("[{\"tool\":{\"name\":\"t\"}}]"));
    assert_eq!(listing, r#"{"protocolVersion":"2025-06-18","instructions":null,"epoch":4,"toolsKey":"k1","tools":[{"tool":{"name":"t"}}]}"#);
    assert_eq!(tool_listing(&json!({}), 0, "k", Some("[]")), r#"{"epoch":0,"toolsKey":"k","tools":[]}"#);
    assert_eq!(tool_listing(&json!({}), 3, "k", None), r#"{"epoch":3,"toolsKey":"k","tools":null}"#);
    let text = outcomes_text(vec![outcome("a", Ok("{\"x\":1}".to_string())), outcome("b", Err(McpError::unknown_server("b")))]);
    let parsed: Value = serde_json::from_str(&text).expect("the outcome text is JSON");
    assert_eq!(parsed[0], json!({ "server": "a", "ok": true, "durationMs": 1.5, "value": { "x": 1 } }));
    assert_eq!(parsed[1]["ok"], false);
    assert_eq!(parsed[1]["error"]["code"], "UNKNOWN_SERVER");
    let failed = ServerOutcome::<Traced<String>> { server: "c".into(), result: Err(McpError::unknown_server("c")), duration_ms: 2.0 };
    let parsed: Value = serde_json::from_str(&outcomes_text(vec![failed])).unwrap();
    assert_eq!(parsed[0]["error"]["server"], "c");
}

#[test]
fn settled_calls_snapshot() {
    let ok = call_result("s", (Ok(json!({ "content": [{ "type": "text", "text": "hi" }] })), Some(Trace::sent("1".into())))).unwrap();
    let ok: Value = serde_json::from_str(&ok).unwrap();
    assert!(ok["kind"].is_string());
    assert_eq!(ok["trace"]["requestId"], "1");
    let err = call_result("s", (Err(McpError::rpc("s", -32602, "MCP error -32602: bad", None)), None)).unwrap_err();
    let err: Value = serde_json::from_str(&err).unwrap();
    assert_eq!(err["code"], "RPC_ERROR");
    assert_eq!(err["rpcCode"], -32602);
    let lane_ok = lane_call_result("s", 5, Ok(r#"{"content":[{"type":"text","text":"hi"}]}"#.into()), true).unwrap();
    let lane_ok: Value = serde_json::from_str(&lane_ok).unwrap();
    assert_eq!(lane_ok["kind"], ok["kind"]);
    assert_eq!(lane_ok["trace"]["requestId"], "n5");
    let lane_err = lane_call_result("s", 5, Err(LaneError::Rpc { code: -32602, message: "bad".into(), data: None }), false).unwrap_err();
    let lane_err: Value = serde_json::from_str(&lane_err).unwrap();
    assert_eq!(lane_err, err, "a lane error reads as the async path's");
}

#[test]
fn every_error_is_the_core_json() {
    let e = McpError::new(ErrorKind::InvalidArguments, "s", "Invalid arguments for tool t on server s: not JSON");
    let v: Value = serde_json::from_str(&error_json(&e, None)).unwrap();
    assert_eq!(v["code"], "INVALID_ARGUMENTS");
    assert_eq!(v["message"], "Invalid arguments for tool t on server s: not JSON");
    assert_eq!(wrapped_or_error((Err(e.clone()), None)).unwrap_err(), error_json(&e, None));
    assert_eq!(trace_or_error((Ok(()), None)).unwrap(), None);
}

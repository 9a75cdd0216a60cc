//! Multi-round-trip requests (MCP 2026-07-28): a server that needs input before it can finish a
//! request (`tools/call`, `prompts/get`, `resources/read`) answers with
//! `resultType: "input_required"` and embedded requests. The client answers each — elicitation
//! through the user's handler, roots from the configuration — and sends the request again with
//! `inputResponses` and the opaque `requestState`, echoed verbatim.

use serde_json::{Map, Value};

use super::connection::{cancel_reason, lane_error, Connection, RequestOptions};
use super::error::{ErrorKind, McpError, Result};
use super::follow_up::take_handed_over;
use super::handler::answer_requests;
use super::results::strip_envelope;

/// Bound on the rounds of one request.
pub const MAX_ROUNDS: usize = 16;

/// An `input_required` result: what the server asks, and the state to echo.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequired {
    pub requests: Map<String, Value>,
    pub state: Option<Value>,
}

impl InputRequired {
    /// `Some` when `result` is an `input_required` result.
    pub fn parse(result: &Value) -> Option<InputRequired> {
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            return None;
        }
        Some(InputRequired {
            requests: result.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default(),
            state: result.get("requestState").filter(|s| !s.is_null()).cloned(),
        })
    }

    /// The next round's params: the original ones plus the responses and the echoed state.
    pub fn retry_params(&self, mut params: Value, responses: Map<String, Value>) -> Value {
        if let Some(object) = params.as_object_mut() {
            object.insert("inputResponses".into(), Value::Object(responses));
            match &self.state {
                Some(state) => object.insert("requestState".into(), state.clone()),
                None => object.remove("requestState"),
            };
        }
        params
    }
}

/// Sends a request, answering the server's input requests (2026-07-28 `input_required`
/// results) and sending it again with the answers, as often as the server asks (bounded).
pub async fn request(conn: &Connection, method: &str, params: Value, options: RequestOptions) -> Result<Value> {
    let mut params = params;
    for _ in 0..MAX_ROUNDS {
        let raw = request_once(conn, method, params.clone(), options.clone()).await?;
        let result: Value = serde_json::from_str(&raw).map_err(|e| {
            McpError::new(ErrorKind::InvalidResponse, conn.name(), format!("{method} failed on server {}: invalid result ({e})", conn.name()))
        })?;
        let Some(input) = InputRequired::parse(&result) else {
            let mut result = result;
            strip_envelope(&mut result);
            return Ok(result);
        };
        let cancel = options.cancel.clone().unwrap_or_default();
        // The user's answer may take long: an abort (or disconnect) ends the wait.
        let answering = answer_requests(conn.shared(), &input.requests);
        let responses = tokio::select! {
            r = answering => r.map_err(|message| McpError::new(ErrorKind::InvalidState, conn.name(), message))?,
            _ = cancel.cancelled() => return Err(McpError::new(ErrorKind::Aborted, conn.name(), cancel_reason(&options))),
        };
        params = input.retry_params(params, responses);
    }
    Err(McpError::new(
        ErrorKind::InvalidResponse,
        conn.name(),
        format!("Server {} asked for input more than {} times ({method})", conn.name(), MAX_ROUNDS),
    ))
}

/// One round: the connection's request path, unless the lane handed this call's first answer
/// over (`follow_up::hand_over`), which is then its answer (never sent twice). Only a plain call
/// takes it: a 2025-11-25 task call is another request than the one answered.
async fn request_once(conn: &Connection, method: &str, params: Value, options: RequestOptions) -> Result<String> {
    let plain_call = method == "tools/call" && params.get("task").is_none();
    if let Some(first) = options.context.filter(|_| plain_call).and_then(|c| take_handed_over(conn, c)) {
        return first.map_err(|e| lane_error(conn.name(), method, e));
    }
    conn.request_raw(method, params, options).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_input_required_and_builds_the_retry() {
        let result = json!({
            "resultType": "input_required",
            "inputRequests": { "a": { "method": "elicitation/create", "params": { "message": "who?" } } },
            "requestState": "opaque.state",
        });
        let input = InputRequired::parse(&result).expect("input_required");
        assert_eq!(input.requests.len(), 1);
        let mut responses = Map::new();
        responses.insert("a".into(), json!({ "action": "decline" }));
        let params = input.retry_params(json!({ "name": "t", "arguments": {} }), responses);
        assert_eq!(params["requestState"], "opaque.state");
        assert_eq!(params["inputResponses"]["a"]["action"], "decline");
        assert_eq!(params["name"], "t");
        assert_eq!(InputRequired::parse(&json!({ "content": [] })), None);
        assert_eq!(InputRequired::parse(&json!({ "resultType": "complete" })), None);
    }
}

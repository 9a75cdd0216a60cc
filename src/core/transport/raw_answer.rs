//! A request's result kept as the JSON text it came in, beside rmcp's typed message.
//!
//! Everything the face reads of a result is JSON text (`Connection::request_raw`), but rmcp's
//! session worker wants a typed `ServerJsonRpcMessage`: parsed in full, a `tools/list` answer is
//! a tree of maps several times the size of its text (a 10-tool list: ~6 KiB of text, ~40 KiB
//! of maps), built only to be written back to text. When 200 users list their tools at once,
//! those trees are the largest thing alive. So a request sent for its text carries a
//! [`RawAnswer`] (a request extension); the Streamable HTTP transport keeps its result's text
//! there, as a slice of the body it read, and hands rmcp the same answer with an empty result,
//! which routes it to the request as before. An answer that is anything else (an error, a
//! batch, another id) goes to rmcp whole and is read from the typed result as before.

use std::sync::{Arc, Mutex};

use rmcp::model::{ClientJsonRpcMessage, GetExtensions, JsonRpcMessage, RequestId, ServerJsonRpcMessage, ServerResult};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use sse_stream::Sse;

/// Where the transport keeps the text of one request's result.
#[derive(Debug, Clone, Default)]
pub struct RawAnswer(Arc<Mutex<Option<String>>>);

impl RawAnswer {
    /// The result's text, if the transport kept it.
    pub fn take(&self) -> Option<String> {
        self.0.lock().ok()?.take()
    }

    /// Keeps the result of `data` if it is the answer to `id`; true if it was.
    fn keep(&self, id: &RequestId, data: &[u8]) -> bool {
        let Some(result) = result_for(id, data) else { return false };
        match self.0.lock() {
            Ok(mut slot) => {
                *slot = Some(result);
                true
            }
            Err(_) => false,
        }
    }

    /// The answer to `id` in a JSON body, its result kept here and an empty one in its place;
    /// `None` when the body is anything else (it is then parsed whole).
    pub fn keep_json(&self, id: &RequestId, body: &[u8]) -> Option<ServerJsonRpcMessage> {
        self.keep(id, body).then(|| ServerJsonRpcMessage::response(ServerResult::empty(()), id.clone()))
    }

    /// An event of the request's stream: if it carries the answer to `id`, its result is kept
    /// here and the event's data becomes the same answer with an empty result.
    pub fn keep_event(&self, id: &RequestId, event: &mut Sse) {
        let Some(data) = event.data.as_deref() else { return };
        if self.keep(id, data.as_bytes()) {
            let empty = ServerJsonRpcMessage::response(ServerResult::empty(()), id.clone());
            event.data = serde_json::to_string(&empty).ok();
        }
    }
}

/// The request `message` and its slot, if it was sent for its result's text.
pub fn wanted(message: &ClientJsonRpcMessage) -> Option<(RequestId, RawAnswer)> {
    match message {
        JsonRpcMessage::Request(r) => Some((r.id.clone(), r.request.extensions().get::<RawAnswer>()?.clone())),
        _ => None,
    }
}

/// The text of the result of `data` when it is a JSON-RPC result for `id`.
fn result_for(id: &RequestId, data: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Answer<'a> {
        id: Option<RequestId>,
        #[serde(borrow)]
        result: Option<&'a RawValue>,
        method: Option<IgnoredAny>,
        error: Option<IgnoredAny>,
    }
    let answer: Answer = serde_json::from_slice(data).ok()?;
    if answer.method.is_some() || answer.error.is_some() || answer.id.as_ref() != Some(id) {
        return None;
    }
    Some(answer.result?.get().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n)
    }

    #[test]
    fn a_result_for_the_request_is_kept_as_it_came_and_rmcp_gets_it_empty() {
        let slot = RawAnswer::default();
        let body = br#"{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"b","inputSchema":{"z":1,"a":2}}]}}"#;
        let message = slot.keep_json(&id(7), body).expect("the answer to 7");
        assert_eq!(slot.take().as_deref(), Some(r#"{"tools":[{"name":"b","inputSchema":{"z":1,"a":2}}]}"#));
        let JsonRpcMessage::Response(response) = message else { panic!("a response") };
        assert_eq!(response.id, id(7));
        assert!(matches!(response.result, ServerResult::EmptyResult(_)));
        assert_eq!(slot.take(), None, "taken once");
    }

    #[test]
    fn anything_but_a_result_for_the_request_is_left_to_rmcp() {
        let slot = RawAnswer::default();
        for body in [
            &br#"{"jsonrpc":"2.0","id":8,"result":{}}"#[..],
            br#"{"jsonrpc":"2.0","id":"7","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
            br#"[{"jsonrpc":"2.0","id":7,"result":{}}]"#,
            b"not json",
        ] {
            assert!(slot.keep_json(&id(7), body).is_none(), "{}", String::from_utf8_lossy(body));
        }
        assert_eq!(slot.take(), None);
    }

    #[test]
    fn an_event_with_the_answer_is_rewritten_and_others_are_left() {
        let slot = RawAnswer::default();
        let mut note = Sse::default().data(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#);
        let before = note.data.clone();
        slot.keep_event(&id(3), &mut note);
        assert_eq!(note.data, before);
        let mut answer = Sse::default().data(r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"é \"q\""}]}}"#);
        slot.keep_event(&id(3), &mut answer);
        assert_eq!(slot.take().as_deref(), Some(r#"{"content":[{"type":"text","text":"é \"q\""}]}"#));
        let rewritten: ServerJsonRpcMessage = serde_json::from_str(answer.data.as_deref().unwrap_or_default()).expect("a message");
        assert!(matches!(rewritten, JsonRpcMessage::Response(r) if r.id == id(3)));
    }
}

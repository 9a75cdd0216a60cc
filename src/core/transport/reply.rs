//! A server's answer re-addressed to another request id: what a session that answers a request
//! locally (a resumed session's handshake, the era's first request) hands rmcp.

use rmcp::model::{JsonRpcMessage, ServerJsonRpcMessage};

/// `answer` re-addressed to the request `id`.
pub fn answer_with_id(answer: ServerJsonRpcMessage, id: rmcp::model::RequestId) -> ServerJsonRpcMessage {
    match answer {
        JsonRpcMessage::Response(mut r) => {
            r.id = id;
            JsonRpcMessage::Response(r)
        }
        JsonRpcMessage::Error(mut e) => {
            e.id = Some(id);
            JsonRpcMessage::Error(e)
        }
        other => other,
    }
}

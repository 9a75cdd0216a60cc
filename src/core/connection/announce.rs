//! Telling a 2026-07-28 Streamable HTTP server that a request is cancelled. rmcp cancels such a
//! request by closing its response stream and sends no `notifications/cancelled`; the TypeScript
//! SDK (and so `@mastra/mcp` 2.0) does both, "so any spec-compliant server on any transport sees
//! the cancel". This posts the notification beside rmcp's worker, with the session's `_meta`
//! envelope, best effort (an OAuth-authorized server is not told: its token is not at hand here).

use bytes::Bytes;
use rmcp::model::RequestId;

use crate::core::net::{HttpRequest, NetClient};

/// Posts `notifications/cancelled` for one session's requests.
pub struct CancelAnnouncer {
    pub(super) net: NetClient,
    pub(super) url: url::Url,
    pub(super) protocol_version: String,
    /// The session envelope's members (`"k":v,…`).
    pub(super) envelope: String,
}

impl CancelAnnouncer {
    /// The notification's JSON text.
    fn body(&self, id: &RequestId, reason: &str) -> String {
        let id = serde_json::to_string(id).unwrap_or_else(|_| "null".into());
        let reason = serde_json::Value::String(reason.to_string());
        let meta = if self.envelope.is_empty() { String::new() } else { format!(",\"_meta\":{{{}}}", self.envelope) };
        format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id},\"reason\":{reason}{meta}}}}}")
    }

    /// Tells the server that request `id` is cancelled (errors are only logged).
    pub async fn announce(&self, id: &RequestId, reason: &str) {
        let mut request = HttpRequest::new("POST", self.url.clone())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", self.protocol_version.clone());
        request.body = Some(Bytes::from(self.body(id, reason)));
        match self.net.send(request).await {
            Ok(response) if (200..300).contains(&response.status) => {}
            Ok(response) => tracing::debug!(status = response.status, "notifications/cancelled was refused"),
            Err(e) => tracing::debug!("notifications/cancelled could not be sent: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notification_carries_the_id_the_reason_and_the_envelope() {
        let announcer = CancelAnnouncer {
            net: NetClient::new(std::sync::Arc::new(crate::core::net::reqwest_backend::ReqwestBackend::shared()), Default::default(), vec![]),
            url: url::Url::parse("http://127.0.0.1:1/mcp").expect("url"),
            protocol_version: "2026-07-28".into(),
            envelope: "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"".into(),
        };
        let body: serde_json::Value = serde_json::from_str(&announcer.body(&RequestId::Number(7), "replaced")).expect("JSON");
        assert_eq!(body["params"]["requestId"], 7);
        assert_eq!(body["params"]["reason"], "replaced");
        assert_eq!(body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    }
}

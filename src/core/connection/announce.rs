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
    use std::sync::{Arc, Mutex};

    use futures::future::BoxFuture;

    use super::*;
    use crate::core::net::{HttpBackend, HttpResponse, NetError};

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
        assert_eq!(body["method"], "notifications/cancelled");
        assert_eq!(body["jsonrpc"], "2.0");
    }

    /// A backend that records each request and answers with `status`.
    struct Recorder {
        seen: Arc<Mutex<Vec<HttpRequest>>>,
        status: u16,
    }

    impl HttpBackend for Recorder {
        fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, NetError>> {
            if let Ok(mut seen) = self.seen.lock() {
                seen.push(request);
            }
            let status = self.status;
            Box::pin(async move { Ok(HttpResponse { status, headers: Vec::new(), url: None, body: Box::pin(futures::stream::empty()) }) })
        }
        fn follows_redirects(&self) -> bool {
            false
        }
    }

    fn recorded(status: u16, envelope: &str) -> (CancelAnnouncer, Arc<Mutex<Vec<HttpRequest>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let backend = Arc::new(Recorder { seen: seen.clone(), status });
        let announcer = CancelAnnouncer {
            net: NetClient::new(backend, Default::default(), vec![]),
            url: url::Url::parse("http://127.0.0.1:1/mcp").expect("url"),
            protocol_version: "2026-07-28".into(),
            envelope: envelope.into(),
        };
        (announcer, seen)
    }

    #[test]
    fn without_an_envelope_there_is_no_meta_and_ids_and_reasons_keep_their_form() {
        let (announcer, _) = recorded(202, "");
        let text = announcer.body(&RequestId::String("req-\"1\"".into()), "said \"stop\"");
        let body: serde_json::Value = serde_json::from_str(&text).expect("JSON, quotes escaped");
        assert_eq!(body["params"]["requestId"], "req-\"1\"");
        assert_eq!(body["params"]["reason"], "said \"stop\"");
        assert!(body["params"].get("_meta").is_none(), "{text}");
    }

    #[tokio::test]
    async fn the_notification_is_posted_to_the_session_url_with_its_headers() {
        let (announcer, seen) = recorded(202, "");
        announcer.announce(&RequestId::Number(3), "gone").await;
        // A refusal is only logged (best effort): it returns like an accepted one.
        let (refused, refused_seen) = recorded(500, "");
        refused.announce(&RequestId::Number(4), "gone").await;
        assert_eq!(refused_seen.lock().map(|s| s.len()).ok(), Some(1));
        let seen = seen.lock().expect("recorded");
        let [request] = seen.as_slice() else { panic!("one POST: {}", seen.len()) };
        assert_eq!(request.method, "POST");
        assert_eq!(request.url.as_str(), "http://127.0.0.1:1/mcp");
        let header = |name: &str| request.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
        assert_eq!(header("content-type"), Some("application/json"));
        assert_eq!(header("accept"), Some("application/json, text/event-stream"));
        assert_eq!(header("mcp-protocol-version"), Some("2026-07-28"));
        let body: serde_json::Value = serde_json::from_slice(request.body.as_deref().unwrap_or_default()).expect("a JSON body");
        assert_eq!(body["params"]["requestId"], 3);
    }
}

//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp does not have: a GET event stream
//! that first announces a POST `endpoint`, then carries every server message; each client
//! message is POSTed to that endpoint. The endpoint must be on the stream's origin.

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt;
use rmcp::model::{GetExtensions, JsonRpcMessage};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::{Error as SseError, Sse, SseStream};

use super::posted::Posted;
use super::reachability::SendDeadline;
use super::streamable::FetchContext;
use crate::core::net::{HttpRequest, NetClient, NetError};

type Events = BoxStream<'static, Result<Sse, SseError>>;

pub struct SseTransport {
    net: NetClient,
    endpoint: url::Url,
    events: Option<Events>,
}

/// Scheduler turns given to the HTTP client's connection task after the stream is dropped.
const CLOSE_YIELDS: usize = 8;
/// How long a POST without a request deadline (a notification, a response) waits for its
/// acknowledgment: a server that never answers a POST (server-everything does not, for a session
/// it does not know) must not hold the send forever.
const POST_BOUND: std::time::Duration = std::time::Duration::from_secs(30);

/// Opens the event stream and waits for the `endpoint` event. The caller bounds the wait.

pub async fn connect(url: &url::Url, net: NetClient) -> Result<SseTransport, NetError> {
    let request = HttpRequest::new("GET", url.clone()).header("accept", "text/event-stream");
    let response = net.send(request).await?;
    if !(200..300).contains(&response.status) {
        let status = response.status;
        return Err(NetError::Status { status, body: response.preview().await });
    }
    let content_type = response.header("content-type").unwrap_or_default().to_string();
    if !content_type.to_ascii_lowercase().starts_with("text/event-stream") {
        return Err(NetError::Body(format!(
            "expected an event stream from the SSE endpoint, got {}",
            if content_type.is_empty() { "no content type" } else { &content_type }
        )));
    }
    let mut events: Events = SseStream::from_bytes_stream(response.body).boxed();
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| NetError::Body(format!("malformed SSE stream: {e}")))?;
        if event.event.as_deref() != Some("endpoint") {
            continue;
        }
        let data = event.data.unwrap_or_default();
        let endpoint = url.join(data.trim()).map_err(|e| NetError::Body(format!("invalid endpoint \"{data}\" announced by the SSE server: {e}")))?;
        if endpoint.origin() != url.origin() {
            return Err(NetError::Body(format!(
                "the SSE server announced an endpoint on another origin ({}); refusing to send messages there",
                endpoint.origin().ascii_serialization()
            )));
        }
        return Ok(SseTransport { net, endpoint, events: Some(events) });
    }
    Err(NetError::Body("the SSE stream ended before the server announced its endpoint".into()))
}

impl SseTransport {
    pub fn endpoint(&self) -> &url::Url {
        &self.endpoint
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = NetError;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let net = self.net.clone();
        let endpoint = self.endpoint.clone();
        let (context, posted, deadline) = match &item {
            JsonRpcMessage::Request(r) => {
                let extensions = r.request.extensions();
                (extensions.get::<FetchContext>().map(|c| c.0), extensions.get::<Posted>().cloned(), extensions.get::<SendDeadline>().map(|d| d.at))
            }
            _ => (None, None, None),
        };
        let body = serde_json::to_vec(&item);
        async move {
            let body = body.map_err(|e| NetError::Body(format!("could not encode the message: {e}")))?;
            let mut request =
                HttpRequest::new("POST", endpoint).header("content-type", "application/json").header("accept", "application/json, text/event-stream");
            request.body = Some(Bytes::from(body));
            request.context = context;
            if let Some(posted) = &posted {
                posted.started();
            }
            let bound = deadline.unwrap_or_else(|| tokio::time::Instant::now() + POST_BOUND);
            let response = match tokio::time::timeout_at(bound, net.send(request)).await {
                Ok(Ok(response)) => response,
                Ok(Err(e)) => {
                    if let (NetError::Unreachable(_), Some(posted)) = (&e, &posted) {
                        posted.refused();
                    }
                    return Err(e);
                }
                Err(_) => return Err(NetError::Timeout("the server did not acknowledge the POST in time".into())),
            };
            if (200..300).contains(&response.status) {
                Ok(())
            } else {
                let status = response.status;
                // The endpoint does not know the session (a restarted server): nothing was run.
                if let (404, Some(posted)) = (status, &posted) {
                    posted.refused();
                }
                Err(NetError::Status { status, body: response.preview().await })
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let events = self.events.as_mut()?;
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!("SSE stream failed: {e}");
                    break;
                }
            };
            if !matches!(event.event.as_deref(), None | Some("message")) {
                continue;
            }
            let data = event.data.unwrap_or_default();
            match serde_json::from_str(&data) {
                Ok(message) => return Some(message),
                Err(e) => tracing::warn!("ignoring an SSE message that is not JSON-RPC ({e}): {data}"),
            }
        }
        self.events = None;
        None
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.events = None;
        // Dropping the stream ends its connection in the HTTP client's own task: let it run before
        // a reconnect opens the next stream, so that a server which keeps one SSE transport (as
        // @mastra/mcp's MCPServer does) sees the old stream end first.
        for _ in 0..CLOSE_YIELDS {
            tokio::task::yield_now().await;
        }
        Ok(())
    }
}

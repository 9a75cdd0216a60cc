//! Streamable HTTP: rmcp's transport (sessions, re-init on expiry, the GET listener, DELETE on
//! close) driven by our own HTTP client, so every request goes through the host policy and the
//! chosen backend, and failures keep their real HTTP status.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse,
};
use rmcp::transport::StreamableHttpClientTransport;
use sse_stream::{Sse, SseStream};

use super::answer_watch::AnswerWatch;
use super::envelope::add_to_handshake;
use super::listener::{InFlight, Listener, QUIET_BEFORE_LISTENING};
use super::raw_answer;
use super::reachability::{Reachability, SendDeadline, Turn};
use super::reply::answer_with_id;
use super::resume::{Local, Resume};
use crate::core::net::{HttpRequest, HttpResponse, NetClient, NetError};

const JSON_LIMIT: usize = 256 * 1024 * 1024;
const SESSION_HEADER: &str = "mcp-session-id";

/// Attached (as a request extension) to requests made on behalf of a user operation, so a JS
/// `fetch` receives that operation's request context.
#[derive(Debug, Clone, Copy)]
pub struct FetchContext(pub u32);

/// Reads the `WWW-Authenticate` header of a 403: `Some(the scope it names)` when it asks for
/// more scope. The transport does not know the authorization vocabulary: the auth layer gives
/// this (`auth::challenge::scope_refusal`), and the header is handed up as it came.
pub type ScopeRefusal = fn(&str) -> Option<Option<String>>;

/// Our `StreamableHttpClient`: one per session.
#[derive(Clone)]
pub struct McpHttp {
    pub net: NetClient,
    /// The session id the server assigned (for `sessionIds`).
    pub session: Arc<Mutex<Option<String>>>,
    /// Tells a 403 that asks for more scope from any other 403.
    pub scope_refusal: ScopeRefusal,
    /// Response headers that travel up with a 401's challenge, appended to it as `name="value"`
    /// parameters (given by the auth layer, `auth::challenge::CHALLENGE_HEADERS`).
    pub challenge_headers: &'static [&'static str],
    /// When the session's GET stream goes out, and the streams open (see `listener`).
    pub listener: Listener,
    /// `server/discover` answers known from before: such a request is answered without being sent.
    pub discover: Option<Arc<dyn DiscoverAnswers>>,
    /// Whether the server can be reached: a request that could not be sent waits on it.
    pub reach: Reachability,
    /// How this session pauses and resumes (see `resume`).
    pub resume: Resume,
}

/// What is known of a server's `server/discover` answers (the era layer keeps them).
pub trait DiscoverAnswers: Send + Sync {
    /// An answer that may be reused now, if any (its id is replaced).
    fn known(&self) -> Option<ServerJsonRpcMessage>;
    /// The server answered a `server/discover`.
    fn remember(&self, answer: &ServerJsonRpcMessage);
}

/// The id of a `server/discover` request.
pub fn discover_request_id(message: &ClientJsonRpcMessage) -> Option<rmcp::model::RequestId> {
    match message {
        JsonRpcMessage::Request(r) if matches!(r.request, rmcp::model::ClientRequest::DiscoverRequest(_)) => Some(r.id.clone()),
        _ => None,
    }
}

/// How long DELETE waits for the session's GET stream to close.
const STREAMS_CLOSE_BOUND: std::time::Duration = std::time::Duration::from_millis(500);
/// Time for the server to see the GET stream's connection close before the DELETE arrives: a
/// DELETE that finds the stream still open makes FastMCP servers on `mcp` 1.x log a traceback
/// from their stream writer.
const SERVER_SEES_CLOSE: std::time::Duration = std::time::Duration::from_millis(50);

/// rmcp's Streamable HTTP transport over `client` (our `McpHttp`, possibly wrapped in rmcp's
/// OAuth `AuthClient`).
pub fn transport<C: StreamableHttpClient>(url: &url::Url, client: C) -> StreamableHttpClientTransport<C> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    StreamableHttpClientTransport::with_client(client, config)
}

fn context_of(message: &ClientJsonRpcMessage) -> Option<u32> {
    match message {
        JsonRpcMessage::Request(r) => r.request.extensions().get::<FetchContext>().map(|c| c.0),
        _ => None,
    }
}

fn is_media(content_type: Option<&str>, media: &str) -> bool {
    content_type.and_then(|ct| ct.split(';').next()).is_some_and(|m| m.trim().eq_ignore_ascii_case(media))
}

type HttpResult<T> = Result<T, StreamableHttpError<NetError>>;

impl McpHttp {
    fn request(
        &self,
        method: &str,
        uri: &str,
        session_id: Option<&str>,
        bearer: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<HttpRequest> {
        let url = url::Url::parse(uri).map_err(|e| StreamableHttpError::Client(NetError::Connect(format!("invalid URL {uri}: {e}"))))?;
        let mut req = HttpRequest::new(method, url);
        for (k, v) in custom {
            if let Ok(v) = v.to_str() {
                req.set_header(k.as_str(), v);
            }
        }
        if let Some(token) = bearer {
            req.set_header("authorization", format!("Bearer {token}"));
        }
        if let Some(id) = session_id {
            req.set_header(SESSION_HEADER, id);
        }
        Ok(req)
    }

    /// Sends a POST; one that could not reach the server (no connection could be opened) waits
    /// for it and goes again, within its deadline (see `reachability`); without a deadline, or
    /// once its time is up, it fails saying it was never sent.
    async fn send_when_reachable(&self, req: HttpRequest, deadline: Option<SendDeadline>) -> HttpResult<HttpResponse> {
        let mut probe = None;
        loop {
            let sent = self.send(req.clone()).await;
            let detail = match sent {
                Err(StreamableHttpError::Client(NetError::Unreachable(detail))) => detail,
                other => {
                    if other.is_ok() {
                        self.reach.up();
                    }
                    return other;
                }
            };
            self.reach.unreachable(probe.take().is_some());
            let Some(deadline) = deadline else { return Err(StreamableHttpError::Client(NetError::Unreachable(detail))) };
            match self.reach.turn(&deadline).await {
                Turn::Send(turn) => probe = Some(turn),
                Turn::GiveUp(down) => {
                    let ms = down.as_millis();
                    return Err(StreamableHttpError::Client(NetError::Unreachable(format!(
                        "not sent: the server was unreachable for {ms} ms ({detail})"
                    ))));
                }
            }
        }
    }

    /// A request refused with the 2026-07-28 revision's `UnsupportedProtocolVersion` (400,
    /// -32022) whose `supported` list names the version it was sent with (its
    /// `MCP-Protocol-Version` header) is sent once more, as the revision asks (retry with a
    /// version the server offers: this client speaks one stateless revision, so the offer it can
    /// take is that one). Any other 400 comes back as it was (its body read, up to 64 KiB).
    async fn again_if_version_offered(&self, response: HttpResponse, req: HttpRequest, deadline: Option<SendDeadline>) -> HttpResult<HttpResponse> {
        let Some(sent) = req.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version")).map(|(_, v)| v.clone()) else {
            return Ok(response);
        };
        let (status, headers, url) = (response.status, response.headers.clone(), response.url.clone());
        let body = response.bytes(64 * 1024).await.unwrap_or_default();
        if offers_version(&body, &sent) {
            tracing::debug!("the server refused protocol version {sent} but lists it as supported; sending the request once more");
            return self.send_when_reachable(req, deadline).await;
        }
        Ok(HttpResponse { status, headers, url, body: futures::stream::once(async move { Ok(body) }).boxed() })
    }

    /// The `initialize` request's body, with the headers every 2026-07-28 request carries
    /// (`Mcp-Method`, `MCP-Protocol-Version` with the version it asks for) and the same facts in
    /// its `_meta` (`envelope::add_to_handshake`): a server of that revision then refuses the
    /// handshake by its own rules and names what it supports (the era layer moves on), and a
    /// handshake-era server answers as it always did.
    fn handshake_body(&self, message: &ClientJsonRpcMessage, req: &mut HttpRequest) -> serde_json::Result<Vec<u8>> {
        let mut value = serde_json::to_value(message)?;
        if let Some(version) = add_to_handshake(&mut value) {
            req.set_header("mcp-protocol-version", version);
        }
        req.set_header("mcp-method", "initialize");
        serde_json::to_vec(&value)
    }

    async fn send(&self, req: HttpRequest) -> HttpResult<HttpResponse> {
        let response = self.net.send(req).await.map_err(StreamableHttpError::Client)?;
        if let Some(id) = response.header(SESSION_HEADER) {
            if let Ok(mut s) = self.session.lock() {
                *s = Some(id.to_string());
            }
        }
        Ok(response)
    }
}

/// Maps an unusable status to an error, reading a short body preview for the message.
async fn status_error(response: HttpResponse, scope_refusal: ScopeRefusal, challenge_headers: &[&str]) -> StreamableHttpError<NetError> {
    let status = response.status;
    if status == 401 {
        if let Some(challenge) = response.header("www-authenticate") {
            let mut challenge = challenge.to_string();
            for name in challenge_headers {
                if let Some(value) = response.header(name) {
                    challenge.push_str(&format!(", {name}=\"{}\"", value.replace('"', "")));
                }
            }
            return StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge));
        }
    }
    if status == 403 {
        if let Some((challenge, scope)) = response.header("www-authenticate").and_then(|c| Some((c, scope_refusal(c)?))) {
            return StreamableHttpError::InsufficientScope(InsufficientScopeError::new(challenge.to_string(), scope));
        }
    }
    StreamableHttpError::Client(NetError::Status { status, body: response.preview().await })
}

/// Whether a body is a JSON-RPC `UnsupportedProtocolVersion` error (-32022) whose
/// `data.supported` names `version`.
fn offers_version(body: &[u8], version: &str) -> bool {
    const UNSUPPORTED_PROTOCOL_VERSION: i64 = rmcp::model::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0 as i64;
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(body) else { return false };
    answer.pointer("/error/code").and_then(serde_json::Value::as_i64) == Some(UNSUPPORTED_PROTOCOL_VERSION)
        && answer
            .pointer("/error/data/supported")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|offered| offered.iter().any(|v| v.as_str() == Some(version)))
}

/// Whether a 400 answering a request in a session says the server does not know the session.
fn session_unknown(body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    body.contains("server not initialized") || body.contains("no valid session") || body.contains("session not found")
}

fn sse_events(response: HttpResponse) -> BoxStream<'static, Result<Sse, SseError>> {
    SseStream::from_bytes_stream(response.body).boxed()
}

impl McpHttp {
    /// A POST of one message (see `post_message`).
    async fn post(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<StreamableHttpPostResponse> {
        match self.resume.local(&message) {
            Some(Local::Answer(answer)) => {
                let session = self.session.lock().ok().and_then(|s| s.clone());
                return Ok(StreamableHttpPostResponse::Json(*answer, session));
            }
            Some(Local::Accepted) => return Ok(StreamableHttpPostResponse::Accepted),
            None => {}
        }
        let handshake = matches!(&message, JsonRpcMessage::Request(r) if matches!(r.request, rmcp::model::ClientRequest::InitializeRequest(_)));
        if handshake {
            self.resume.handshake_sent();
        }
        let discover = discover_request_id(&message).and_then(|id| Some((id, self.discover.clone()?)));
        // The result's text kept apart from rmcp's message (`raw_answer`), for requests that ask.
        let raw = raw_answer::wanted(&message).filter(|_| discover.is_none());
        if let Some((id, answers)) = &discover {
            if let Some(answer) = answers.known() {
                return Ok(StreamableHttpPostResponse::Json(answer_with_id(answer, id.clone()), None));
            }
        }
        let mut req = self.request("POST", &uri, session_id.as_deref(), auth_header, custom_headers)?;
        req.context = context_of(&message);
        // Only requests get an answer; whatever a server sends back for a notification or a
        // response (some answer 200 with a body instead of 202) is acknowledged.
        let expects_answer = matches!(message, JsonRpcMessage::Request(_));
        req.set_header("accept", "application/json, text/event-stream");
        req.set_header("content-type", "application/json");
        req.body = Some(Bytes::from(if handshake { self.handshake_body(&message, &mut req)? } else { serde_json::to_vec(&message)? }));
        // The session is not quiet while a POST runs (its event stream included).
        let in_flight = self.listener.post_started();
        let deadline = match &message {
            JsonRpcMessage::Request(r) => r.request.extensions().get::<SendDeadline>().copied(),
            _ => None,
        };
        let response = self.send_when_reachable(req.clone(), deadline).await?;
        let response = if response.status == 400 { self.again_if_version_offered(response, req, deadline).await? } else { response };
        let status = response.status;
        if status == 202 || status == 204 || (!expects_answer && (200..300).contains(&status)) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == 404 && session_id.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        // A server restarted under a live session does not know it: TypeScript SDK servers
        // answer 400 "Server not initialized" or "No valid session ID provided". The request was
        // not run, so rmcp may initialize again and send it once more, as after a 404.
        if status == 400 && session_id.is_some() {
            let body = response.preview().await;
            if session_unknown(&body) {
                return Err(StreamableHttpError::SessionExpired);
            }
            return Err(StreamableHttpError::Client(NetError::Status { status, body }));
        }
        if !(200..300).contains(&status) {
            return Err(status_error(response, self.scope_refusal, self.challenge_headers).await);
        }
        let content_type = response.header("content-type").map(str::to_string);
        let session = response.header(SESSION_HEADER).map(str::to_string);
        if is_media(content_type.as_deref(), "text/event-stream") {
            // Counted until the answer comes, here or on the stream that resumes this one.
            let mut watch = AnswerWatch::new(in_flight, self.listener.clone());
            let events = sse_events(response).map(move |mut event| {
                if let Ok(event) = &mut event {
                    watch.observe(event);
                    if let Some((id, raw)) = &raw {
                        raw.keep_event(id, event);
                    }
                }
                event
            });
            return Ok(StreamableHttpPostResponse::Sse(events.boxed(), session));
        }
        if is_media(content_type.as_deref(), "application/json") {
            let body = response.bytes(JSON_LIMIT).await.map_err(StreamableHttpError::Client)?;
            if let Some(message) = raw.and_then(|(id, raw)| raw.keep_json(&id, &body)) {
                return Ok(StreamableHttpPostResponse::Json(message, session));
            }
            let message: ServerJsonRpcMessage = serde_json::from_slice(&body).map_err(|e| {
                StreamableHttpError::UnexpectedServerResponse(
                    format!("the response is not a JSON-RPC message ({e}): {}", String::from_utf8_lossy(&body[..body.len().min(200)])).into(),
                )
            })?;
            if let Some((_, answers)) = &discover {
                answers.remember(&message);
            }
            if handshake {
                self.resume.handshake_answered(&message);
            }
            return Ok(StreamableHttpPostResponse::Json(message, session));
        }
        let preview = response.preview().await;
        Err(StreamableHttpError::UnexpectedServerResponse(
            format!("expected JSON or an event stream, got {} (HTTP {status}): {preview}", content_type.as_deref().unwrap_or("no content type"))
                .into(),
        ))
    }

    /// Ends the session on the server (`@mastra/mcp` never does, and leaks it), once the GET
    /// stream is closed and the server has had a moment to see it go (see `SERVER_SEES_CLOSE`).
    async fn delete(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
        if self.resume.is_pausing() {
            // Paused, not ended: the session resumes under a new service (see `resume`).
            return Ok(());
        }
        if self.listener.until_closed(STREAMS_CLOSE_BOUND).await {
            tokio::time::sleep(SERVER_SEES_CLOSE).await;
        }
        let req = self.request("DELETE", &uri, Some(&session_id), auth_header, custom_headers)?;
        let response = self.send(req).await?;
        match response.status {
            200..=299 | 404 | 405 => Ok(()),
            _ => Err(status_error(response, self.scope_refusal, self.challenge_headers).await),
        }
    }
}

impl StreamableHttpClient for McpHttp {
    type Error = NetError;

    /// Boxed: rmcp's session worker awaits POSTs inline, so an unboxed future (the message, the
    /// request, the HTTP client's own futures) would size the worker task for its whole life.
    fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = HttpResult<StreamableHttpPostResponse>> + Send + '_ {
        Box::pin(self.post(uri, message, session_id, auth_header, custom_headers))
    }

    /// Ends the session on the server (boxed as `post_message` is).
    fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = HttpResult<()>> + Send + '_ {
        Box::pin(self.delete(uri, session_id, auth_header, custom_headers))
    }

    /// The session's own stream waits until something needs it (a resumed one does not, and
    /// takes over the request it resumes). The wait is all a session's GET task holds until
    /// then: the request's own future is boxed, made once the stream is wanted.
    fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = HttpResult<BoxStream<'static, Result<Sse, SseError>>>> + Send + '_ {
        async move {
            let resuming = match last_event_id {
                None => {
                    self.listener.until_wanted(QUIET_BEFORE_LISTENING).await;
                    None
                }
                Some(_) => self.listener.resumed(),
            };
            // Built in a block of its own, so the task's state does not keep it across the GET.
            let req = {
                let mut req = self.request("GET", &uri, session_id.as_deref(), auth_header, custom_headers)?;
                req.set_header("accept", "text/event-stream");
                if let Some(id) = last_event_id {
                    req.set_header("last-event-id", id);
                }
                req
            };
            Box::pin(self.open_stream(req, resuming)).await
        }
    }
}

impl McpHttp {
    /// Sends the GET `req` that opens the session's stream, or resumes one (`resuming`: the
    /// request whose stream it takes over).
    async fn open_stream(&self, req: HttpRequest, resuming: Option<InFlight>) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>> {
        let response = self.send(req).await?;
        if response.status == 405 {
            self.listener.stream_refused();
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if !(200..300).contains(&response.status) {
            self.listener.stream_refused();
            return Err(status_error(response, self.scope_refusal, self.challenge_headers).await);
        }
        if !is_media(response.header("content-type"), "text/event-stream") {
            self.listener.stream_refused();
            return Err(StreamableHttpError::UnexpectedContentType(response.header("content-type").map(str::to_string)));
        }
        let open = self.listener.stream_opened();
        // A resumed stream carries on the wait of the request whose stream it resumes.
        let mut watch = resuming.map(|request| AnswerWatch::new(request, self.listener.clone()));
        Ok(sse_events(response)
            .map(move |event| {
                let _open = &open;
                if let (Some(watch), Ok(event)) = (watch.as_mut(), &event) {
                    watch.observe(event);
                }
                event
            })
            .boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::offers_version;

    #[test]
    fn a_refusal_is_retried_only_when_it_offers_the_version_sent() {
        let refusal = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}"#;
        assert!(offers_version(refusal, "2026-07-28"));
        assert!(!offers_version(refusal, "2025-11-25"));
        assert!(!offers_version(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"supported":["2099-01-01"]}}}"#,
            "2026-07-28"
        ));
        assert!(!offers_version(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Missing header"}}"#, "2026-07-28"));
        assert!(!offers_version(b"Bad Request", "2026-07-28"));
    }
}

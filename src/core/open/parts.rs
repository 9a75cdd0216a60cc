//! What opening a session hands over and works within: the started session (`Opened`), the
//! HTTP side of a `url` server (`Remote`), a Streamable HTTP session's parts that outlive one
//! rmcp service (`SessionParts`) and its HTTP client (`SessionClient`), and the connect's time
//! (`Budget`).

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::Either;
use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::{SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse};
use sse_stream::Sse;

use crate::core::auth::bearer::BearerClient;
use crate::core::auth::OAuthSession;
use crate::core::handler::Handler;
use crate::core::net::NetClient;
use crate::core::transport::lane::Lane;
use crate::core::transport::listener::Listener;
use crate::core::transport::resume::Resume;
use crate::core::transport::streamable::McpHttp;

pub type Service = RunningService<RoleClient, Handler>;

/// The HTTP side of a `url` server, built once per server: its policy-checked client and, when
/// it has an OAuth provider, its OAuth session (which outlives reconnects).
#[derive(Clone)]
pub struct Remote {
    pub net: NetClient,
    pub oauth: Option<Arc<OAuthSession>>,
}

/// A started session plus what the transport knows about it.
pub struct Opened {
    pub service: Service,
    /// The Streamable HTTP session id cell (for `sessionIds`); `None` for stdio and SSE.
    pub http_session: Option<Arc<Mutex<Option<String>>>>,
    /// The request lane of a pipe (stdio) session.
    pub lane: Option<Arc<Lane>>,
    /// A 2026-07-28 session (no handshake).
    pub modern: bool,
    /// When a Streamable HTTP session's GET stream goes out; `None` for stdio and SSE.
    pub listener: Option<Listener>,
    /// A legacy SSE session: its requests carry a `Posted` cell (see `transport::posted`).
    pub sse: bool,
    /// How a Streamable HTTP session without OAuth pauses and resumes (`transport::resume`);
    /// `None` for a session that cannot park.
    pub resume: Option<Resume>,
}

/// What a Streamable HTTP session keeps across its connect attempts (and, parked, across its
/// rmcp services): its id, its GET-stream gate, its way to pause and resume.
pub struct SessionParts<'a> {
    pub session: &'a Arc<Mutex<Option<String>>>,
    pub listener: &'a Listener,
    pub resume: &'a Resume,
}

/// The HTTP client of one Streamable HTTP session: ours (`McpHttp`), carrying the OAuth
/// session's token on every request when the server is protected.
#[derive(Clone)]
pub enum SessionClient {
    Open(McpHttp),
    Protected(BearerClient<McpHttp>),
}

impl SessionClient {
    pub fn new(http: McpHttp, oauth: Option<&Arc<OAuthSession>>) -> Self {
        match oauth {
            Some(session) => SessionClient::Protected(BearerClient::new(http, session.clone())),
            None => SessionClient::Open(http),
        }
    }
}

type HttpResult<T> = Result<T, StreamableHttpError<<McpHttp as StreamableHttpClient>::Error>>;

// Each method hands rmcp our client's future as it is, and the OAuth client's boxed: rmcp's session
// worker holds the future of a request it awaits inside its task, so an inline future the size of
// the larger client's would size every session's task for its whole life.
impl StreamableHttpClient for SessionClient {
    type Error = <McpHttp as StreamableHttpClient>::Error;

    fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = HttpResult<StreamableHttpPostResponse>> + Send + '_ {
        match self {
            SessionClient::Open(c) => Either::Left(c.post_message(uri, message, session_id, auth_header, custom_headers)),
            SessionClient::Protected(c) => Either::Right(Box::pin(c.post_message(uri, message, session_id, auth_header, custom_headers))),
        }
    }

    fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = HttpResult<()>> + Send + '_ {
        match self {
            SessionClient::Open(c) => Either::Left(c.delete_session(uri, session_id, auth_header, custom_headers)),
            SessionClient::Protected(c) => Either::Right(Box::pin(c.delete_session(uri, session_id, auth_header, custom_headers))),
        }
    }

    fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = HttpResult<BoxStream<'static, Result<Sse, SseError>>>> + Send + '_ {
        match self {
            SessionClient::Open(c) => Either::Left(c.get_stream(uri, session_id, last_event_id, auth_header, custom_headers)),
            SessionClient::Protected(c) => Either::Right(Box::pin(c.get_stream(uri, session_id, last_event_id, auth_header, custom_headers))),
        }
    }
}

/// The time a whole connect may take: every attempt of it ends by one deadline.
pub struct Budget {
    pub total_ms: u64,
    pub deadline: tokio::time::Instant,
}

impl Budget {
    pub fn new(total_ms: u64) -> Self {
        Budget { total_ms, deadline: tokio::time::Instant::now() + Duration::from_millis(total_ms) }
    }

    pub fn remaining_ms(&self) -> u64 {
        self.deadline.saturating_duration_since(tokio::time::Instant::now()).as_millis() as u64
    }
}

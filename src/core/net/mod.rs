//! HTTP for every remote request (MCP traffic, and later OAuth): one small request/response
//! model, pluggable backends (reqwest by default, or the user's JS `fetch`), and the
//! `allowedHosts` + redirect policy applied in front of either.

pub mod policy;
pub mod reqwest_backend;

use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::BoxStream;

pub use policy::{HostPolicy, NetClient};

/// An outgoing HTTP request. Bodies are always bytes, so every redirect hop can replay them.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: String,
    pub url: url::Url,
    /// Header names as given; lookups are case-insensitive.
    pub headers: Vec<(String, String)>,
    pub body: Option<Bytes>,
    /// Opaque id of the user operation this request serves (a tool call's request context),
    /// handed to a JS `fetch` as its third argument.
    pub context: Option<u32>,
    /// Follow redirects (under the policy); `false` returns a 3xx response as it is.
    pub follow_redirects: bool,
}

impl HttpRequest {
    pub fn new(method: &str, url: url::Url) -> Self {
        HttpRequest { method: method.to_string(), url, headers: Vec::new(), body: None, context: None, follow_redirects: true }
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.set_header(name, value);
        self
    }

    pub fn set_header(&mut self, name: &str, value: impl Into<String>) {
        self.remove_header(name);
        self.headers.push((name.to_string(), value.into()));
    }

    pub fn remove_header(&mut self, name: &str) {
        self.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
    }
}

pub type BodyStream = BoxStream<'static, Result<Bytes, NetError>>;

pub struct HttpResponse {
    pub status: u16,
    /// Lower-cased header names.
    pub headers: Vec<(String, String)>,
    /// The final URL after any redirects the backend followed itself (empty when unknown).
    pub url: Option<url::Url>,
    pub body: BodyStream,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Reads the whole body, up to `limit` bytes.
    pub async fn bytes(self, limit: usize) -> Result<Bytes, NetError> {
        use futures::StreamExt;
        let mut body = self.body;
        let mut out = Vec::new();
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            if out.len() + chunk.len() > limit {
                return Err(NetError::Body(format!("response body exceeds {limit} bytes")));
            }
            out.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(out))
    }

    /// A short, lossy text preview of the body, for error messages.
    pub async fn preview(self) -> String {
        match self.bytes(64 * 1024).await {
            Ok(b) => {
                let text = String::from_utf8_lossy(&b);
                let text = text.trim();
                if text.chars().count() > 200 {
                    format!("{}…", text.chars().take(200).collect::<String>())
                } else {
                    text.to_string()
                }
            }
            Err(_) => String::new(),
        }
    }
}

/// Why an HTTP exchange failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NetError {
    /// `allowedHosts` or the redirect rules refused the request; `id` is the anchor's error id.
    #[error("{message}")]
    Policy { id: &'static str, message: String },
    /// The server answered with a status we cannot use.
    #[error("HTTP {status}{}", if body.is_empty() { String::new() } else { format!(": {body}") })]
    Status { status: u16, body: String },
    /// No HTTP exchange happened (refused, DNS, TLS, reset before a response).
    #[error("{0}")]
    Connect(String),
    /// No connection could be opened (refused, unreachable, DNS): the request certainly never
    /// reached the server.
    #[error("{0}")]
    Unreachable(String),
    /// The backend gave up waiting.
    #[error("{0}")]
    Timeout(String),
    /// The response body failed mid-way or was unusable.
    #[error("{0}")]
    Body(String),
    /// A user-supplied `fetch` threw or returned something unusable.
    #[error("custom fetch failed: {0}")]
    Fetch(String),
}

impl NetError {
    pub fn status(&self) -> Option<u16> {
        match self {
            NetError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub fn is_policy(&self) -> bool {
        matches!(self, NetError::Policy { .. })
    }
}

/// Sends requests. Implementations: reqwest, and the node layer's JS `fetch` bridge.
pub trait HttpBackend: Send + Sync + 'static {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, NetError>>;
    /// Whether the backend follows redirects itself (a JS `fetch` does; our reqwest does not,
    /// so that every hop goes through the host policy before it is sent).
    fn follows_redirects(&self) -> bool;
    /// The HTTP version this backend speaks (`network.protocol.version`), when it is known.
    fn protocol_version(&self) -> Option<&'static str> {
        None
    }
    /// Closes what the backend keeps open between requests (pooled connections). Called when a
    /// server is disconnected; the backend stays usable.
    fn release(&self) {}
    /// The same backend over connections of its own, when it shares a pool with other servers
    /// (`None`: it has no shared pool).
    fn own_pool(&self) -> Option<SharedBackend> {
        None
    }
}

pub type SharedBackend = Arc<dyn HttpBackend>;

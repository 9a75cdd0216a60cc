//! The default backend: reqwest over rustls, redirects left to the policy layer.
//!
//! Every `url` server of every `MCPClient` in the process shares one reqwest client
//! ([`ReqwestBackend::shared`]): one TLS configuration and root store, and one pool of
//! keep-alive connections per origin. That is safe because nothing of a user rides the
//! connection: credentials (headers, tokens) and the session id go on every request. Idle pooled
//! connections close after [`POOL_IDLE_TIMEOUT`]; a request cancelled mid-way (a disconnect)
//! takes its connection down with it rather than returning it to the pool.
//! [`ReqwestBackend::own`] is a client of one server's own (its pool closes with `release()`).

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::StreamExt;

use super::{HttpBackend, HttpRequest, HttpResponse, NetError};

/// How long a pooled keep-alive connection may sit unused before it is closed.
pub const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// At most this many idle connections are kept per origin (a burst does not leave hundreds open).
const POOL_MAX_IDLE_PER_ORIGIN: usize = 32;

fn build_client() -> Result<reqwest::Client, NetError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(POOL_IDLE_TIMEOUT)
        .pool_max_idle_per_host(POOL_MAX_IDLE_PER_ORIGIN)
        .build()
        .map_err(|e| NetError::Connect(format!("could not build the HTTP client: {e}")))
}

/// The process's shared client, built on first use.
fn process_client() -> Result<reqwest::Client, NetError> {
    static CLIENT: OnceLock<Result<reqwest::Client, NetError>> = OnceLock::new();
    CLIENT.get_or_init(build_client).clone()
}

/// A reqwest client: the process's shared one, or one of its own built on first use.
pub struct ReqwestBackend {
    /// `None` for the shared client.
    own: Option<Mutex<Option<reqwest::Client>>>,
}

impl Default for ReqwestBackend {
    fn default() -> Self {
        ReqwestBackend::shared()
    }
}

impl ReqwestBackend {
    /// A backend over the process's shared client and connection pool.
    pub fn shared() -> Self {
        ReqwestBackend { own: None }
    }

    /// A backend with a client and pool of its own: `release()` drops them, so idle keep-alive
    /// sockets close at once (requests in flight keep their own handle and finish); the next
    /// request builds a fresh client.
    pub fn own() -> Self {
        ReqwestBackend { own: Some(Mutex::new(None)) }
    }

    fn client(&self) -> Result<reqwest::Client, NetError> {
        let Some(own) = &self.own else { return process_client() };
        let mut slot = own.lock().map_err(|_| NetError::Connect("the HTTP client lock is poisoned".into()))?;
        if let Some(client) = slot.as_ref() {
            return Ok(client.clone());
        }
        let client = build_client()?;
        *slot = Some(client.clone());
        Ok(client)
    }
}

fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

impl HttpBackend for ReqwestBackend {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, NetError>> {
        let client = self.client();
        Box::pin(async move {
            let client = client?;
            let method = reqwest::Method::from_bytes(request.method.as_bytes())
                .map_err(|e| NetError::Connect(format!("invalid method {}: {e}", request.method)))?;
            let mut builder = client.request(method, request.url.clone());
            for (k, v) in &request.headers {
                builder = builder.header(k.as_str(), v.as_str());
            }
            if let Some(body) = request.body {
                builder = builder.body(body);
            }
            let response = builder.send().await.map_err(|e| {
                if e.is_timeout() {
                    NetError::Timeout(describe(&e))
                } else if e.is_connect() {
                    NetError::Unreachable(describe(&e))
                } else {
                    // The connection was open: the request may have reached the server.
                    NetError::Connect(format!("may have run: the connection dropped after the request was sent ({})", describe(&e)))
                }
            })?;
            let headers =
                response.headers().iter().filter_map(|(k, v)| v.to_str().ok().map(|v| (k.as_str().to_ascii_lowercase(), v.to_string()))).collect();
            Ok(HttpResponse {
                status: response.status().as_u16(),
                headers,
                url: Some(response.url().clone()),
                body: response.bytes_stream().map(|r| r.map_err(|e| NetError::Body(describe(&e)))).boxed(),
            })
        })
    }

    fn follows_redirects(&self) -> bool {
        false
    }

    /// Built without reqwest's `http2` feature: every exchange is HTTP/1.1.
    fn protocol_version(&self) -> Option<&'static str> {
        Some("1.1")
    }

    fn own_pool(&self) -> Option<super::SharedBackend> {
        self.own.is_none().then(|| std::sync::Arc::new(ReqwestBackend::own()) as super::SharedBackend)
    }

    /// The shared pool is not this server's to close (its idle connections time out); an own
    /// client is dropped.
    fn release(&self) {
        if let Some(Ok(mut slot)) = self.own.as_ref().map(Mutex::lock) {
            slot.take();
        }
    }
}

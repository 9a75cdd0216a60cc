//! The default backend: reqwest over rustls, redirects left to the policy layer.

use std::sync::Mutex;

use futures::future::BoxFuture;
use futures::StreamExt;

use super::{HttpBackend, HttpRequest, HttpResponse, NetError};

/// One server's reqwest client, built on first use. `release()` drops it, and with it its
/// connection pool: idle keep-alive sockets close at once (requests still in flight keep their
/// own handle and finish). The next request builds a fresh client.
#[derive(Default)]
pub struct ReqwestBackend {
    client: Mutex<Option<reqwest::Client>>,
}

impl ReqwestBackend {
    pub fn new() -> Self {
        ReqwestBackend { client: Mutex::new(None) }
    }

    fn client(&self) -> Result<reqwest::Client, NetError> {
        let mut slot = self.client.lock().map_err(|_| NetError::Connect("the HTTP client lock is poisoned".into()))?;
        if let Some(client) = slot.as_ref() {
            return Ok(client.clone());
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| NetError::Connect(format!("could not build the HTTP client: {e}")))?;
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
                } else {
                    NetError::Connect(describe(&e))
                }
            })?;
            let headers = response
                .headers()
                .iter()
                .filter_map(|(k, v)| v.to_str().ok().map(|v| (k.as_str().to_ascii_lowercase(), v.to_string())))
                .collect();
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

    fn release(&self) {
        if let Ok(mut slot) = self.client.lock() {
            slot.take();
        }
    }
}

//! A custom JS `fetch` as an HTTP backend: the request crosses once, the response body is
//! pulled chunk by chunk (so long-lived SSE streams are read incrementally), and dropping the
//! body cancels the JS reader.

use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::StreamExt;
use napi::bindgen_prelude::{Buffer, Promise};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;

use crate::core::net::{HttpBackend, HttpRequest, HttpResponse, NetError, SharedBackend};

#[napi_derive::napi(object)]
pub struct FetchRequest {
    pub server: String,
    pub url: String,
    pub method: String,
    pub headers: Vec<Vec<String>>,
    /// MCP bodies are JSON text; a string (as `@mastra/mcp` passes) can also be replayed by
    /// `fetch` on a 307/308 redirect, which a Buffer body cannot.
    pub body: Option<String>,
    /// The user operation this request serves (a tool call id), for its request context.
    pub context: Option<u32>,
    /// `'follow'` or `'manual'` (the fetch `redirect` option).
    pub redirect: String,
}

#[napi_derive::napi(object)]
pub struct FetchResponse {
    pub status: u32,
    pub headers: Vec<Vec<String>>,
    /// `response.url` (empty when the fetch did not report one).
    pub url: String,
    /// Handle for `read`/`cancel`; absent when there is no body.
    pub body_id: Option<u32>,
    /// Set instead of a response when the fetch failed without opening a connection (the
    /// bridge read `ECONNREFUSED`, `ENOTFOUND`, … in its error): the request never reached the
    /// server, and the core may wait for it (`NetError::Unreachable`).
    pub unreachable: Option<String>,
}

/// `(request) => Promise<FetchResponse>`
pub type FetchFn = ThreadsafeFunction<FetchRequest, Promise<FetchResponse>, FetchRequest, Status, false, true>;
/// `(bodyId) => Promise<Buffer | null>` (null at the end of the body)
pub type ReadFn = ThreadsafeFunction<u32, Promise<Option<Buffer>>, u32, Status, false, true>;
/// `(bodyId) => void`
pub type CancelFn = ThreadsafeFunction<u32, (), u32, Status, false, true>;

pub struct JsFetch {
    pub fetch: Arc<FetchFn>,
    pub read: Arc<ReadFn>,
    pub cancel: Arc<CancelFn>,
}

impl JsFetch {
    /// One backend per server (the face picks that server's `fetch`).
    pub fn backend_for(self: &Arc<Self>, server: &str) -> SharedBackend {
        Arc::new(JsFetchBackend { js: self.clone(), server: server.to_string() })
    }
}

struct JsFetchBackend {
    js: Arc<JsFetch>,
    server: String,
}

/// Cancels the JS body reader if the Rust side stops reading before the end.
struct BodyGuard {
    id: u32,
    cancel: Arc<CancelFn>,
    finished: bool,
}

impl BodyGuard {
    /// The body was read to its end (or failed): nothing to cancel.
    fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for BodyGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.cancel.call(self.id, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

impl HttpBackend for JsFetchBackend {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, NetError>> {
        let js = self.js.clone();
        let server = self.server.clone();
        Box::pin(async move {
            let req = FetchRequest {
                server: server.clone(),
                url: request.url.to_string(),
                method: request.method.clone(),
                headers: request.headers.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect(),
                body: request.body.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()),
                context: request.context,
                redirect: if request.follow_redirects { "follow" } else { "manual" }.to_string(),
            };
            let promise = js.fetch.call_async_catch(req).await.map_err(|e| NetError::Fetch(e.reason.clone()))?;
            let response = promise.await.map_err(|e| NetError::Fetch(e.reason.clone()))?;
            if let Some(why) = response.unreachable {
                return Err(NetError::Unreachable(format!("the fetch for MCP server {server} could not connect: {why}")));
            }
            let headers = response
                .headers
                .into_iter()
                .filter_map(|pair| match pair.as_slice() {
                    [k, v] => Some((k.to_ascii_lowercase(), v.clone())),
                    _ => None,
                })
                .collect();
            let url = url::Url::parse(&response.url).ok();
            let body = match response.body_id {
                None => futures::stream::empty().boxed(),
                Some(id) => {
                    let guard = BodyGuard { id, cancel: js.cancel.clone(), finished: false };
                    futures::stream::unfold(Some((js.read.clone(), guard)), |state| async move {
                        let (read, guard) = state?;
                        let next = match read.call_async_catch(guard.id).await {
                            Ok(p) => p.await,
                            Err(e) => Err(e),
                        };
                        match next {
                            Ok(Some(chunk)) => Some((Ok(Bytes::from(chunk.to_vec())), Some((read, guard)))),
                            Ok(None) => {
                                guard.finish();
                                None
                            }
                            Err(e) => {
                                guard.finish();
                                Some((Err(NetError::Body(format!("reading the fetch response failed: {}", e.reason))), None))
                            }
                        }
                    })
                    .boxed()
                }
            };
            Ok(HttpResponse { status: response.status as u16, headers, url, body })
        })
    }

    fn follows_redirects(&self) -> bool {
        true
    }
}

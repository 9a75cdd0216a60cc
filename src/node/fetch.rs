//! A custom JS `fetch` as an HTTP backend: the request crosses once, the response body is
//! pulled chunk by chunk (so long-lived SSE streams are read incrementally). Each request has an
//! id of its own: dropping the request before its response came aborts the JS fetch (its
//! `signal`), and dropping the body cancels the JS reader, so what the core lets go of is closed
//! on the wire as it is with the built-in client (a replaced stream, an abandoned request).

use std::sync::atomic::{AtomicU32, Ordering};
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
    /// This request's id: its response body is read and cancelled under it, and `cancel(id)`
    /// before the response came aborts the fetch.
    pub id: u32,
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
    /// Handle for `read`/`cancel` (the request's id); absent when there is no body.
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
/// `(id) => void`: aborts the request `id` if its response has not come yet, else cancels its body.
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

/// The id of the next request (process-wide, so ids never meet in one bridge).
static NEXT_REQUEST: AtomicU32 = AtomicU32::new(1);

fn next_request_id() -> u32 {
    // 0 is skipped when the counter wraps.
    loop {
        let id = NEXT_REQUEST.fetch_add(1, Ordering::Relaxed);
        if id != 0 {
            return id;
        }
    }
}

/// Cancels the JS side of a request the Rust side let go of before it settled: the fetch itself
/// (before its response came) or its body reader (before the end of the body).
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
            let id = next_request_id();
            // Armed until the response is handed over: dropping this future aborts the fetch.
            let pending = BodyGuard { id, cancel: js.cancel.clone(), finished: false };
            let req = FetchRequest {
                id,
                server: server.clone(),
                url: request.url.to_string(),
                method: request.method.clone(),
                headers: request.headers.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect(),
                body: request.body.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()),
                context: request.context,
                redirect: if request.follow_redirects { "follow" } else { "manual" }.to_string(),
            };
            let settled = match js.fetch.call_async_catch(req).await {
                Ok(promise) => promise.await,
                Err(e) => Err(e),
            };
            let response = match settled {
                Ok(response) => response,
                Err(e) => {
                    // The fetch settled: there is nothing left to abort.
                    pending.finish();
                    return Err(NetError::Fetch(e.reason.clone()));
                }
            };
            // A body is read (and cancelled) under the request's id: the guard goes with it.
            let guard = match response.body_id {
                Some(body) if body == id => Some(pending),
                Some(body) => {
                    pending.finish();
                    Some(BodyGuard { id: body, cancel: js.cancel.clone(), finished: false })
                }
                None => {
                    pending.finish();
                    None
                }
            };
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
            let body = match guard {
                None => futures::stream::empty().boxed(),
                Some(guard) => futures::stream::unfold(Some((js.read.clone(), guard)), |state| async move {
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
                .boxed(),
            };
            Ok(HttpResponse { status: response.status as u16, headers, url, body })
        })
    }

    fn follows_redirects(&self) -> bool {
        true
    }
}

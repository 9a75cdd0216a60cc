//! JS callbacks behind the core's traits. All are weak (they never keep Node alive) and are
//! called without blocking the JS thread.

use futures::future::BoxFuture;
use napi::bindgen_prelude::{Buffer, Promise};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use serde_json::{json, Value};

use crate::core::{ElicitationResponder, EventSink, ServerEvent};

/// `(event: { server, kind, payload }) => void`
pub type EventFn = ThreadsafeFunction<Value, (), Value, Status, false, true>;
/// `(chunk: { server, data: Buffer }) => void`
pub type StderrFn = ThreadsafeFunction<StderrChunk, (), StderrChunk, Status, false, true>;
/// `(request: { server, key, id, params }) => Promise<ElicitResult>`
pub type ElicitFn = ThreadsafeFunction<Value, Promise<Value>, Value, Status, false, true>;

#[napi_derive::napi(object)]
pub struct StderrChunk {
    pub server: String,
    pub data: Buffer,
}

pub struct JsEventSink {
    pub events: std::sync::Arc<EventFn>,
    /// `None` when no server pipes its stderr.
    pub stderr: Option<StderrFn>,
}

impl EventSink for JsEventSink {
    fn emit(&self, event: ServerEvent) {
        let payload = json!({ "server": event.server, "kind": event.kind.name(), "payload": event.payload });
        self.events.call(payload, ThreadsafeFunctionCallMode::NonBlocking);
    }

    fn stderr(&self, server: &str, chunk: Vec<u8>) {
        if let Some(stderr) = &self.stderr {
            stderr.call(StderrChunk { server: server.to_string(), data: chunk.into() }, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

pub struct JsElicitation {
    pub callback: std::sync::Arc<ElicitFn>,
    /// The event callback: an `inputAborted` event `{ id }` aborts the handler's `signal`.
    pub events: std::sync::Arc<EventFn>,
}

/// Tells the face that an input request is no longer wanted when the wait for its answer is
/// dropped before it settled (the call was aborted, timed out or disconnected).
struct AbortOnDrop {
    events: std::sync::Arc<EventFn>,
    server: String,
    id: u32,
    settled: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.settled {
            let event = json!({ "server": self.server, "kind": "inputAborted", "payload": { "id": self.id } });
            self.events.call(event, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

impl ElicitationResponder for JsElicitation {
    fn respond(&self, server: String, key: String, id: u32, params: Value) -> BoxFuture<'static, Result<Value, String>> {
        let callback = self.callback.clone();
        let guard = AbortOnDrop { events: self.events.clone(), server: server.clone(), id, settled: false };
        Box::pin(async move {
            let mut guard = guard; // moved in whole: dropping the future drops it
            let failed = |reason: String| format!("Elicitation handler for server {server} failed: {reason}");
            let promise = callback
                .call_async_catch(json!({ "server": server, "key": key, "id": id, "params": params }))
                .await
                .map_err(|e| failed(e.reason.clone()));
            let answer = match promise {
                Ok(promise) => promise.await.map_err(|e| failed(e.reason.clone())),
                Err(e) => Err(e),
            };
            guard.settled = true;
            answer
        })
    }

    fn timed_out(&self, server: String, id: u32, reason: String) -> BoxFuture<'static, ()> {
        let events = self.events.clone();
        Box::pin(async move {
            let event = json!({ "server": server, "kind": "inputAborted", "payload": { "id": id, "timedOut": reason } });
            // Awaited: the face has aborted the handler's signal before the failure is answered.
            let _ = events.call_async_catch(event).await;
        })
    }
}

/// Refuses a client whose servers need a callback the face did not give (a server with a custom
/// `fetch`, an OAuth provider or `stderr: 'pipe'`): without it the server would silently go
/// without what its definition asks for.
pub fn check_callbacks(servers: &Value, stderr: bool, fetch: bool, auth: bool) -> napi::Result<()> {
    let definitions = servers.as_object().into_iter().flatten();
    for (name, definition) in definitions {
        let flag = |key: &str| definition.get(key).and_then(Value::as_bool) == Some(true);
        let missing = if flag("customFetch") && !fetch {
            "fetch"
        } else if flag("oauth") && !auth {
            "authProvider"
        } else if definition.get("stderr").and_then(Value::as_str) == Some("pipe") && !stderr {
            "stderr"
        } else {
            continue;
        };
        return Err(napi::Error::from_reason(format!("internal: server {name} needs the {missing} callback, which was not given")));
    }
    Ok(())
}

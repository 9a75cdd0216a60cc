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
/// `(request: { server, params }) => Promise<ElicitResult>`
pub type ElicitFn = ThreadsafeFunction<Value, Promise<Value>, Value, Status, false, true>;

#[napi_derive::napi(object)]
pub struct StderrChunk {
    pub server: String,
    pub data: Buffer,
}

pub struct JsEventSink {
    pub events: EventFn,
    pub stderr: StderrFn,
}

impl EventSink for JsEventSink {
    fn emit(&self, event: ServerEvent) {
        let payload = json!({ "server": event.server, "kind": event.kind.name(), "payload": event.payload });
        self.events.call(payload, ThreadsafeFunctionCallMode::NonBlocking);
    }

    fn stderr(&self, server: &str, chunk: Vec<u8>) {
        let chunk = StderrChunk { server: server.to_string(), data: chunk.into() };
        self.stderr.call(chunk, ThreadsafeFunctionCallMode::NonBlocking);
    }
}

pub struct JsElicitation {
    pub callback: std::sync::Arc<ElicitFn>,
}

impl ElicitationResponder for JsElicitation {
    fn respond(&self, server: String, params: Value) -> BoxFuture<'static, Result<Value, String>> {
        let callback = self.callback.clone();
        Box::pin(async move {
            let promise = callback
                .call_async_catch(json!({ "server": server, "params": params }))
                .await
                .map_err(|e| format!("Elicitation handler for server {server} failed: {}", e.reason))?;
            promise
                .await
                .map_err(|e| format!("Elicitation handler for server {server} failed: {}", e.reason))
        })
    }
}

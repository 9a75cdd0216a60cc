//! JS callbacks behind the core's traits. All are weak (they never keep Node alive) and are
//! called without blocking the JS thread. The ones every client has (events, elicitation, a direct
//! call's completion) are made once per process (`NativeCallbacks`), each payload naming its
//! client; a client's own are made only when one of its servers needs them.

use std::sync::Arc;

use futures::future::BoxFuture;
use napi::bindgen_prelude::{Buffer, Promise};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use serde_json::{json, Value};

use crate::core::tool_call::Settlement;
use crate::core::{ElicitationResponder, EventSink, ServerEvent};

/// `(event: { client, server, kind, payload }) => void`
pub type EventFn = ThreadsafeFunction<Value, (), Value, Status, false, true>;
/// `(chunk: { server, data: Buffer }) => void` (one client's)
pub type StderrFn = ThreadsafeFunction<StderrChunk, (), StderrChunk, Status, false, true>;
/// `(request: { client, server, key, id, params }) => Promise<ElicitResult>`
pub type ElicitFn = ThreadsafeFunction<Value, Promise<Value>, Value, Status, false, true>;

#[napi_derive::napi(object)]
pub struct StderrChunk {
    pub server: String,
    pub data: Buffer,
}

/// A settled direct call, handed to the face's completion callback.
#[napi_derive::napi(object)]
pub struct CallDone {
    pub client: u32,
    pub id: u32,
    pub ok: bool,
    /// The shaped result, or the error (`McpError::to_json`), as JSON text.
    pub json: String,
}

/// `(done: CallDone) => void`
pub type CallDoneFn = ThreadsafeFunction<CallDone, (), CallDone, Status, false, true>;

/// The callbacks every client of the process shares.
pub struct Shared {
    events: EventFn,
    elicit: ElicitFn,
    call_done: CallDoneFn,
}

/// The process's shared callbacks, made once by the face and handed to each `NativeClient`.
#[napi_derive::napi]
pub struct NativeCallbacks {
    pub(crate) shared: Arc<Shared>,
}

#[napi_derive::napi]
impl NativeCallbacks {
    #[napi(constructor)]
    pub fn new(
        #[napi(ts_arg_type = "(event: { client: number; server: string; kind: string; payload: unknown }) => void")] on_event: EventFn,
        #[napi(ts_arg_type = "(request: { client: number; server: string; key: string; id: number; params: unknown }) => Promise<unknown>")]
        on_elicit: ElicitFn,
        #[napi(ts_arg_type = "(done: CallDone) => void")] on_call_done: CallDoneFn,
    ) -> Self {
        NativeCallbacks { shared: Arc::new(Shared { events: on_event, elicit: on_elicit, call_done: on_call_done }) }
    }
}

/// One client's side of the shared callbacks: what it hands the face names it.
#[derive(Clone)]
pub struct ClientCallbacks {
    pub client: u32,
    pub shared: Arc<Shared>,
}

impl ClientCallbacks {
    fn event(&self, server: &str, kind: &str, payload: Value) -> Value {
        json!({ "client": self.client, "server": server, "kind": kind, "payload": payload })
    }

    /// Hands a settled direct call to the face.
    pub fn call_done(&self, id: u32, settlement: Settlement) {
        let (ok, json) = match settlement {
            Ok(json) => (true, json),
            Err(json) => (false, json),
        };
        self.shared.call_done.call(CallDone { client: self.client, id, ok, json }, ThreadsafeFunctionCallMode::NonBlocking);
    }
}

pub struct JsEventSink {
    pub callbacks: ClientCallbacks,
    /// `None` when no server pipes its stderr.
    pub stderr: Option<StderrFn>,
}

impl EventSink for JsEventSink {
    fn emit(&self, event: ServerEvent) {
        let payload = self.callbacks.event(&event.server, event.kind.name(), event.payload);
        self.callbacks.shared.events.call(payload, ThreadsafeFunctionCallMode::NonBlocking);
    }

    fn stderr(&self, server: &str, chunk: Vec<u8>) {
        if let Some(stderr) = &self.stderr {
            stderr.call(StderrChunk { server: server.to_string(), data: chunk.into() }, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// The user's elicitation handlers, through the face; an `inputAborted` event `{ id }` aborts a
/// handler's `signal`.
pub struct JsElicitation {
    pub callbacks: ClientCallbacks,
}

/// Tells the face that an input request is no longer wanted when the wait for its answer is
/// dropped before it settled (the call was aborted, timed out or disconnected).
struct AbortOnDrop {
    callbacks: ClientCallbacks,
    server: String,
    id: u32,
    settled: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.settled {
            let event = self.callbacks.event(&self.server, "inputAborted", json!({ "id": self.id }));
            self.callbacks.shared.events.call(event, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

impl ElicitationResponder for JsElicitation {
    fn respond(&self, server: String, key: String, id: u32, params: Value) -> BoxFuture<'static, Result<Value, String>> {
        let callbacks = self.callbacks.clone();
        let guard = AbortOnDrop { callbacks: self.callbacks.clone(), server: server.clone(), id, settled: false };
        Box::pin(async move {
            let mut guard = guard; // moved in whole: dropping the future drops it
            let failed = |reason: String| format!("Elicitation handler for server {server} failed: {reason}");
            let request = json!({ "client": callbacks.client, "server": server, "key": key, "id": id, "params": params });
            let promise = callbacks.shared.elicit.call_async_catch(request).await.map_err(|e| failed(e.reason.clone()));
            let answer = match promise {
                Ok(promise) => promise.await.map_err(|e| failed(e.reason.clone())),
                Err(e) => Err(e),
            };
            guard.settled = true;
            answer
        })
    }

    fn timed_out(&self, server: String, id: u32, reason: String) -> BoxFuture<'static, ()> {
        let callbacks = self.callbacks.clone();
        Box::pin(async move {
            let event = callbacks.event(&server, "inputAborted", json!({ "id": id, "timedOut": reason }));
            // Awaited: the face has aborted the handler's signal before the failure is answered.
            let _ = callbacks.shared.events.call_async_catch(event).await;
        })
    }
}

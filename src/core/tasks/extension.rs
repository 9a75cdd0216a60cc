//! Tool calls as tasks in the 2026-07-28 era: the Tasks extension (`io.modelcontextprotocol/tasks`).
//! Task creation is server-directed: a client that declares the extension in a request's
//! capabilities may get `resultType: "task"` for its `tools/call`. We follow that task with
//! `tasks/get` at the server's `pollIntervalMs`; a task that needs input lists it in
//! `inputRequests`, answered through the same path as the multi-round-trip `input_required`
//! results (`handler::answer_requests`) and sent back with `tasks/update`, each key once. The final
//! `DetailedTask` carries the tool's result (`completed`) or a JSON-RPC error (`failed`).
//! Abort, timeout and `disconnect()` send `tasks/cancel` (bounded, best effort).

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::{same_session, TaskCall, TaskView};
use futures::future::{BoxFuture, FutureExt};

use crate::core::connection::{Connection, Layer, Live, RequestOptions};
use crate::core::error::{ErrorKind, McpError, Result};
use crate::core::handler::{answer_requests, HandlerShared};
use crate::core::input;

/// The extension's identifier, and how capabilities declare it (shared with the lane's envelope).
pub use crate::core::handler::{declare_tasks_extension as declare_in, declares_tasks_extension as declared_in, TASKS_EXTENSION as EXTENSION};
/// The request `_meta` key of the client's per-request capabilities (2026-07-28).
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// JSON-RPC error: a client capability the request needs was not declared.
const MISSING_CLIENT_CAPABILITY: i64 = -32021;

/// Whether the server declared the Tasks extension (in its `server/discover` capabilities).
pub fn server_declares(live: &Live) -> bool {
    declared_in(&live.server_capabilities())
}

/// A request `_meta` that declares the extension: the client's capabilities plus the extension,
/// over the caller's own `_meta` (if any).
pub fn declaring_meta(shared: &HandlerShared, user: Option<&Value>) -> Value {
    let mut capabilities = shared.capabilities();
    declare_in(&mut capabilities);
    let mut meta = user.and_then(Value::as_object).cloned().unwrap_or_default();
    meta.insert(CLIENT_CAPABILITIES.into(), capabilities);
    Value::Object(meta)
}

/// Whether a JSON-RPC error refuses the call for want of the Tasks extension (-32021 naming it).
fn requires_extension(e: &McpError) -> bool {
    e.rpc_code == Some(MISSING_CLIENT_CAPABILITY)
        && e.rpc_data
            .as_ref()
            .and_then(|d| d.pointer("/requiredCapabilities/extensions"))
            .and_then(Value::as_object)
            .is_some_and(|x| x.contains_key(EXTENSION))
}

/// What a `tasks/get` answer (a `DetailedTask`) or a task handle says.
#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Still running (or a terminal status whose payload we have not fetched yet).
    Working,
    /// Waiting for the client: the server's outstanding requests by key.
    InputRequired(Map<String, Value>),
    Completed(Value),
    Failed(Value),
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
struct Detailed {
    view: TaskView,
    state: State,
}

impl Detailed {
    /// Parses a task handle (`resultType: "task"`) or a `tasks/get` result. A status whose
    /// payload is missing (a handle's `completed`, say) reads as `Working`: the next poll has it.
    fn parse(value: &Value) -> Option<Detailed> {
        let view = TaskView::parse(value)?;
        let state = match view.status.as_str() {
            "input_required" => match value.get("inputRequests").and_then(Value::as_object) {
                Some(requests) => State::InputRequired(requests.clone()),
                None => State::Working,
            },
            "completed" => value.get("result").filter(|r| r.is_object()).map_or(State::Working, |r| State::Completed(r.clone())),
            "failed" => value.get("error").filter(|e| e.is_object()).map_or(State::Working, |e| State::Failed(e.clone())),
            "cancelled" => State::Cancelled,
            _ => State::Working,
        };
        Some(Detailed { view, state })
    }
}

/// Whether a `tools/call` result is a task handle.
fn is_task(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("task")
}

/// `tools/call` in a 2026-07-28 session: declares the extension when the server has it, and
/// follows the task if the server answers with one.
pub async fn call_tool(conn: &Connection, live: &Live, tool: &str, params: Map<String, Value>, options: RequestOptions) -> Result<Value> {
    // What declares the extension: every `tasks/*` request's `_meta`, and the call's own (over
    // the caller's `_meta`) when the server announced the extension or refused the call for want of it.
    let declaring = declaring_meta(conn.shared(), None);
    let declaring_over = |user: Option<&Value>| {
        let mut meta = user.and_then(Value::as_object).cloned().unwrap_or_default();
        meta.extend(declaring.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), v.clone())));
        Value::Object(meta)
    };
    // Made first: the deadline bounds the whole call, the creating request included.
    let mut call = TaskCall::new(conn, tool, options.clone());
    call.task_meta = Some(declaring.clone());
    let mut declared = server_declares(live);
    let result = loop {
        let mut attempt = options.clone();
        if declared {
            attempt.meta = Some(declaring_over(options.meta.as_ref()));
        }
        match input::request(conn, "tools/call", Value::Object(params.clone()), attempt).await {
            // Refused (and so not run) for want of the extension the server did not announce:
            // the same call once more, declaring it.
            Err(e) if !declared && requires_extension(&e) => {
                tracing::debug!(server = %conn.name(), tool = %tool, "tool requires the tasks extension; calling it again declaring it");
                declared = true;
            }
            other => break other?,
        }
    };
    if !is_task(&result) {
        return Ok(result);
    }
    let Some(created) = Detailed::parse(&result) else {
        let server = conn.name();
        return Err(McpError::new(
            ErrorKind::InvalidResponse,
            server,
            format!("Server {server} answered tools/call of tool {tool} with a task but no task id or status"),
        ));
    };
    // Boxed: following a task (the server's choice, rare) does not size every call's future.
    Box::pin(call.follow(created)).await
}

impl TaskCall<'_> {
    /// Follows a task of the extension to its end.
    async fn follow(mut self, mut task: Detailed) -> Result<Value> {
        let server = self.conn.name().to_string();
        let id = task.view.id.clone();
        tracing::debug!(server = %server, task = %id, tool = %self.tool, "task created (tasks extension)");
        let session = self.conn.current().await;
        let _running = Running::register(self.conn.shared().clone(), &id);
        let mut updates = self.conn.shared().task_updates.subscribe();
        let mut poll = task.view.poll.unwrap_or(super::DEFAULT_POLL);
        let mut answered: HashSet<String> = HashSet::new();
        // The handle seeds the state; a terminal or waiting seed has its payload fetched at once.
        let mut wait = matches!(task.view.status.as_str(), "working");
        loop {
            self.report(&task.view);
            match task.state {
                State::Completed(result) => return Ok(result),
                State::Failed(error) => return Err(self.failed(&id, &error)),
                State::Cancelled => {
                    return Err(McpError::new(
                        ErrorKind::Aborted,
                        &server,
                        format!("Task {id} of tool {} was cancelled by server {server}", self.tool),
                    ))
                }
                State::InputRequired(requests) => {
                    let fresh: Map<String, Value> = requests.into_iter().filter(|(key, _)| !answered.contains(key)).collect();
                    if !fresh.is_empty() {
                        self.answer(&id, fresh, &mut answered).await?;
                        wait = false;
                    }
                }
                State::Working => {}
            }
            if wait {
                tokio::select! {
                    _ = tokio::time::sleep(poll) => {}
                    _ = updates.changed() => {}
                    _ = self.cancel.cancelled() => return Err(self.abandon(&id, self.aborted()).await),
                    _ = tokio::time::sleep_until(self.deadline) => return Err(self.abandon(&id, self.timed_out()).await),
                }
            }
            wait = true;
            if !same_session(&session, self.conn.current().await) {
                return Err(McpError::new(
                    ErrorKind::Disconnected,
                    &server,
                    format!("The session with MCP server {server} ended while task {id} of tool {} was running", self.tool),
                ));
            }
            let got = match input::request(self.conn, "tasks/get", json!({ "taskId": id }), self.sub_options(false)).await {
                Ok(v) => v,
                Err(e) => return Err(self.abandon_on(&id, e).await),
            };
            let next = Detailed::parse(&got).ok_or_else(|| {
                McpError::new(ErrorKind::InvalidResponse, &server, format!("Server {server} answered tasks/get for task {id} without a task status"))
            })?;
            poll = next.view.poll.unwrap_or(poll);
            task = Detailed { view: TaskView { id: id.clone(), ..next.view }, state: next.state };
        }
    }

    /// Answers the server's new input requests (the user's elicitation handler, as for any
    /// `input_required`) and sends the answers with `tasks/update`. Bounded by the call's
    /// abort and deadline; a request we cannot answer cancels the task.
    async fn answer(&self, id: &str, requests: Map<String, Value>, answered: &mut HashSet<String>) -> Result<()> {
        let keys: Vec<String> = requests.keys().cloned().collect();
        let responses = tokio::select! {
            r = answer_requests(self.conn.shared(), &requests) => r,
            _ = self.cancel.cancelled() => return Err(self.abandon(id, self.aborted()).await),
            _ = tokio::time::sleep_until(self.deadline) => return Err(self.abandon(id, self.timed_out()).await),
        };
        let responses = match responses {
            Ok(r) => r,
            Err(message) => return Err(self.abandon(id, McpError::new(ErrorKind::InvalidState, self.conn.name(), message)).await),
        };
        // A key is answered once, even if the update fails or later polls still list it.
        answered.extend(keys);
        let params = json!({ "taskId": id, "inputResponses": responses });
        match input::request(self.conn, "tasks/update", params, self.sub_options(false)).await {
            Ok(_) => Ok(()),
            Err(e) => Err(self.abandon_on(id, e).await),
        }
    }

    /// The error of a `failed` task: the server's JSON-RPC error, naming the server and tool.
    fn failed(&self, id: &str, error: &Value) -> McpError {
        let server = self.conn.name();
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(-32603);
        let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
        McpError::rpc(
            server,
            code,
            format!("Task {id} of tool {} on server {server} failed: MCP error {code}: {message}", self.tool),
            error.get("data").cloned(),
        )
    }
}

/// Task ids of this server being followed right now, so that `disconnect()` can cancel them.
struct Running {
    shared: Arc<HandlerShared>,
    id: String,
}

impl Running {
    fn register(shared: Arc<HandlerShared>, id: &str) -> Running {
        if let Ok(mut running) = shared.running_tasks.lock() {
            running.insert(id.to_string());
        }
        Running { shared, id: id.to_string() }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(mut running) = self.shared.running_tasks.lock() {
            running.remove(&self.id);
        }
    }
}

/// The layer's hook: tasks being followed end with the session, and the server hears it first.
pub struct Hook;

impl Layer for Hook {
    fn disconnecting<'a>(&'a self, conn: &'a Connection) -> BoxFuture<'a, ()> {
        cancel_running(conn).boxed()
    }
}

/// Sends `tasks/cancel` for every task of this server being followed (before a disconnect
/// closes the session); bounded, best effort.
pub async fn cancel_running(conn: &Connection) {
    let ids: Vec<String> = conn.shared().running_tasks.lock().map(|r| r.iter().cloned().collect()).unwrap_or_default();
    // Only on a live session: a cancel must not start a new one.
    if ids.is_empty() || conn.current().await.is_none() {
        return;
    }
    let meta = declaring_meta(conn.shared(), None);
    let cancels = ids.iter().map(|id| {
        let options = RequestOptions {
            timeout_ms: Some(super::CANCEL_TIMEOUT.as_millis() as u64),
            meta: Some(meta.clone()),
            verbatim: true,
            ..RequestOptions::default()
        };
        async move {
            if let Err(e) = input::request(conn, "tasks/cancel", json!({ "taskId": id }), options).await {
                tracing::debug!(server = %conn.name(), task = %id, "tasks/cancel on disconnect failed: {e}");
            }
        }
    });
    futures::future::join_all(cancels).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_task_handle() {
        let handle = json!({
            "resultType": "task", "taskId": "t1", "status": "working", "statusMessage": "started",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": 200
        });
        assert!(is_task(&handle));
        let task = Detailed::parse(&handle).expect("a handle");
        assert_eq!(task.view.id, "t1");
        assert_eq!(task.view.message.as_deref(), Some("started"));
        assert_eq!(task.view.poll, Some(std::time::Duration::from_millis(200)));
        assert_eq!(task.state, State::Working);
        assert!(!is_task(&json!({ "resultType": "complete", "content": [] })));
        assert!(!is_task(&json!({ "content": [] })));
    }

    #[test]
    fn parses_each_detailed_status() {
        let base = |status: &str, extra: Value| {
            let mut v = json!({ "resultType": "complete", "taskId": "t", "status": status, "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null });
            if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
                v.extend(extra.clone());
            }
            v
        };
        let ask = json!({ "name": { "method": "elicitation/create", "params": { "message": "who?" } } });
        let parsed = |v: Value| Detailed::parse(&v).expect("a task").state;
        assert_eq!(parsed(base("working", json!({}))), State::Working);
        assert_eq!(
            parsed(base("input_required", json!({ "inputRequests": ask }))),
            State::InputRequired(ask.as_object().cloned().unwrap_or_default())
        );
        let result = json!({ "content": [{ "type": "text", "text": "ok" }], "isError": true });
        assert_eq!(parsed(base("completed", json!({ "result": result }))), State::Completed(result.clone()));
        let error = json!({ "code": -32603, "message": "boom" });
        assert_eq!(parsed(base("failed", json!({ "error": error }))), State::Failed(error.clone()));
        assert_eq!(parsed(base("cancelled", json!({}))), State::Cancelled);
        // A status whose payload is not there yet (a handle's seed) is fetched by the next poll.
        assert_eq!(parsed(base("completed", json!({}))), State::Working);
        assert_eq!(parsed(base("input_required", json!({}))), State::Working);
        assert_eq!(Detailed::parse(&json!({ "resultType": "complete" })), None);
    }

    #[test]
    fn tells_a_missing_extension_refusal() {
        let mut refusal = McpError::rpc(
            "s",
            -32021,
            "Missing required client capability",
            Some(json!({ "requiredCapabilities": { "extensions": { EXTENSION: {} } } })),
        );
        assert!(requires_extension(&refusal));
        refusal.rpc_data = Some(json!({ "requiredCapabilities": { "elicitation": {} } }));
        assert!(!requires_extension(&refusal));
        assert!(!requires_extension(&McpError::rpc("s", -32601, "Method not found", None)));
    }
}

//! Tool calls that run as tasks (MCP 2025-11-25 `tasks`). A tool whose
//! `execution.taskSupport` is `required` (or `optional`, when the caller asks) is called with a
//! `task` parameter; the server answers with a task handle. We follow the task — a
//! `notifications/tasks/status` wakes us early, else `tasks/get` at the server's poll interval —
//! and fetch `tasks/result`, which also carries the server's input requests (elicitation) while
//! the task waits for input. To the caller it stays one call with one result; each new status
//! reaches the caller's progress token. Abort and timeout cancel the task on the server
//! (`tasks/cancel`, best effort); a disconnect ends it with its session.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::connection::{Connection, Live, RequestOptions};
use super::error::{ErrorKind, McpError, Result};
use super::events::EventKind;
use super::input;
use super::tool_cache;

pub mod extension;

/// Poll interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(1000);
/// Bounds on a server-suggested poll interval.
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(30);
/// Bound on the best-effort `tasks/cancel` after an abort or timeout.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// What a task handle or `tasks/get` says about a task.
#[derive(Debug, Clone, PartialEq)]
struct TaskView {
    id: String,
    status: String,
    message: Option<String>,
    poll: Option<Duration>,
}

impl TaskView {
    /// Accepts a `CreateTaskResult` (`{ task: {...} }`) or a task object itself.
    fn parse(value: &Value) -> Option<TaskView> {
        let task = value.get("task").filter(|t| t.is_object()).unwrap_or(value);
        let id = task.get("taskId")?.as_str()?.to_string();
        let status = task.get("status")?.as_str()?.to_string();
        let message = task.get("statusMessage").and_then(Value::as_str).map(str::to_string);
        let poll = task
            .get("pollInterval")
            .or_else(|| task.get("pollIntervalMs"))
            .and_then(Value::as_u64)
            .map(|ms| Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL));
        Some(TaskView { id, status, message, poll })
    }
}

/// `tools/call` with `params` (`name`, `arguments`), as a task when the tool asks for one.
pub async fn call_tool(conn: &Connection, params: Map<String, Value>, options: RequestOptions, caller_asks_task: bool) -> Result<Value> {
    let tool = params.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
    let live = conn.ensure_connected().await?;
    // 2026-07-28: tasks are the server's choice, through the Tasks extension.
    if live.is_modern() {
        return extension::call_tool(conn, &live, &tool, params, options).await;
    }
    let as_task = tool_cache::runs_as_task(conn, &tool, caller_asks_task);
    // Not held across the call: a session the call finds gone must be free to end (see `request_raw`).
    drop(live);
    if !as_task {
        match input::request(conn, "tools/call", Value::Object(params.clone()), options.clone()).await {
            // A tool that requires a task refuses a plain call with -32601 and does not run it
            // (2025-11-25 tasks): one this client knew nothing of (never listed, rebuilt from a
            // definition that does not say) runs as a task from then on.
            Err(e) if e.rpc_code == Some(-32601) && mentions_task(&e.message) => {}
            Ok(result) if is_task_refusal(&result) => {}
            other => return other,
        }
        tracing::debug!(server = %conn.name(), tool = %tool, "tool requires a task; calling it as one");
        tool_cache::mark_task_tool(conn, &tool);
    }
    // Boxed: a task call (rare) does not size every plain call's future.
    Box::pin(TaskCall::new(conn, &tool, options).run(params)).await
}

fn mentions_task(text: &str) -> bool {
    text.to_ascii_lowercase().contains("task")
}

/// The TypeScript SDK reports the -32601 refusal as a tool error result: `isError` with a
/// single text naming the code and the task requirement.
fn is_task_refusal(result: &Value) -> bool {
    if result.get("isError").and_then(Value::as_bool) != Some(true) {
        return false;
    }
    match result.get("content").and_then(Value::as_array).map(Vec::as_slice) {
        Some([only]) => only.get("text").and_then(Value::as_str).is_some_and(|t| t.contains("-32601") && mentions_task(t)),
        _ => false,
    }
}

fn same_session(a: &Option<Arc<Live>>, b: Option<Arc<Live>>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if Arc::ptr_eq(a, &b))
}

/// One tool call running as a task.
struct TaskCall<'a> {
    conn: &'a Connection,
    tool: String,
    timeout_ms: u64,
    deadline: Instant,
    /// When the call started and how long progress may keep it alive (`maxTotalTimeout`), when
    /// progress moves its deadline (`resetTimeoutOnProgress`, progress tracked).
    started: Instant,
    max_total_ms: Option<u64>,
    cancel: CancellationToken,
    reason: Option<Arc<Mutex<String>>>,
    options: RequestOptions,
    /// Progress reported so far (one step per status seen).
    step: u64,
    /// The last status and message reported.
    last: Option<(String, Option<String>)>,
    /// `_meta` of the `tasks/*` requests (the Tasks extension declares itself there).
    task_meta: Option<Value>,
}

impl<'a> TaskCall<'a> {
    fn new(conn: &'a Connection, tool: &str, mut options: RequestOptions) -> Self {
        let timeout_ms = options.timeout_ms.unwrap_or_else(|| conn.request_timeout_ms());
        let cancel = options.cancel.take().unwrap_or_default();
        let reason = options.cancel_reason.take();
        let started = Instant::now();
        let max_total_ms = conn.config().progress_bound(timeout_ms, options.progress_token.is_some(), options.max_total_timeout_ms);
        TaskCall {
            conn,
            tool: tool.to_string(),
            timeout_ms,
            deadline: started + Duration::from_millis(timeout_ms),
            started,
            max_total_ms,
            cancel,
            reason,
            options,
            step: 0,
            last: None,
            task_meta: None,
        }
    }

    /// Options for one request of this call: what is left of the budget, the caller's cancel.
    fn sub_options(&self, first: bool) -> RequestOptions {
        let left = self.deadline.saturating_duration_since(Instant::now()).as_millis().max(1) as u64;
        RequestOptions {
            timeout_ms: Some(left),
            meta: if first { self.options.meta.clone() } else { self.task_meta.clone() },
            cancel: Some(self.cancel.clone()),
            cancel_reason: self.reason.clone(),
            progress_token: if first { self.options.progress_token.clone() } else { None },
            context: self.options.context,
            verbatim: true,
            max_total_timeout_ms: self.options.max_total_timeout_ms,
        }
    }

    async fn run(mut self, mut params: Map<String, Value>) -> Result<Value> {
        let server = self.conn.name().to_string();
        params.insert("task".into(), json!({}));
        let created =
            input::request(self.conn, "tools/call", Value::Object(params), self.sub_options(true)).await.map_err(|e| self.budget_error(e))?;
        let Some(mut task) = TaskView::parse(&created) else {
            // The server ran the call without a task (allowed for `optional` tools).
            return Ok(created);
        };
        tracing::debug!(server = %server, task = %task.id, tool = %self.tool, "task created");
        // The task lives in this session: if it ends (disconnect, crash), so does the call.
        let session = self.conn.current().await;
        let mut updates = self.conn.shared().task_updates.subscribe();
        let mut poll = task.poll.unwrap_or(DEFAULT_POLL);
        loop {
            self.report(&task);
            match task.status.as_str() {
                // `tasks/result` waits for the end and delivers the server's input requests.
                "completed" | "failed" | "input_required" => break,
                "cancelled" => {
                    return Err(McpError::new(
                        ErrorKind::Aborted,
                        &server,
                        format!("Task {} of tool {} was cancelled by server {server}", task.id, self.tool),
                    ))
                }
                _ => {}
            }
            tokio::select! {
                _ = tokio::time::sleep(poll) => {}
                _ = updates.changed() => {}
                _ = self.cancel.cancelled() => return Err(self.abandon(&task.id, self.aborted()).await),
                _ = tokio::time::sleep_until(self.deadline) => return Err(self.abandon(&task.id, self.timed_out()).await),
            }
            if !same_session(&session, self.conn.current().await) {
                return Err(McpError::new(
                    ErrorKind::Disconnected,
                    &server,
                    format!("The session with MCP server {server} ended while task {} of tool {} was running", task.id, self.tool),
                ));
            }
            let got = match input::request(self.conn, "tasks/get", json!({ "taskId": task.id }), self.sub_options(false)).await {
                Ok(v) => v,
                Err(e) => return Err(self.abandon_on(&task.id, e).await),
            };
            let next = TaskView::parse(&got).ok_or_else(|| {
                McpError::new(
                    ErrorKind::InvalidResponse,
                    &server,
                    format!("Server {server} answered tasks/get for task {} without a task status", task.id),
                )
            })?;
            poll = next.poll.unwrap_or(poll);
            task = TaskView { id: task.id, ..next };
        }
        match input::request(self.conn, "tasks/result", json!({ "taskId": task.id }), self.sub_options(false)).await {
            Ok(result) => Ok(result),
            Err(e) => Err(self.abandon_on(&task.id, e).await),
        }
    }

    /// Hands a new status to the caller's progress handler.
    fn report(&mut self, task: &TaskView) {
        let Some(token) = self.options.progress_token.clone() else {
            return;
        };
        let seen = (task.status.clone(), task.message.clone());
        if self.last.as_ref() == Some(&seen) {
            return;
        }
        self.last = Some(seen);
        self.step += 1;
        let mut payload = json!({ "progressToken": token, "progress": self.step });
        if let Some(message) = &task.message {
            payload["message"] = Value::String(message.clone());
        }
        self.conn.shared().emit(EventKind::Progress, payload);
        // Progress gives the call its timeout again, never past its maxTotalTimeout.
        if let Some(max_ms) = self.max_total_ms {
            let cap = self.started + Duration::from_millis(max_ms);
            self.deadline = (Instant::now() + Duration::from_millis(self.timeout_ms)).min(cap);
        }
    }

    fn aborted(&self) -> McpError {
        let reason = self
            .reason
            .as_ref()
            .and_then(|r| r.lock().ok().map(|s| s.clone()))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| super::config::DEFAULT_ABORT_REASON.to_string());
        McpError::new(ErrorKind::Aborted, self.conn.name(), reason)
    }

    fn timed_out(&self) -> McpError {
        let server = self.conn.name();
        if let Some(max_ms) = self.max_total_ms.filter(|max| *max > self.timeout_ms) {
            if self.deadline >= self.started + Duration::from_millis(max_ms) {
                return McpError::new(
                    ErrorKind::Timeout,
                    server,
                    format!(
                        "Request timed out after {max_ms} ms, its maxTotalTimeout: it kept reporting progress, but no call may outlive that bound \
                         (tools/call of task tool {} on server {server})",
                        self.tool
                    ),
                );
            }
        }
        McpError::new(
            ErrorKind::Timeout,
            server,
            format!("Request timed out after {} ms (tools/call of task tool {} on server {server})", self.timeout_ms, self.tool),
        )
    }

    /// A sub-request's timeout is the whole call's timeout.
    fn budget_error(&self, e: McpError) -> McpError {
        if e.kind == ErrorKind::Timeout {
            self.timed_out()
        } else {
            e
        }
    }

    /// A request of a live task failed: abort and timeout cancel the task on the server.
    async fn abandon_on(&self, task_id: &str, e: McpError) -> McpError {
        match e.kind {
            ErrorKind::Aborted | ErrorKind::Timeout => {
                let e = self.budget_error(e);
                self.abandon(task_id, e).await
            }
            _ => e,
        }
    }

    /// Asks the server to cancel the task (bounded, best effort), then returns `e`.
    async fn abandon(&self, task_id: &str, e: McpError) -> McpError {
        let options = RequestOptions {
            timeout_ms: Some(CANCEL_TIMEOUT.as_millis() as u64),
            meta: self.task_meta.clone(),
            verbatim: true,
            context: self.options.context,
            ..RequestOptions::default()
        };
        if let Err(err) = input::request(self.conn, "tasks/cancel", json!({ "taskId": task_id }), options).await {
            tracing::debug!(server = %self.conn.name(), task = %task_id, "tasks/cancel failed: {err}");
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tool_cache::TaskSupport;

    #[test]
    fn task_support_reads_execution() {
        assert_eq!(TaskSupport::of(&json!({ "name": "t", "execution": { "taskSupport": "required" } })), TaskSupport::Required);
        assert_eq!(TaskSupport::of(&json!({ "name": "t", "execution": { "taskSupport": "optional" } })), TaskSupport::Optional);
        assert_eq!(TaskSupport::of(&json!({ "name": "t", "execution": {} })), TaskSupport::Forbidden);
        assert_eq!(TaskSupport::of(&json!({ "name": "t" })), TaskSupport::Forbidden);
    }

    #[test]
    fn task_view_parses_handles_and_statuses() {
        let created = json!({ "task": { "taskId": "a", "status": "working", "pollInterval": 1000, "ttl": 300000, "createdAt": "x" } });
        let view = TaskView::parse(&created).expect("a task handle");
        assert_eq!(view.id, "a");
        assert_eq!(view.status, "working");
        assert_eq!(view.poll, Some(Duration::from_millis(1000)));
        let got = json!({ "taskId": "a", "status": "input_required", "statusMessage": "need input", "pollIntervalMs": 1 });
        let view = TaskView::parse(&got).expect("a task status");
        assert_eq!(view.message.as_deref(), Some("need input"));
        assert_eq!(view.poll, Some(MIN_POLL));
        assert_eq!(TaskView::parse(&json!({ "content": [] })), None);
    }

    #[test]
    fn a_task_refusal_is_told_from_a_tool_error() {
        let text = "MCP error -32601: Tool t requires task augmentation (taskSupport: 'required')";
        assert!(is_task_refusal(&json!({ "isError": true, "content": [{ "type": "text", "text": text }] })));
        assert!(!is_task_refusal(&json!({ "content": [{ "type": "text", "text": text }] })));
        assert!(!is_task_refusal(&json!({ "isError": true, "content": [{ "type": "text", "text": "disk full" }] })));
    }
}

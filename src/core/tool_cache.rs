//! The tool-list cache: `tools/list` once per session while the server can tell us of a change
//! (`notifications/tools/list_changed` bumps `HandlerShared::tools_epoch`, as does a new session
//! or a disconnect, through this layer's hooks), and which tools may run as tasks
//! (`execution.taskSupport`: listed, in a cached definition, or said by a refusal), known without
//! a request. A layer above the connection: state in the connection's slots.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::connection::{Connection, Layer, Live};
use super::error::Result;
use super::interned::{intern, Interned};
use super::listen;
use super::results::{describe_tool, describe_tool_raw};
use super::warm;

/// A server's listed tools and what is known of their task support (a connection slot).
#[derive(Default)]
struct ToolCache {
    /// The `describe_tool` entries as JSON text (held once per process for the same bytes: every
    /// per-user client of a server lists the same tools), with the epoch they were listed in.
    list: Mutex<Option<(u64, Interned)>>,
    /// Tools that may run as tasks (`execution.taskSupport`), by name: of the cached list, of the
    /// cached definitions tools were rebuilt from, and those the server refused a plain call for.
    /// Empty for most servers: calls do not look further.
    task_tools: Mutex<HashMap<String, TaskSupport>>,
}

/// The cache's hooks: a new session, or a disconnect, outdates the listed tools.
pub struct Hook;

impl Layer for Hook {
    fn opened(&self, conn: &Connection, _live: &Arc<Live>) {
        conn.shared().tools_epoch.fetch_add(1, Ordering::SeqCst);
    }

    fn disconnected(&self, conn: &Connection) {
        conn.shared().tools_epoch.fetch_add(1, Ordering::SeqCst);
    }
}

/// A tool's `execution.taskSupport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

impl TaskSupport {
    /// Reads `execution.taskSupport` of a `tools/list` entry (absent means forbidden).
    pub fn of(tool: &Value) -> Self {
        match tool.pointer("/execution/taskSupport").and_then(Value::as_str) {
            Some("required") => TaskSupport::Required,
            Some("optional") => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// Whether a change of the server's tool list reaches this session now: a 2026-07-28 session
/// hears of one only while its `subscriptions/listen` asks.
fn hears_tool_changes(conn: &Connection, live: &Live) -> bool {
    live.hears_tool_changes() && (!live.is_modern() || listen::interest(conn).tools_list_changed)
}

/// The cache epoch: moved on by a list change, a new session or a disconnect (`tools_epoch`),
/// and by every (re)opening of the session's channel for notifications, since a change made
/// while it was closed was never told.
fn epoch_of(conn: &Connection, live: &Live) -> u64 {
    conn.shared().tools_epoch.load(Ordering::SeqCst) + live.channel_openings()
}

/// The server's tools as the JSON text of an array of `describe_tool` entries (with its key),
/// from cache when nothing invalidated it. Returns the cache epoch too. `meta`: the `_meta` of the
/// `tools/list` requests, if any are sent (trace context).
pub async fn tools(conn: &Connection, meta: Option<&Value>) -> Result<(u64, Interned)> {
    let live = conn.ensure_connected().await?;
    if !hears_tool_changes(conn, &live) {
        // Nothing would tell us of a change: list every time, as the anchor does.
        conn.shared().tools_epoch.fetch_add(1, Ordering::SeqCst);
    }
    let epoch = epoch_of(conn, &live);
    let cache = conn.slots().get::<ToolCache>();
    if let Ok(listed) = cache.list.lock() {
        if let Some((cached_epoch, tools)) = listed.as_ref() {
            if *cached_epoch == epoch {
                return Ok((epoch, tools.clone()));
            }
        }
    }
    let mut raw = warm::tool_catalog(conn, &live, meta).await?;
    let filter = &conn.config().tool_filter;
    if !filter.is_open() {
        // `tools: { include, exclude }`: the tools the client offers, over the server's own names
        // (a kept catalog holds the server's whole list: each client filters it by its own config).
        raw.retain(|tool| name_of(tool).is_none_or(|name| filter.allows(&name)));
    }
    let mut described = String::with_capacity(raw.iter().map(|t| t.len() + 16).sum::<usize>() + 2);
    described.push('[');
    for (i, tool) in raw.iter().enumerate() {
        if i > 0 {
            described.push(',');
        }
        described.push_str(&describe_tool_raw(conn.name(), tool));
    }
    described.push(']');
    let tools = intern(described);
    let tasks: HashMap<String, TaskSupport> = raw
        .iter()
        .filter(|t| t.contains("taskSupport"))
        .filter_map(|t| serde_json::from_str::<Value>(t).ok())
        .filter_map(|t| {
            let support = TaskSupport::of(&t);
            let name = t.get("name")?.as_str()?.to_string();
            (support != TaskSupport::Forbidden).then_some((name, support))
        })
        .collect();
    if let Ok(mut known) = cache.task_tools.lock() {
        *known = tasks;
    }
    if let Ok(mut listed) = cache.list.lock() {
        *listed = Some((epoch, tools.clone()));
    }
    Ok((epoch, tools))
}

/// The epoch of the cached tool list if it is current and the session is live.
pub fn current_tools_epoch(conn: &Connection) -> Option<u64> {
    // A 2026-07-28 session hears of changes only while its `subscriptions/listen` asks.
    let live = conn.try_current().filter(|live| hears_tool_changes(conn, live))?;
    let epoch = epoch_of(conn, &live);
    let cache = conn.slots().peek::<ToolCache>()?;
    let listed = cache.list.lock().ok()?;
    listed.as_ref().filter(|(cached, _)| *cached == epoch).map(|_| epoch)
}

impl TaskSupport {
    /// Whether a tool of this support runs as a task (2025-11-25 tasks, followed to its
    /// result): always when required; when optional, if the caller asks (`preferTasks`).
    fn runs_as_task(self, caller_asks: bool) -> bool {
        match self {
            TaskSupport::Required => true,
            TaskSupport::Optional => caller_asks,
            TaskSupport::Forbidden => false,
        }
    }
}

/// Whether a call of `tool` runs as a task, by what this client knows of the tool: its server's
/// listing, the cached definition it was rebuilt from (`describe_definition`), or a plain call
/// the server refused (`mark_task_tool`). A tool known of none of them is called plainly: a
/// server whose tool requires a task refuses that call without running it, and the call then
/// runs as one (`tasks::call_tool`).
pub fn runs_as_task(conn: &Connection, tool: &str, caller_asks: bool) -> bool {
    let Some(cache) = conn.slots().peek::<ToolCache>() else { return false };
    let support = cache.task_tools.lock().ok().and_then(|known| known.get(tool).copied());
    support.is_some_and(|support| support.runs_as_task(caller_asks))
}

/// A cached definition a tool is rebuilt from (`toolFromDefinition`), described as a listing
/// describes its tools; what it says of running as a task (`execution.taskSupport`) is known
/// from then on, so that a call of it needs no listing first. A later listing supersedes it.
pub fn describe_definition(conn: &Connection, tool: &Value) -> Value {
    let support = TaskSupport::of(tool);
    if let Some(name) = tool.get("name").and_then(Value::as_str).filter(|_| support != TaskSupport::Forbidden) {
        know_support(conn, name, support);
    }
    describe_tool(conn.name(), tool)
}

/// Records that a tool requires task augmentation: the server said so when it was called plainly.
pub fn mark_task_tool(conn: &Connection, name: &str) {
    know_support(conn, name, TaskSupport::Required);
}

/// Records what is known of one tool's task support (until the next listing replaces it all).
fn know_support(conn: &Connection, name: &str, support: TaskSupport) {
    if let Ok(mut known) = conn.slots().get::<ToolCache>().task_tools.lock() {
        known.insert(name.to_string(), support);
    }
}

/// The `name` of a `tools/list` entry's JSON text (`None` when it has none: described as invalid).
fn name_of(tool: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        name: String,
    }
    serde_json::from_str::<Named>(tool).ok().map(|n| n.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_task_tools_run_as_tasks() {
        assert!(TaskSupport::Required.runs_as_task(false));
        assert!(TaskSupport::Optional.runs_as_task(true));
        assert!(!TaskSupport::Optional.runs_as_task(false));
        assert!(!TaskSupport::Forbidden.runs_as_task(true));
    }
}

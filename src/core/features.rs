//! The protocol features a connection carries as layers above it (see `connection::layer`):
//! each lives in its own module, calls the connection's request path, keeps its state in the
//! connection's (or the session's) slots, and, when it must act as the lifecycle moves, adds a
//! hook here. Adding a feature is a new module plus, if it hooks the lifecycle, one line below:
//! the connection is not edited.
//!
//! - `tool_cache`: the tool list, reused while the server can announce changes (hooks: a new
//!   session or a disconnect outdates it);
//! - `listen`: the 2026-07-28 `subscriptions/listen` stream (hooks: opened with a session,
//!   reopened by a stateless reconnect, stopped when a session closes);
//! - `tasks::extension`: Tasks-extension tasks being followed are cancelled on `disconnect()`.
//!
//! Layers without hooks: `input` (input rounds: `input::request`), `lists` (paging),
//! `tasks` (tool calls as tasks), `follow_up` (lane answers handed to the async path).

use std::sync::Arc;

use super::connection::Layer;
use super::{listen, tasks, tool_cache};

/// The hooks every connection carries, in the order they run.
pub fn layers() -> Vec<Arc<dyn Layer>> {
    vec![Arc::new(tasks::extension::Hook), Arc::new(tool_cache::Hook), Arc::new(listen::Hook)]
}

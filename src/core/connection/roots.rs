//! The client's roots (`roots/list`) and telling the server they changed.

use serde_json::{json, Value};

use super::{Connection, State};
use crate::core::error::{ErrorKind, McpError, Result};
use crate::core::observe;
use rmcp::model::ClientNotification;

impl Connection {
    /// The roots answered to `roots/list`.
    pub fn roots(&self) -> Vec<Value> {
        self.shared.roots.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Replaces the roots; the server hears `notifications/roots/list_changed` if connected.
    pub async fn set_roots(&self, roots: Vec<Value>) -> Result<()> {
        if let Ok(mut current) = self.shared.roots.lock() {
            *current = roots;
        }
        self.send_roots_list_changed().await
    }

    /// Sends `notifications/roots/list_changed` on the live session; a no-op when not connected.
    pub async fn send_roots_list_changed(&self) -> Result<()> {
        let parked = matches!(&*self.state.lock().await, State::Parked(_));
        let live = match self.current().await {
            Some(live) => live,
            // A parked session is still the server's: it resumes to hear the change.
            None if parked => self.ensure_connected().await?,
            None => {
                self.shared.diagnostic("debug", "Cannot send roots/list_changed: not connected");
                return Ok(());
            }
        };
        let note: ClientNotification = serde_json::from_value(json!({ "method": "notifications/roots/list_changed" }))
            .map_err(|e| McpError::new(ErrorKind::InvalidState, self.name(), format!("roots/list_changed: {e}")))?;
        let start_ms = observe::now_ms();
        let sent = live.peer.send_notification(note).await;
        observe::note_notification("notifications/roots/list_changed", start_ms, sent.as_ref().err().map(ToString::to_string));
        sent.map_err(|e| {
            McpError::new(
                ErrorKind::Disconnected,
                self.name(),
                format!("Failed to send notifications/roots/list_changed to server {}: {e}", self.name()),
            )
        })
    }
}

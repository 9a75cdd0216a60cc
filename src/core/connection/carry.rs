//! What a connection carries over to the next process (with a store configured): the
//! handshake-era session a parked session would keep — its id, the server's `initialize` answer,
//! whether the server refused a GET stream. A new process resumes it as a parked session resumes
//! (`park`): the server receives the request and nothing else. The connection knows only the
//! [`Carry`] port (where the entries live, and for whom, is the layer above's business).
//!
//! A session is written once the server confirmed it (its `initialize` answer came with the
//! session id), and written again whenever the session under the connection changes (rmcp opened
//! a new one after a 404: a new id, and perhaps a new server at the same URL); a session whose
//! new `initialize` answer was not seen here is dropped rather than kept with a stale answer.
//! `disconnect()` leaves a kept session to the next process (no DELETE); `reconnectServer()`
//! ends it for all.

use std::sync::{Arc, Mutex};

use futures::future::{BoxFuture, FutureExt};
use serde_json::{json, Value};

use super::open_live;
use super::park::Parked;
use super::{Connection, Live};
use crate::core::error::{McpError, Result};
use crate::core::handler::HandlerShared;

/// The entry of the carried session.
pub const SESSION_ENTRY: &str = "session";

/// Where one server's carried entries live (for this client's scope and credentials). Values
/// are text; every value is a secret (the store seals it).
pub trait Carry: Send + Sync {
    fn get(&self, entry: &'static str) -> BoxFuture<'static, Result<Option<String>>>;
    fn set(&self, entry: &'static str, value: String) -> BoxFuture<'static, Result<()>>;
    fn delete(&self, entry: &'static str) -> BoxFuture<'static, Result<()>>;
    /// The session under the connection was replaced by a new one (perhaps of a new server at
    /// the same URL): what was kept of the old one's server goes.
    fn session_replaced(&self) -> BoxFuture<'static, Result<()>>;
    /// Whether a store is (or is about to be) configured: without one, nothing is carried.
    fn in_use(&self) -> bool;
    /// A new session is about to be opened on the server: what is kept of how to start it (its era).
    fn opening(&self, shared: Arc<HandlerShared>) -> BoxFuture<'static, Result<()>>;
    /// A 2026-07-28 session opened: what the next process may start from.
    fn opened_modern(&self, shared: Arc<HandlerShared>) -> BoxFuture<'static, Result<()>>;
}

/// What the store holds for the session under the connection now.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct KeptMark {
    session: Option<String>,
    handshakes: u64,
    refused: bool,
}

/// The connection's memory of what it wrote (`None`: nothing known to be kept).
pub(super) type Kept = Mutex<Option<KeptMark>>;

impl Connection {
    /// The connection's carried entries, when a store is configured for it.
    pub fn carry(&self) -> Option<&Arc<dyn Carry>> {
        self.carry.as_ref().filter(|c| c.in_use())
    }

    /// The connection's carry whether or not a store is configured yet.
    pub fn carry_installed(&self) -> Option<&Arc<dyn Carry>> {
        self.carry.as_ref()
    }

    /// A new session: the kept one resumed when there is one, else one opened on the server.
    pub(super) fn open_or_restore(&self) -> BoxFuture<'static, Result<Arc<Live>>> {
        let open = open_live(self.config.clone(), self.shared.clone(), self.request_timeout_ms(), self.remote.clone());
        let Some(carry) = self.carry().cloned() else { return open.boxed() };
        let resume = self.resumer();
        let kept = self.kept.clone();
        let shared = self.shared.clone();
        async move {
            let Some(text) = carry.get(SESSION_ENTRY).await? else {
                carry.opening(shared.clone()).await?;
                return open.await;
            };
            let Some((parked, refused)) = Parked::restored(&text) else {
                shared.diagnostic("debug", "The kept session is not one this client can resume: opening a new one");
                carry.delete(SESSION_ENTRY).await?;
                carry.opening(shared.clone()).await?;
                return open.await;
            };
            let mark = KeptMark { session: parked.session_id(), handshakes: 0, refused };
            shared.diagnostic("debug", "Resuming the session kept in the store");
            let live = resume(Box::new(parked)).await?;
            if let Ok(mut k) = kept.lock() {
                *k = Some(mark);
            }
            Ok(live)
        }
        .boxed()
    }

    /// Writes (or drops) the kept session when the session under the connection is not the one
    /// the store holds: a new session, a new one rmcp opened after a 404, a GET refusal learned.
    pub(super) async fn sync_kept(&self, live: &Live) {
        let Some(carry) = self.carry() else { return };
        if live.is_modern() {
            if let Err(e) = carry.opened_modern(self.shared.clone()).await {
                self.shared.diagnostic("warn", format!("The server's era could not be kept in the store: {}", e.message));
            }
            return;
        }
        let Some(parkable) = live.parkable() else { return };
        let now = KeptMark { session: live.session_id(), handshakes: parkable.resume.handshakes(), refused: parkable.listener.is_refused() };
        let before = self.kept.lock().ok().and_then(|k| k.clone());
        if before.as_ref() == Some(&now) {
            return;
        }
        let server_changed = before.as_ref().is_some_and(|b| b.handshakes != now.handshakes);
        // The answer the session opened with: the latest `initialize` the server answered, or,
        // for a session opened by rmcp's first handshake, rmcp's reading of it.
        let answer = parkable
            .resume
            .latest_answer()
            .or_else(|| (now.handshakes <= 1).then(|| live.peer().peer_info().and_then(|i| serde_json::to_value(&*i).ok())).flatten());
        let written = match (&now.session, answer) {
            (Some(id), Some(answer)) => {
                let value = json!({
                    "sessionId": id,
                    "protocolVersion": live.protocol_version,
                    "answer": answer,
                    "getRefused": now.refused,
                });
                carry.set(SESSION_ENTRY, value.to_string()).await
            }
            _ => carry.delete(SESSION_ENTRY).await,
        };
        match written {
            Ok(()) => {
                if let Ok(mut k) = self.kept.lock() {
                    *k = Some(now);
                }
            }
            Err(e) => self.shared.diagnostic("warn", format!("The session could not be kept in the store: {}", e.message)),
        }
        if server_changed {
            // A new session under the connection: what was learned of the old one is not this one's.
            self.shared.tools_epoch.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if let Err(e) = carry.session_replaced().await {
                self.shared.diagnostic("warn", format!("The store could not drop what it kept of the old session: {}", e.message));
            }
        }
    }

    /// `reconnectServer()`: the kept session ends for every process.
    pub(super) async fn forget_kept(&self) -> Result<()> {
        let Some(carry) = self.carry() else { return Ok(()) };
        if let Ok(mut k) = self.kept.lock() {
            *k = None;
        }
        carry.delete(SESSION_ENTRY).await
    }

    /// Whether `disconnect()` leaves the session to the next process (no DELETE).
    pub(super) fn leaves_session(&self) -> bool {
        self.carry().is_some() && self.kept.lock().is_ok_and(|k| k.as_ref().is_some_and(|k| k.session.is_some()))
    }
}

impl Parked {
    /// A parked session rebuilt from a kept entry, and whether its server refused a GET stream.
    pub(super) fn restored(text: &str) -> Option<(Parked, bool)> {
        let value: Value = serde_json::from_str(text).ok()?;
        let id = value.get("sessionId")?.as_str()?.to_string();
        let version = value.get("protocolVersion")?.as_str()?.to_string();
        let refused = value.get("getRefused").and_then(Value::as_bool).unwrap_or(false);
        let answer = serde_json::from_value(json!({ "jsonrpc": "2.0", "id": 0, "result": value.get("answer")? })).ok()?;
        Some((Parked::new(id, answer, version, refused), refused))
    }
}

/// A kept entry that cannot be read is the store's error, never taken for an absent one.
pub fn carry_error(server: &str, message: impl Into<String>) -> McpError {
    McpError::new(crate::core::error::ErrorKind::InvalidState, server, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_session_is_restored_with_its_id_and_refusal_and_anything_else_is_not_one() {
        let entry = json!({
            "sessionId": "s-1",
            "protocolVersion": "2025-11-25",
            "answer": { "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "x", "version": "1" } },
            "getRefused": true,
        });
        let (parked, refused) = Parked::restored(&entry.to_string()).expect("a kept session");
        assert_eq!(parked.session_id().as_deref(), Some("s-1"));
        assert_eq!(parked.protocol_version(), "2025-11-25");
        assert!(refused);
        assert!(Parked::restored("not json").is_none());
        assert!(Parked::restored(&json!({ "sessionId": "s-1" }).to_string()).is_none(), "no answer: not resumable");
    }
}

//! The table of a client's calls in flight that the face may abort by id: calls on the async
//! path (and OAuth flows) with their cancel token and reason, and direct calls written on a
//! stdio lane with the lane's request id. One owner for insert, settle, cancel, the hand-over of
//! a direct call to the async path, and `disconnect()` draining it all.
//!
//! Races it settles: a `cancel` and a hand-over (`hand_over`) may interleave in any order, and
//! the call still ends cancelled; a `disconnect` drains the direct calls before the async ones,
//! so a call moving from one map to the other is seen by one of the two drains.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::transport::lane::Lane;

/// What a call on the async path is aborted with: its token, and the reason the caller gave.
#[derive(Clone, Default)]
pub struct Abort {
    pub token: CancellationToken,
    pub reason: Arc<Mutex<String>>,
}

impl Abort {
    fn fire(&self, reason: &str) {
        if let Ok(mut r) = self.reason.lock() {
            *r = reason.to_string();
        }
        self.token.cancel();
    }
}

/// The reason every call in flight is given on `disconnect()`.
pub const DISCONNECTED: &str = "MCP client was disconnected";

/// Calls in flight by the face's id.
#[derive(Default)]
pub struct CallTable {
    /// Calls on the async path and OAuth flows.
    pending: Mutex<HashMap<u32, Abort>>,
    /// Direct calls: the lane and the lane's request id.
    direct: Mutex<HashMap<u32, (Arc<Lane>, u64)>>,
}

impl CallTable {
    /// Registers a call on the async path (or a flow) under `id`; returns what aborts it.
    pub fn register(&self, id: u32) -> Abort {
        let abort = Abort::default();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id, abort.clone());
        }
        abort
    }

    /// Runs `op` with the abort of a call registered under `id` (`None`: not abortable), and
    /// settles the call when it ends.
    pub async fn run<F: std::future::Future>(&self, id: Option<u32>, op: impl FnOnce(Abort) -> F) -> F::Output {
        let Some(id) = id else { return op(Abort::default()).await };
        let output = op(self.register(id)).await;
        self.settle(id);
        output
    }

    /// The call `id` on the async path ended.
    pub fn settle(&self, id: u32) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&id);
        }
    }

    /// A direct call `id` was written (or is about to be) on `lane` as request `lane_id`.
    pub fn start_direct(&self, id: u32, lane: Arc<Lane>, lane_id: u64) {
        if let Ok(mut direct) = self.direct.lock() {
            direct.insert(id, (lane, lane_id));
        }
    }

    /// The direct call `id` settled (or was never sent).
    pub fn settle_direct(&self, id: u32) {
        if let Ok(mut direct) = self.direct.lock() {
            direct.remove(&id);
        }
    }

    /// The direct call `id` moves to the async path: registered there before it leaves the
    /// direct calls, so a `cancel` or `disconnect` at any moment reaches it. When it was gone
    /// from the direct calls already (a `cancel` or `disconnect` took it, maybe before the entry
    /// existed), the returned token is cancelled.
    pub fn hand_over(&self, id: u32) -> Abort {
        let abort = self.register(id);
        if !self.direct.lock().is_ok_and(|mut d| d.remove(&id).is_some()) {
            abort.token.cancel();
        }
        abort
    }

    /// Aborts the call `id` with `reason`, wherever it is; nothing when it settled already.
    pub fn cancel(&self, id: u32, reason: &str) {
        let direct = self.direct.lock().ok().and_then(|mut d| d.remove(&id));
        if let Some((lane, lane_id)) = direct {
            // Not answered yet: the lane settles it as cancelled. Else it settled meanwhile and
            // may have moved on to the async path (`hand_over`).
            if lane.cancel(lane_id, reason) {
                return;
            }
        }
        let pending = self.pending.lock().ok().and_then(|mut p| p.remove(&id));
        if let Some(abort) = pending {
            abort.fire(reason);
        }
    }

    /// Aborts every call in flight (`disconnect()`): the direct calls first, then the async ones
    /// (see the module comment).
    pub fn drain(&self, reason: &str) {
        let direct: Vec<(Arc<Lane>, u64)> = self.direct.lock().map(|mut d| d.drain().map(|(_, v)| v).collect()).unwrap_or_default();
        for (lane, lane_id) in direct {
            lane.cancel(lane_id, reason);
        }
        let pending: Vec<Abort> = self.pending.lock().map(|mut p| p.drain().map(|(_, v)| v).collect()).unwrap_or_default();
        for abort in pending {
            abort.fire(reason);
        }
    }

    /// How many calls are in flight: (async, direct).
    pub fn len(&self) -> (usize, usize) {
        (self.pending.lock().map(|p| p.len()).unwrap_or(0), self.direct.lock().map(|d| d.len()).unwrap_or(0))
    }
}

#[cfg(test)]
#[path = "calls/tests.rs"]
mod tests;

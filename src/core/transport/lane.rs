//! The request lane of a pipe transport: JSON-RPC requests we frame ourselves (ids `"n<seq>"`,
//! disjoint from rmcp's numeric ids) and whose answers the reader hands straight back to the
//! caller, without a trip through rmcp's service loop. A request can be written from any thread
//! (the JS thread included) without waking the runtime; its answer, timeout, cancellation or the
//! pipe's closing completes it exactly once.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Notify;

use super::envelope::{push_params, Envelope};
use super::pipe_writer::PipeWriter;

/// Why a pending request failed when its connection was closed under it. A pending request was
/// handed to the writer, which flushes what it holds before the pipe closes: the server may have
/// read it, and run it.
pub const CLOSED_UNDER_REQUEST: &str = "the connection was closed; a request already written to it may have run";

/// How a lane request ended without a result.
#[derive(Debug, Clone, PartialEq)]
pub enum LaneError {
    /// The server answered with a JSON-RPC error.
    Rpc { code: i64, message: String, data: Option<Value> },
    /// No answer within the request's timeout (since it was sent, or since its last progress).
    Timeout { after_ms: u64 },
    /// It reported progress, and reached its `maxTotalTimeout` (`after_ms`) without an answer.
    TotalTimeout { after_ms: u64 },
    /// The pipe closed (server exited, stdout closed) before the answer arrived.
    Closed { detail: String },
    /// The caller cancelled (abort signal, disconnect).
    Cancelled { reason: String },
    /// The answer was too large to be read.
    TooLarge { detail: String },
}

/// The raw JSON text of a `result`, or why there is none.
pub type LaneOutcome = Result<String, LaneError>;
/// Called once with the outcome, on whichever thread settles the request.
pub type Completion = Box<dyn FnOnce(LaneOutcome) + Send>;

/// The request could not be written: the lane is closed. Nothing reached the server.
#[derive(Debug, Clone, PartialEq)]
pub struct NotSent(pub String);

struct Pending {
    done: Completion,
    deadline: Instant,
    timeout_ms: u64,
    /// Progress moves the deadline on: the progress token's JSON text and the latest deadline.
    progress: Option<(String, Instant, u64)>,
}

/// How long a lane request may live: its timeout and, when progress moves its deadline on
/// (`resetTimeoutOnProgress`), its progress token (JSON text) and `maxTotalTimeout`.
#[derive(Debug, Clone, Default)]
pub struct Bound {
    pub timeout_ms: u64,
    pub progress: Option<(String, u64)>,
}

#[derive(Default)]
struct State {
    pending: HashMap<u64, Pending>,
    closed: Option<String>,
    /// The sweeper is parked until the next request arrives.
    sweeper_parked: bool,
}

/// How often expired requests are looked for while any are pending.
const SWEEP_TICK: Duration = Duration::from_millis(25);
/// How long the sweeper keeps ticking after the last request settles, so that a steady stream
/// of sequential requests never has to wake it.
const SWEEP_LINGER: Duration = Duration::from_secs(2);

pub struct Lane {
    writer: Arc<PipeWriter>,
    state: Mutex<State>,
    wake_sweeper: Notify,
    next_id: AtomicU64,
    /// The per-request `_meta` of a 2026-07-28 session, set once the session is open.
    envelope: OnceLock<Envelope>,
    /// Whether the server answered any request on the lane.
    answered: std::sync::atomic::AtomicBool,
}

impl Lane {
    /// A lane over `writer`, with its timeout sweeper running on the current tokio runtime.
    pub fn start(writer: Arc<PipeWriter>) -> Arc<Lane> {
        let lane = Arc::new(Lane {
            writer,
            state: Mutex::default(),
            wake_sweeper: Notify::new(),
            next_id: AtomicU64::new(1),
            envelope: OnceLock::new(),
            answered: Default::default(),
        });
        tokio::spawn(sweep(Arc::downgrade(&lane)));
        lane
    }

    /// Reserves the id of the next request (so a caller can file it before the answer can arrive).
    pub fn reserve_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub fn is_closed(&self) -> bool {
        self.state.lock().map(|s| s.closed.is_some()).unwrap_or(true)
    }

    /// Every request from now on carries `envelope` in its `_meta` (a 2026-07-28 session has no
    /// handshake). Set once per session; false if it was already set.
    pub fn set_envelope(&self, envelope: Envelope) -> bool {
        self.envelope.set(envelope).is_ok()
    }

    /// Whether requests carry a 2026-07-28 envelope.
    pub fn has_envelope(&self) -> bool {
        self.envelope.get().is_some()
    }

    /// Writes request `id` (from `reserve_id`). `params_json` must be a JSON object's text
    /// without `_meta`. On `Err` nothing was sent and `done` will not be called.
    pub fn send(&self, id: u64, method: &str, params_json: &str, timeout_ms: u64, done: Completion) -> Result<(), NotSent> {
        self.send_with_meta(id, method, params_json, None, timeout_ms, done)
    }

    /// `send` with the caller's request `_meta` (a JSON object's text), merged with the
    /// session's envelope, if any.
    pub fn send_with_meta(
        &self,
        id: u64,
        method: &str,
        params_json: &str,
        meta_json: Option<&str>,
        timeout_ms: u64,
        done: Completion,
    ) -> Result<(), NotSent> {
        self.send_bounded(id, method, params_json, meta_json, Bound { timeout_ms, progress: None }, done)
    }

    /// `send_with_meta` with a `Bound`: a request whose progress moves its deadline.
    pub fn send_bounded(
        &self,
        id: u64,
        method: &str,
        params_json: &str,
        meta_json: Option<&str>,
        bound: Bound,
        done: Completion,
    ) -> Result<(), NotSent> {
        let timeout_ms = bound.timeout_ms;
        let envelope = self.envelope.get();
        let extra = envelope.map_or(0, |e| e.members().len() + 16) + meta_json.map_or(0, |m| m.len() + 12);
        let mut line = String::with_capacity(params_json.len() + method.len() + 56 + extra);
        let _ = write!(line, r#"{{"jsonrpc":"2.0","id":"n{id}","method":"#);
        push_json_string(&mut line, method);
        line.push_str(r#","params":"#);
        push_params(&mut line, params_json, envelope, meta_json);
        line.push_str("}\n");
        {
            let mut state = self.state.lock().map_err(|_| NotSent("lane state poisoned".into()))?;
            if let Some(why) = &state.closed {
                return Err(NotSent(why.clone()));
            }
            // A timeout too large to represent (e.g. a user's `Infinity`) means: no deadline we can reach.
            let now = Instant::now();
            let after = |ms: u64| now.checked_add(Duration::from_millis(ms)).unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600));
            let deadline = after(timeout_ms);
            let progress = bound.progress.map(|(token, max_ms)| (token, after(max_ms), max_ms));
            state.pending.insert(id, Pending { done, deadline, timeout_ms, progress });
            if state.sweeper_parked {
                state.sweeper_parked = false;
                self.wake_sweeper.notify_one();
            }
        }
        if let Err(e) = self.writer.write(line.into_bytes()) {
            // Never written: take it back without completing it.
            if let Ok(mut state) = self.state.lock() {
                state.pending.remove(&id);
            }
            return Err(NotSent(e.to_string()));
        }
        Ok(())
    }

    /// Settles request `id` with the server's answer. Unknown ids (late answers after a timeout
    /// or cancellation) are ignored.
    pub fn answer(&self, id: u64, outcome: LaneOutcome) {
        if outcome.is_ok() {
            self.answered.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let pending = self.state.lock().ok().and_then(|mut s| s.pending.remove(&id));
        match pending {
            Some(p) => (p.done)(outcome),
            None => tracing::debug!(id, "dropping an answer to a request that already settled"),
        }
    }

    /// A progress notification with `token` (its JSON text) arrived: the request it belongs to,
    /// if its progress moves its deadline, gets its timeout again from now, up to its
    /// `maxTotalTimeout`.
    pub fn progressed(&self, token: &str) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = Instant::now();
        for p in state.pending.values_mut() {
            if let Some((own, latest, _)) = &p.progress {
                if own == token {
                    let moved = now.checked_add(Duration::from_millis(p.timeout_ms)).unwrap_or(*latest);
                    p.deadline = moved.min(*latest);
                }
            }
        }
    }

    /// Whether the server answered any request on the lane.
    pub fn answered(&self) -> bool {
        self.answered.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Cancels request `id`: tells the server (`notifications/cancelled`) and settles it with
    /// `reason`. Returns false when it had already settled.
    pub fn cancel(&self, id: u64, reason: &str) -> bool {
        let pending = self.state.lock().ok().and_then(|mut s| s.pending.remove(&id));
        let Some(p) = pending else { return false };
        self.notify_cancelled(id, reason);
        (p.done)(Err(LaneError::Cancelled { reason: reason.to_string() }));
        true
    }

    fn notify_cancelled(&self, id: u64, reason: &str) {
        let mut line = String::with_capacity(96 + reason.len());
        let _ = write!(line, r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"n{id}","reason":"#);
        push_json_string(&mut line, reason);
        line.push_str("}}\n");
        let _ = self.writer.write(line.into_bytes());
    }

    /// Closes the lane: every pending request fails with `detail`, new ones are refused.
    pub fn close(&self, detail: &str) {
        let drained: Vec<Pending> = match self.state.lock() {
            Ok(mut state) => {
                if state.closed.is_none() {
                    state.closed = Some(detail.to_string());
                }
                state.pending.drain().map(|(_, p)| p).collect()
            }
            Err(_) => Vec::new(),
        };
        self.wake_sweeper.notify_one();
        for p in drained {
            (p.done)(Err(LaneError::Closed { detail: detail.to_string() }));
        }
    }

    /// Settles every request past its deadline; returns how long the sweeper may sleep, or
    /// `None` when it should park until woken.
    fn expire(&self, idle_since: &mut Instant) -> Option<Option<Duration>> {
        let now = Instant::now();
        let expired: Vec<(u64, Pending)> = {
            let mut state = self.state.lock().ok()?;
            if state.closed.is_some() {
                return None;
            }
            let ids: Vec<u64> = state.pending.iter().filter(|(_, p)| p.deadline <= now).map(|(id, _)| *id).collect();
            let expired = ids.into_iter().filter_map(|id| state.pending.remove(&id).map(|p| (id, p))).collect();
            if !state.pending.is_empty() {
                *idle_since = now;
            } else if now.duration_since(*idle_since) >= SWEEP_LINGER {
                state.sweeper_parked = true;
            }
            expired
        };
        for (id, p) in expired {
            match p.progress {
                // The deadline it reached is its maxTotalTimeout.
                Some((_, latest, max_ms)) if p.deadline >= latest && max_ms > p.timeout_ms => {
                    self.notify_cancelled(id, "Maximum total timeout exceeded");
                    (p.done)(Err(LaneError::TotalTimeout { after_ms: max_ms }));
                }
                _ => {
                    self.notify_cancelled(id, "Request timed out");
                    (p.done)(Err(LaneError::Timeout { after_ms: p.timeout_ms }));
                }
            }
        }
        let parked = self.state.lock().map(|s| s.sweeper_parked).unwrap_or(false);
        Some(if parked { None } else { Some(SWEEP_TICK) })
    }
}

/// Times out overdue requests. Ticks while requests are pending (and a little after), parks
/// otherwise; ends when the lane closes (the transport closes it when it ends or is dropped).
async fn sweep(lane: Weak<Lane>) {
    let mut idle_since = Instant::now();
    loop {
        let Some(strong) = lane.upgrade() else { return };
        match strong.expire(&mut idle_since) {
            None => return,
            Some(Some(tick)) => {
                drop(strong);
                tokio::time::sleep(tick).await;
            }
            Some(None) => {
                strong.wake_sweeper.notified().await;
                idle_since = Instant::now();
            }
        }
    }
}

/// Appends `s` as a JSON string literal.
fn push_json_string(out: &mut String, s: &str) {
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

/// The lane request id in a raw JSON id (`"n12"` → 12); `None` for ids that are not ours.
pub fn lane_id(raw_id: &str) -> Option<u64> {
    raw_id.strip_prefix("\"n")?.strip_suffix('"')?.parse().ok()
}

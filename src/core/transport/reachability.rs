//! A request that provably never reached the server (no connection could be opened: refused,
//! unreachable, DNS) waits for the server and is sent once it can be, within what is left of its
//! own timeout (SPEC 14.5): a rolling deploy or a restarted server costs such a call nothing.
//!
//! One gate per session: while the server is down, waiting requests take turns at one probe at
//! a time, with a backoff shared by all of them (50 ms doubling up to 500 ms), so a restart meets
//! one connection attempt, not one per waiting call. The first request that gets through opens
//! the gate for the rest. A request that may have reached the server is never handled here.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// First pause between probes of a server that is down, and the longest.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(50);
pub const MAX_BACKOFF: Duration = Duration::from_millis(500);
/// A waiting request gives up this long before its deadline (at most a tenth of its timeout),
/// so that its caller hears why it was not sent rather than a bare timeout.
const GIVE_UP_EARLY: Duration = Duration::from_millis(100);

/// The deadline of a request (a request extension): without one, nothing waits.
#[derive(Debug, Clone, Copy)]
pub struct SendDeadline {
    pub at: Instant,
    pub timeout: Duration,
}

impl SendDeadline {
    pub fn after(timeout: Duration) -> Self {
        SendDeadline { at: Instant::now() + timeout, timeout }
    }

    /// When a waiting request stops waiting.
    fn give_up_at(&self) -> Instant {
        self.at.checked_sub(GIVE_UP_EARLY.min(self.timeout / 10)).unwrap_or(self.at)
    }
}

struct Down {
    /// Since when requests have found the server unreachable.
    since: Instant,
    /// The next probe may go out then.
    next_probe: Instant,
    backoff: Duration,
}

/// One session's view of whether its server can be reached.
#[derive(Clone, Default)]
pub struct Reachability(Arc<Gate>);

#[derive(Default)]
struct Gate {
    down: Mutex<Option<Down>>,
    /// Bumped each time a request got through: a waiter that saw an older value goes at once.
    ups: AtomicU64,
    /// One probe at a time.
    probe: Arc<tokio::sync::Mutex<()>>,
}

/// What a waiting request should do next.
pub enum Turn {
    /// Send now (the server answered someone, or it is this request's turn to probe).
    Send(Probe),
    /// Its time is up: it was never sent; the server has been unreachable this long.
    GiveUp(Duration),
}

/// Held while a request probes; tell the gate how it went.
pub struct Probe {
    _turn: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Reachability {
    /// A request got an HTTP answer: the server is up.
    pub fn up(&self) {
        let was_down = self.0.down.lock().map(|mut d| d.take().is_some()).unwrap_or(false);
        if was_down {
            self.0.ups.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A request found the server unreachable (`probe`: it was a probe, so the next one waits
    /// longer; any other request only marks the server down, once).
    pub fn unreachable(&self, probe: bool) {
        if let Ok(mut down) = self.0.down.lock() {
            let now = Instant::now();
            match down.as_mut() {
                Some(d) if probe => {
                    d.backoff = (d.backoff * 2).min(MAX_BACKOFF);
                    d.next_probe = now + d.backoff;
                }
                Some(_) => {}
                None => *down = Some(Down { since: now, next_probe: now + FIRST_BACKOFF, backoff: FIRST_BACKOFF }),
            }
        }
    }

    /// How long the server has been unreachable (zero when it is not known to be down).
    pub fn down_for(&self) -> Duration {
        self.0.down.lock().ok().and_then(|d| d.as_ref().map(|d| d.since.elapsed())).unwrap_or_default()
    }

    /// Waits for this request's next chance to be sent, or until its time is up.
    pub async fn turn(&self, deadline: &SendDeadline) -> Turn {
        let give_up = deadline.give_up_at();
        let seen = self.0.ups.load(Ordering::SeqCst);
        let waited = async {
            let guard = self.0.probe.clone().lock_owned().await;
            if self.0.ups.load(Ordering::SeqCst) != seen {
                return Probe { _turn: None };
            }
            let next = self.0.down.lock().ok().and_then(|d| d.as_ref().map(|d| d.next_probe));
            if let Some(next) = next {
                tokio::time::sleep_until(next.min(give_up)).await;
            }
            Probe { _turn: Some(guard) }
        };
        match tokio::time::timeout_at(give_up, waited).await {
            Ok(probe) if Instant::now() < give_up => Turn::Send(probe),
            _ => Turn::GiveUp(self.down_for()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn waiters_take_turns_behind_one_backoff_and_all_go_once_the_server_answers() {
        let gate = Reachability::default();
        gate.unreachable(false);
        let deadline = SendDeadline::after(Duration::from_secs(10));
        // The first waiter probes after the first backoff.
        let start = Instant::now();
        let Turn::Send(probe) = gate.turn(&deadline).await else { panic!("a turn") };
        assert_eq!(start.elapsed(), FIRST_BACKOFF);
        // While it probes, a second waiter waits for the probe lock.
        let second = tokio::spawn({
            let gate = gate.clone();
            async move { matches!(gate.turn(&deadline).await, Turn::Send(_)) }
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!second.is_finished(), "one probe at a time");
        // The probe got through: the second goes at once.
        gate.up();
        drop(probe);
        assert!(second.await.expect("joined"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiter_gives_up_before_its_deadline_saying_how_long_the_server_was_down() {
        let gate = Reachability::default();
        gate.unreachable(false);
        let deadline = SendDeadline::after(Duration::from_millis(400));
        let mut turns = 0;
        let down = loop {
            match gate.turn(&deadline).await {
                Turn::Send(_probe) => {
                    turns += 1;
                    gate.unreachable(true);
                }
                Turn::GiveUp(down) => break down,
            }
        };
        assert!(turns >= 2, "it probed with a growing backoff: {turns}");
        assert!(Instant::now() < deadline.at, "it gave up before the deadline");
        assert!(down >= Duration::from_millis(300), "down for {down:?}");
    }
}

//! A server whose session keeps dying is not started again forever: at most
//! [`MAX_RESTARTS`] restarts after crashes within [`RESTART_WINDOW`]; past that, its requests
//! fail at once with the crash's last words (the server's last stderr lines) until the window
//! has moved on. A crash is a session that died before answering any request; one that served
//! requests first (a server killed or redeployed under load) clears the count.
//! `disconnect()` and `reconnectServer()` are not deaths.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Restarts allowed after unexpected deaths within one window.
pub const MAX_RESTARTS: usize = 5;
pub const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// When a server's sessions died unexpectedly (a connection field).
#[derive(Default)]
pub struct Deaths(Mutex<VecDeque<Instant>>);

impl Deaths {
    /// A session served requests: the server is not crash-looping.
    pub fn clear(&self) {
        if let Ok(mut deaths) = self.0.lock() {
            deaths.clear();
        }
    }

    /// A session died: whether it may be started again now (`Err`: how long until it may).
    pub fn died(&self) -> Result<(), Duration> {
        let Ok(mut deaths) = self.0.lock() else { return Ok(()) };
        let now = Instant::now();
        while deaths.front().is_some_and(|t| now.duration_since(*t) > RESTART_WINDOW) {
            deaths.pop_front();
        }
        if deaths.len() >= MAX_RESTARTS {
            let oldest = *deaths.front().unwrap_or(&now);
            return Err(RESTART_WINDOW.saturating_sub(now.duration_since(oldest)));
        }
        deaths.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_are_bounded_per_window() {
        let deaths = Deaths::default();
        for _ in 0..MAX_RESTARTS {
            assert!(deaths.died().is_ok());
        }
        let wait = deaths.died().expect_err("one death too many");
        assert!(wait <= RESTART_WINDOW && wait > RESTART_WINDOW - Duration::from_secs(5));
    }

    #[test]
    fn a_refused_restart_is_no_death_and_serving_clears_the_count() {
        let deaths = Deaths::default();
        for _ in 0..MAX_RESTARTS {
            assert!(deaths.died().is_ok());
        }
        let first = deaths.died().expect_err("crash-looping");
        let second = deaths.died().expect_err("still crash-looping");
        assert!(second <= first, "the wait counts down from the oldest death: {first:?} then {second:?}");
        assert_eq!(deaths.0.lock().map(|d| d.len()).ok(), Some(MAX_RESTARTS), "refusals are not recorded as deaths");
        deaths.clear();
        for _ in 0..MAX_RESTARTS {
            assert!(deaths.died().is_ok(), "a session that served requests starts the count again");
        }
        assert!(deaths.died().is_err());
    }

    #[test]
    fn deaths_older_than_the_window_are_forgotten() {
        let deaths = Deaths::default();
        let Some(long_ago) = Instant::now().checked_sub(RESTART_WINDOW + Duration::from_secs(1)) else { return };
        if let Ok(mut d) = deaths.0.lock() {
            d.extend(std::iter::repeat_n(long_ago, MAX_RESTARTS));
        }
        assert!(deaths.died().is_ok(), "five deaths over a minute ago do not count");
        assert_eq!(deaths.0.lock().map(|d| d.len()).ok(), Some(1));
    }
}

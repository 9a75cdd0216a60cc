//! When a Streamable HTTP session's standalone GET stream (the server's messages outside any
//! request) goes out. rmcp asks for it right after the handshake, beside the session's first
//! request; sent then, it takes a connection of its own before anything needs it, and a
//! short-lived client (list, one call, disconnect) never reads a byte of it. So the GET waits
//! until something wants it ([`Listener::want`]: a list-changed handler, a resource
//! subscription) or until the session has been quiet for [`QUIET_BEFORE_LISTENING`] (no request
//! in flight, none started), so that a long-lived client still hears what servers push unasked.
//!
//! A request whose POST event stream ended before its answer, with an event id to resume from
//! (SEP-1699), is still in flight: the session is not quiet while the server is to answer it on
//! the resumed stream ([`Listener::await_resumption`], [`Listener::resumed`]), so the session's
//! own GET does not go out in the middle of a resumption.
//!
//! It also counts the open GET streams (DELETE waits for them to close) and how many times one
//! opened: whatever was learned before the latest opening could have missed a notification.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

/// How long a session must be quiet before its GET stream goes out unasked.
pub const QUIET_BEFORE_LISTENING: Duration = Duration::from_millis(200);

#[derive(Default)]
struct State {
    /// Something needs the server's unasked messages: send the GET now.
    wanted: AtomicBool,
    /// POSTs of the session in flight, and how many ever started.
    in_flight: AtomicUsize,
    started: AtomicU64,
    /// GET streams open now, and how many times one opened.
    open: AtomicUsize,
    openings: AtomicU64,
    /// The server answered the GET with something other than a stream (405: it has none).
    refused: AtomicBool,
    /// Requests waiting for their stream to be resumed (each with its number), oldest first.
    resuming: Mutex<VecDeque<(u64, InFlight)>>,
    resumptions: AtomicU64,
    changed: Notify,
}

/// One session's GET-stream gate (cheap to clone; clones share it).
#[derive(Clone, Default)]
pub struct Listener(Arc<State>);

/// A POST in flight: counted until dropped.
pub struct InFlight(Listener);

impl Drop for InFlight {
    fn drop(&mut self) {
        (self.0).0.in_flight.fetch_sub(1, Ordering::SeqCst);
        (self.0).0.changed.notify_waiters();
    }
}

/// An open GET stream: counted until dropped (with the stream that holds it).
pub struct OpenStream(Listener);

impl Drop for OpenStream {
    fn drop(&mut self) {
        (self.0).0.open.fetch_sub(1, Ordering::SeqCst);
        (self.0).0.changed.notify_waiters();
    }
}

impl Listener {
    /// Counts a POST until the returned guard drops.
    pub fn post_started(&self) -> InFlight {
        self.0.started.fetch_add(1, Ordering::SeqCst);
        self.0.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(self.clone())
    }

    /// Counts an open GET stream until the returned guard drops.
    pub fn stream_opened(&self) -> OpenStream {
        self.0.open.fetch_add(1, Ordering::SeqCst);
        self.0.openings.fetch_add(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
        OpenStream(self.clone())
    }

    /// The server has no GET stream to give (it answered 405 or with no event stream).
    pub fn stream_refused(&self) {
        self.0.refused.store(true, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }

    /// Whether the server refused a GET stream.
    pub fn is_refused(&self) -> bool {
        self.0.refused.load(Ordering::SeqCst)
    }

    /// Keeps a request counted after its POST's event stream ended unanswered but resumable,
    /// until a resumed stream takes it over ([`Listener::resumed`]) or `bound` passes (the server
    /// may never be asked again: rmcp gives up, the session ends).
    pub fn await_resumption(&self, in_flight: InFlight, bound: Duration) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let number = self.0.resumptions.fetch_add(1, Ordering::SeqCst);
        match self.0.resuming.lock() {
            Ok(mut resuming) => resuming.push_back((number, in_flight)),
            Err(_) => return,
        }
        let state = Arc::downgrade(&self.0);
        runtime.spawn(async move {
            tokio::time::sleep(bound).await;
            let Some(state) = state.upgrade() else { return };
            let expired = state.resuming.lock().ok().and_then(|mut r| {
                let at = r.iter().position(|(n, _)| *n == number)?;
                r.remove(at)
            });
            drop(expired);
        });
    }

    /// The oldest request waiting for a resumed stream, for the stream that resumes it to hold.
    pub fn resumed(&self) -> Option<InFlight> {
        self.0.resuming.lock().ok()?.pop_front().map(|(_, in_flight)| in_flight)
    }

    /// Asks for the GET stream now.
    pub fn want(&self) {
        self.0.wanted.store(true, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }

    /// Whether a GET stream is open now.
    pub fn is_open(&self) -> bool {
        self.0.open.load(Ordering::SeqCst) > 0
    }

    /// How many times a GET stream opened.
    pub fn openings(&self) -> u64 {
        self.0.openings.load(Ordering::SeqCst)
    }

    /// Waits until the GET may go out: wanted, or the session quiet for `quiet`.
    pub async fn until_wanted(&self, quiet: Duration) {
        loop {
            let changed = self.0.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.0.wanted.load(Ordering::SeqCst) {
                return;
            }
            // A server that had no stream to give (a resumed session's, see `resume`) is asked
            // again only when something wants the stream.
            if self.0.in_flight.load(Ordering::SeqCst) > 0 || self.0.refused.load(Ordering::SeqCst) {
                changed.await;
                continue;
            }
            let started = self.0.started.load(Ordering::SeqCst);
            tokio::select! {
                _ = tokio::time::sleep(quiet) => {
                    if self.0.in_flight.load(Ordering::SeqCst) == 0 && self.0.started.load(Ordering::SeqCst) == started {
                        return;
                    }
                }
                _ = &mut changed => {}
            }
        }
    }

    /// Waits until the session may park (see `connection::park`): its server has no stream to
    /// give, nothing wants one, and no request has been in flight or started for `quiet`.
    /// Returns false, without waiting for that, once nothing wants the session any more
    /// (`alive` turned false; checked at least every `quiet`) or once something wants its stream
    /// (a session that keeps a channel never parks).
    pub async fn until_idle(&self, quiet: Duration, alive: impl Fn() -> bool) -> bool {
        loop {
            if self.0.wanted.load(Ordering::SeqCst) {
                return false;
            }
            if self.is_open() {
                // An open stream is a channel: wait for it to close (its end is told).
                let changed = self.0.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if self.is_open() {
                    changed.await;
                }
                if !alive() {
                    return false;
                }
                continue;
            }
            let started = self.0.started.load(Ordering::SeqCst);
            tokio::time::sleep(quiet).await;
            if !alive() {
                return false;
            }
            if self.is_idle() && self.0.started.load(Ordering::SeqCst) == started {
                return true;
            }
        }
    }

    /// Whether the session could park now: no stream open or wanted (the server refused one), no
    /// request in flight or awaiting its resumed stream.
    pub fn is_idle(&self) -> bool {
        let s = &self.0;
        s.refused.load(Ordering::SeqCst)
            && !s.wanted.load(Ordering::SeqCst)
            && s.open.load(Ordering::SeqCst) == 0
            && s.in_flight.load(Ordering::SeqCst) == 0
            && s.resuming.lock().is_ok_and(|r| r.is_empty())
    }

    /// Waits (at most `bound`) until `done` holds, re-checking whenever the state changes.
    async fn until(&self, bound: Duration, done: impl Fn(&Self) -> bool) {
        let _ = tokio::time::timeout(bound, async {
            loop {
                let changed = self.0.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if done(self) {
                    return;
                }
                changed.await;
            }
        })
        .await;
    }

    /// Waits (at most `bound`) until a GET stream is open, or the server refused one; whether one is open.
    pub async fn until_open(&self, bound: Duration) -> bool {
        self.until(bound, |l| l.is_open() || l.0.refused.load(Ordering::SeqCst)).await;
        self.is_open()
    }

    /// Waits (at most `bound`) until no GET stream is open; whether one was open when called.
    pub async fn until_closed(&self, bound: Duration) -> bool {
        let had = self.is_open();
        self.until(bound, |l| !l.is_open()).await;
        had
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_stream_waits_while_requests_run_and_goes_out_after_a_quiet_spell() {
        let listener = Listener::default();
        let post = listener.post_started();
        let waiting = tokio::spawn({
            let l = listener.clone();
            async move { l.until_wanted(QUIET_BEFORE_LISTENING).await }
        });
        tokio::time::sleep(QUIET_BEFORE_LISTENING * 5).await;
        assert!(!waiting.is_finished(), "a request in flight holds the stream back");
        drop(post);
        // A request that starts during the quiet spell starts the spell again.
        tokio::time::sleep(QUIET_BEFORE_LISTENING / 2).await;
        drop(listener.post_started());
        tokio::time::sleep(QUIET_BEFORE_LISTENING * 3 / 4).await;
        assert!(!waiting.is_finished(), "the quiet spell restarts after a request");
        tokio::time::sleep(QUIET_BEFORE_LISTENING).await;
        assert!(waiting.is_finished());
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_awaiting_its_resumed_stream_keeps_the_session_busy() {
        let listener = Listener::default();
        let waiting = tokio::spawn({
            let l = listener.clone();
            async move { l.until_wanted(QUIET_BEFORE_LISTENING).await }
        });
        listener.await_resumption(listener.post_started(), Duration::from_secs(2));
        tokio::time::sleep(QUIET_BEFORE_LISTENING * 3).await;
        assert!(!waiting.is_finished(), "the stream is to be resumed: not quiet");
        // The resumed stream holds it until the answer; then the session is quiet again.
        let held = listener.resumed().expect("the request awaiting resumption");
        assert!(listener.resumed().is_none());
        tokio::time::sleep(QUIET_BEFORE_LISTENING * 3).await;
        assert!(!waiting.is_finished());
        drop(held);
        tokio::time::sleep(QUIET_BEFORE_LISTENING * 2).await;
        assert!(waiting.is_finished());
    }

    #[tokio::test(start_paused = true)]
    async fn a_resumption_never_asked_for_ends_at_its_bound() {
        let listener = Listener::default();
        listener.await_resumption(listener.post_started(), Duration::from_secs(1));
        let waiting = tokio::spawn({
            let l = listener.clone();
            async move { l.until_wanted(QUIET_BEFORE_LISTENING).await }
        });
        tokio::time::sleep(Duration::from_millis(900)).await;
        assert!(!waiting.is_finished());
        tokio::time::sleep(Duration::from_millis(100) + QUIET_BEFORE_LISTENING * 2).await;
        assert!(waiting.is_finished(), "bounded: the session is quiet again");
        assert!(listener.resumed().is_none(), "the expired request is gone");
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_is_idle_after_a_quiet_spell_only_when_its_server_has_no_stream_and_nothing_wants_one() {
        let listener = Listener::default();
        let idle = |l: &Listener| {
            let l = l.clone();
            tokio::spawn(async move { l.until_idle(Duration::from_secs(1), || true).await })
        };
        // The server has not refused a stream yet: not idle, however quiet.
        let waiting = idle(&listener);
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiting.is_finished());
        listener.stream_refused();
        let post = listener.post_started();
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiting.is_finished(), "a request in flight");
        drop(post);
        tokio::time::sleep(Duration::from_millis(2100)).await;
        assert!(waiting.await.expect("joined"), "quiet for a spell");
        // A stream wanted: the session keeps its channel and never parks.
        listener.want();
        assert!(!idle(&listener).await.expect("joined"));
    }

    #[tokio::test(start_paused = true)]
    async fn waiting_for_idleness_ends_when_the_session_does() {
        let listener = Listener::default();
        let alive = Arc::new(AtomicBool::new(true));
        let open = listener.stream_opened();
        let waiting = tokio::spawn({
            let (l, alive) = (listener.clone(), alive.clone());
            async move { l.until_idle(Duration::from_secs(1), move || alive.load(Ordering::SeqCst)).await }
        });
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert!(!waiting.is_finished(), "an open stream is a channel");
        alive.store(false, Ordering::SeqCst);
        drop(open);
        assert!(!waiting.await.expect("joined"), "the session ended: no parking");
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_stream_is_asked_for_again_only_when_wanted() {
        let listener = Listener::default();
        listener.stream_refused();
        let waiting = tokio::spawn({
            let l = listener.clone();
            async move { l.until_wanted(QUIET_BEFORE_LISTENING).await }
        });
        tokio::time::sleep(QUIET_BEFORE_LISTENING * 10).await;
        assert!(!waiting.is_finished());
        listener.want();
        tokio::time::timeout(Duration::from_millis(1), waiting).await.expect("wanted: no wait").expect("joined");
    }

    #[tokio::test(start_paused = true)]
    async fn wanting_the_stream_sends_it_at_once_and_openings_are_counted() {
        let listener = Listener::default();
        let _post = listener.post_started();
        let waiting = tokio::spawn({
            let l = listener.clone();
            async move { l.until_wanted(QUIET_BEFORE_LISTENING).await }
        });
        tokio::task::yield_now().await;
        listener.want();
        tokio::time::timeout(Duration::from_millis(1), waiting).await.expect("wanted: no wait").expect("joined");
        assert!(!listener.is_open());
        let open = listener.stream_opened();
        assert!(listener.is_open() && listener.openings() == 1);
        assert!(listener.until_open(Duration::from_secs(1)).await);
        drop(open);
        assert!(!listener.is_open());
        assert!(!listener.until_closed(Duration::from_secs(1)).await, "none was open");
    }
}

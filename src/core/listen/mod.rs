//! In a 2026-07-28 session, list-changed and resource-updated notifications arrive only on a
//! `subscriptions/listen` request. A session keeps one open only while something needs it — a
//! list-changed handler or a resource subscription ([`Interest`]) — asking for exactly that, and
//! replaces it (the old one cancelled) when the interest changes; with none, no stream is held
//! (a long-lived request per server costs on serverless hosts). Its notifications reach the same
//! handlers as in the handshake era through the transport, which routes every notification it
//! receives (`Observed` for HTTP, the stdio pipe) — so this only keeps the subscription open and
//! drained; routing them here too delivered each one twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};
use rmcp::service::RoleClient;
use rmcp::service::Subscription;
use rmcp::Peer;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

mod interest;
pub use interest::{Interest, ListKind};

use super::connection::announce::CancelAnnouncer;
use super::connection::{Connection, Layer, Live, RequestOptions};
use super::error::{ErrorKind, McpError, Result};
use super::handler::HandlerShared;
use super::input;

/// The list changes and resources this server's notifications are wanted for (kept across
/// reconnects): what a 2026-07-28 session's `subscriptions/listen` asks for (a connection slot).
#[derive(Default)]
struct Wanted(Mutex<Interest>);

/// The layer's hooks: a new session listens for what is wanted, a renewed one listens again,
/// a closing one stops.
pub struct Hook;

impl Layer for Hook {
    fn opened(&self, conn: &Connection, live: &Arc<Live>) {
        let interest = interest(conn);
        if !interest.is_empty() || asks_unasked(conn.shared()) {
            live.want_channel();
        }
        listen(conn, live);
    }

    fn renewed<'a>(&'a self, conn: &'a Connection, live: &'a Arc<Live>) -> BoxFuture<'a, ()> {
        // A reconnect severs the stream: the server is not told. The reconnect returns once the
        // new stream is acknowledged (bounded), as 2.0's does: an update announced right after
        // it is not missed.
        if let Some(listener) = live.slots.peek::<Listener>() {
            listener.stop(false);
        }
        let acknowledged = listen(conn, live);
        async move {
            if let Some(acknowledged) = acknowledged {
                acknowledged.wait().await;
            }
        }
        .boxed()
    }

    fn disconnecting<'a>(&'a self, conn: &'a Connection) -> BoxFuture<'a, ()> {
        // The stream is closed while the session is still live, and `disconnect()` waits until
        // the server was told (bounded): told from a task racing the session's end, the
        // cancellation could be lost with it.
        let closed = conn.try_current().and_then(|live| live.slots.peek::<Listener>().and_then(|l| l.close()));
        async move {
            if let Some(closed) = closed {
                let _ = tokio::time::timeout(ACK_BOUND + CLOSE_MARGIN, closed).await;
            }
        }
        .boxed()
    }

    fn closing(&self, live: &Live) {
        if let Some(listener) = live.slots.peek::<Listener>() {
            listener.stop(true);
        }
    }
}

/// What closing a stream may take beyond waiting for its acknowledgement: telling the server.
const CLOSE_MARGIN: Duration = Duration::from_secs(2);

/// Whether the client advertises what a server may ask of it at any time (elicitation, roots,
/// sampling): a handshake session's channel for unasked messages is then opened at once, since
/// a server may send such a request there while one of our calls waits for it.
fn asks_unasked(shared: &HandlerShared) -> bool {
    shared.elicitation.load(std::sync::atomic::Ordering::SeqCst)
        || shared.advertise_roots
        || shared.user_capabilities.contains_key("sampling")
        || shared.unasked_handler.load(std::sync::atomic::Ordering::SeqCst)
}

/// Makes the session's `subscriptions/listen` ask for what is wanted now (2026-07-28 sessions
/// only). The interest is read under the stream's lock, so concurrent changes end with the
/// stream asking for the last interest, whatever order their calls get here in.
fn listen(conn: &Connection, live: &Live) -> Option<Acknowledged> {
    if live.is_modern() {
        live.slots.get::<Listener>().apply(live, conn.shared(), || interest(conn))
    } else {
        None
    }
}

/// Settles once the stream asking for an interest is acknowledged by the server (or failed,
/// or was replaced before): registering a handler or subscribing resolves then, as in 2.0.
pub struct Acknowledged {
    settled: tokio::sync::watch::Receiver<u64>,
    /// The generation of the interest asked for.
    target: u64,
}

impl Acknowledged {
    async fn wait(mut self) {
        let target = self.target;
        // A stream task that ended (the session closed) settles every waiter.
        let _ = tokio::time::timeout(ACK_BOUND, self.settled.wait_for(|s| *s >= target)).await;
    }
}

/// What this server's notifications are wanted for.
pub fn interest(conn: &Connection) -> Interest {
    conn.slots().peek::<Wanted>().and_then(|w| w.0.lock().ok().map(|i| i.clone())).unwrap_or_default()
}

/// How long registering a handler or subscribing waits for a handshake session's channel of
/// unasked server messages (a Streamable HTTP GET stream) to open.
const CHANNEL_OPEN_BOUND: Duration = Duration::from_secs(5);

/// A handler for a list's changes was registered: a 2026-07-28 session listens for them
/// from now on (and so does every later session of this server); a handshake session's channel
/// for them is opened if it is not yet (see `transport::listener`).
pub async fn want_list_changes(conn: &Connection, kind: ListKind) {
    let changed = conn.slots().get::<Wanted>().0.lock().is_ok_and(|mut i| i.want(kind));
    let Some(live) = conn.try_current() else {
        return;
    };
    if live.is_modern() {
        if changed {
            if let Some(acknowledged) = listen(conn, &live) {
                acknowledged.wait().await;
            }
        }
    } else {
        live.open_channel(CHANNEL_OPEN_BOUND).await;
    }
}

/// `resources/subscribe`; in a 2026-07-28 session, the resource joins the session's
/// `subscriptions/listen` instead (which is reopened).
pub async fn subscribe_resource(conn: &Connection, uri: &str) -> Result<Value> {
    resource_subscription(conn, uri, true).await
}

/// `resources/unsubscribe`, or leaving the 2026-07-28 `subscriptions/listen`.
pub async fn unsubscribe_resource(conn: &Connection, uri: &str) -> Result<Value> {
    resource_subscription(conn, uri, false).await
}

async fn resource_subscription(conn: &Connection, uri: &str, subscribe: bool) -> Result<Value> {
    let live = conn.ensure_connected().await?;
    if !live.is_modern() {
        if let Ok(mut interest) = conn.slots().get::<Wanted>().0.lock() {
            interest.subscribe(uri, subscribe);
        }
        if subscribe {
            // Updates come as unasked messages: their channel is open before the server is asked.
            live.open_channel(CHANNEL_OPEN_BOUND).await;
        }
        let method = if subscribe { "resources/subscribe" } else { "resources/unsubscribe" };
        return input::request(conn, method, json!({ "uri": uri }), RequestOptions::default()).await;
    }
    {
        let wanted = conn.slots().get::<Wanted>();
        let mut interest = wanted.0.lock().map_err(|_| McpError::new(ErrorKind::InvalidState, conn.name(), "subscriptions lock poisoned"))?;
        interest.subscribe(uri, subscribe);
    }
    if let Some(acknowledged) = listen(conn, &live) {
        acknowledged.wait().await;
    }
    Ok(json!({}))
}

/// The `subscriptions/listen` stream of one session and what it should ask for. One task per
/// session drives it: changes are applied one at a time, as `@mastra/mcp` 2.0 serializes them
/// (a stream is replaced only once the server acknowledged it, so every replaced stream that went
/// out is cancelled by id on the wire, whatever carries the bytes); changes made while a
/// replacement is on its way are gathered into the next one (only the last interest is asked for).
pub struct Listener {
    driver: Mutex<Option<Driver>>,
    /// The generation of the last interest asked for, over every stream of the session (a
    /// stream severed by a reconnect is followed by one that settles what was asked of it).
    asked: std::sync::atomic::AtomicU64,
    /// The last generation settled (acknowledged, refused, or given up).
    settled: tokio::sync::watch::Sender<u64>,
}

impl Default for Listener {
    fn default() -> Self {
        Listener { driver: Mutex::new(None), asked: Default::default(), settled: tokio::sync::watch::channel(0).0 }
    }
}

/// What the session's stream task is asked to do.
struct Driver {
    /// The interest the stream should ask for, and its generation (bumped on each change).
    wanted: Arc<Mutex<(Interest, u64)>>,
    /// Wakes the task when `wanted` changes.
    wake: Arc<tokio::sync::Notify>,
    stop: CancellationToken,
    /// Set when the stream is ended on purpose (closed): the server is told. A stream severed
    /// by a reconnect is not.
    told: Arc<AtomicBool>,
    /// Settles when the stream's task has ended (its sender is dropped with the task).
    done: tokio::sync::oneshot::Receiver<()>,
}

/// How long registering a handler or subscribing waits for the server to acknowledge the stream.
const ACK_BOUND: Duration = Duration::from_secs(5);

impl Listener {
    /// Makes the session's stream ask for `interest`: nothing happens when it already does; an
    /// empty interest closes it; otherwise a new stream replaces the old one (which is cancelled)
    /// once the stream before it is settled. Returns what settles once the stream asking for this
    /// interest is acknowledged (or refused), if one was asked for.
    pub fn apply(&self, live: &Live, shared: &Arc<HandlerShared>, wanted: impl FnOnce() -> Interest) -> Option<Acknowledged> {
        let Ok(mut driver) = self.driver.lock() else {
            return None;
        };
        let interest = wanted();
        let Some(running) = driver.as_ref() else {
            if interest.is_empty() {
                // Nothing to open: whatever was asked of a stream severed before is settled.
                let asked = self.asked.load(Ordering::SeqCst);
                self.settle(asked);
                return None;
            }
            let target = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
            let (finished, done) = tokio::sync::oneshot::channel();
            let started = Driver {
                wanted: Arc::new(Mutex::new((interest, target))),
                wake: Default::default(),
                stop: CancellationToken::new(),
                told: Default::default(),
                done,
            };
            let task = Task {
                peer: live.peer().clone(),
                announcer: live.cancel_announcer(),
                shared: shared.clone(),
                wanted: started.wanted.clone(),
                wake: started.wake.clone(),
                stop: started.stop.clone(),
                told: started.told.clone(),
                settle: self.settled.clone(),
                _finished: finished,
            };
            tokio::spawn(task.run());
            *driver = Some(started);
            return Some(Acknowledged { settled: self.settled.subscribe(), target });
        };
        let target = {
            let Ok(mut asked) = running.wanted.lock() else {
                return None;
            };
            if asked.0 != interest {
                asked.0 = interest;
                asked.1 = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
                running.wake.notify_one();
            }
            asked.1
        };
        Some(Acknowledged { settled: self.settled.subscribe(), target })
    }

    fn settle(&self, generation: u64) {
        self.settled.send_modify(|s| *s = (*s).max(generation));
    }

    /// Closes the stream (the server is told): what settles once its task has ended, if one runs.
    pub fn close(&self) -> Option<impl std::future::Future<Output = ()>> {
        let driver = self.driver.lock().ok().and_then(|mut d| d.take());
        self.settle(u64::MAX);
        let driver = driver?;
        driver.told.store(true, Ordering::SeqCst);
        driver.stop.cancel();
        Some(async move {
            let _ = driver.done.await;
        })
    }

    /// Closes the stream, if any; `tell`: the server is told it is cancelled (not when a
    /// reconnect severs it, and the stream that follows settles what was asked of it).
    pub fn stop(&self, tell: bool) {
        if let Some(driver) = self.driver.lock().ok().and_then(|mut d| d.take()) {
            driver.told.store(tell, Ordering::SeqCst);
            driver.stop.cancel();
        }
        if tell {
            // The session is closing: nobody waits for its streams any more.
            self.settle(u64::MAX);
        }
    }
}

/// Ends an acknowledged subscription: rmcp's cancel, and, where rmcp only closes the stream, the
/// server told with `notifications/cancelled` (when `tell`).
async fn cancel(mut subscription: Subscription, announcer: Option<Arc<CancelAnnouncer>>, tell: bool) {
    // The server is told first: a session that is being closed may not get to rmcp's cancel.
    if let (true, Some(announcer)) = (tell, announcer) {
        announcer.announce(subscription.id(), "the subscription was replaced or closed").await;
    }
    let _ = subscription.cancel().await;
}

/// The task that keeps one session's stream asking for what is wanted.
struct Task {
    peer: Peer<RoleClient>,
    announcer: Option<Arc<CancelAnnouncer>>,
    shared: Arc<HandlerShared>,
    wanted: Arc<Mutex<(Interest, u64)>>,
    wake: Arc<tokio::sync::Notify>,
    stop: CancellationToken,
    told: Arc<AtomicBool>,
    settle: tokio::sync::watch::Sender<u64>,
    /// Dropped with the task: tells `Listener::close` it has ended.
    _finished: tokio::sync::oneshot::Sender<()>,
}

/// The stream that is open, and the interest it was asked for.
struct Open {
    interest: Interest,
    /// `None` once the server ended it (or it failed): nothing to drain or cancel.
    subscription: Option<Subscription>,
}

impl Task {
    fn settled(&self, generation: u64) {
        self.settle.send_modify(|s| *s = (*s).max(generation));
    }

    /// Drains an open subscription's notifications (already routed by the transport in arrival
    /// order, see the module docs) until it ends; pending forever when there is none.
    async fn drain(&self, open: &mut Option<Open>) {
        let Some(subscription) = open.as_mut().and_then(|o| o.subscription.as_mut()) else {
            return std::future::pending().await;
        };
        loop {
            match subscription.next().await {
                Ok(Some(_notification)) => {}
                Ok(None) => {
                    self.shared.diagnostic("debug", format!("subscriptions/listen ended ({:?})", subscription.end()));
                    break;
                }
                Err(e) => {
                    self.shared.diagnostic("debug", format!("subscriptions/listen failed: {e}"));
                    break;
                }
            }
        }
        if let Some(o) = open.as_mut() {
            o.subscription = None;
        }
    }

    async fn run(self) {
        let mut open: Option<Open> = None;
        loop {
            let Ok((interest, generation)) = self.wanted.lock().map(|w| w.clone()) else {
                return;
            };
            if open.as_ref().map(|o| &o.interest) == Some(&interest) || (open.is_none() && interest.is_empty()) {
                self.settled(generation);
                tokio::select! {
                    biased;
                    _ = self.stop.cancelled() => break,
                    _ = self.wake.notified() => continue,
                    _ = self.drain(&mut open) => continue,
                }
            }
            if interest.is_empty() {
                if let Some(subscription) = open.take().and_then(|o| o.subscription) {
                    cancel(subscription, self.announcer.clone(), true).await;
                }
                continue;
            }
            let replacement = {
                let listening = self.peer.listen(interest.filter());
                tokio::pin!(listening);
                loop {
                    tokio::select! {
                        biased;
                        // Closing: the stream on its way is waited for (bounded), so that, once
                        // the server acknowledged it, it can be cancelled by id as well. Severed by
                        // a reconnect: it is dropped (rmcp closes its request).
                        _ = self.stop.cancelled() => {
                            if self.told.load(Ordering::SeqCst) {
                                if let Ok(Ok(subscription)) = tokio::time::timeout(ACK_BOUND, &mut listening).await {
                                    cancel(subscription, self.announcer.clone(), true).await;
                                }
                            }
                            break None;
                        }
                        opened = &mut listening => break Some(opened),
                        _ = self.drain(&mut open) => {}
                    }
                }
            };
            let Some(opened) = replacement else { break };
            self.settled(generation);
            match opened {
                Ok(subscription) => {
                    // The new stream carries the interest now: the one it replaces is cancelled.
                    if let Some(old) = open.replace(Open { interest, subscription: Some(subscription) }).and_then(|o| o.subscription) {
                        cancel(old, self.announcer.clone(), true).await;
                    }
                }
                Err(e) => {
                    self.shared.diagnostic("debug", format!("subscriptions/listen was not accepted: {e}"));
                    // Not asked again until the interest changes; the stream before it stays.
                    match open.as_mut() {
                        Some(o) => o.interest = interest,
                        None => open = Some(Open { interest, subscription: None }),
                    }
                }
            }
        }
        if let Some(subscription) = open.and_then(|o| o.subscription) {
            cancel(subscription, self.announcer.clone(), self.told.load(Ordering::SeqCst)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interest_changes_only_when_something_new_is_asked() {
        let mut interest = Interest::default();
        assert!(interest.is_empty());
        assert!(interest.want(ListKind::Tools));
        assert!(!interest.want(ListKind::Tools));
        assert!(interest.subscribe("a://1", true));
        assert!(!interest.subscribe("a://1", true));
        assert!(interest.subscribe("a://1", false));
        assert!(!interest.subscribe("a://1", false));
        assert!(!interest.is_empty(), "the tools handler still wants the stream");
    }
}

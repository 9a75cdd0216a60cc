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

use rmcp::model::SubscriptionFilter;
use rmcp::service::RoleClient;
use rmcp::service::Subscription;
use rmcp::Peer;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

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

    fn renewed(&self, conn: &Connection, live: &Arc<Live>) {
        // A reconnect severs the stream: the server is not told.
        if let Some(listener) = live.slots.peek::<Listener>() {
            listener.stop(false);
        }
        listen(conn, live);
    }

    fn closing(&self, live: &Live) {
        if let Some(listener) = live.slots.peek::<Listener>() {
            listener.stop(true);
        }
    }
}

/// Whether the client advertises what a server may ask of it at any time (elicitation, roots,
/// sampling): a handshake session's channel for unasked messages is then opened at once, since
/// a server may send such a request there while one of our calls waits for it.
fn asks_unasked(shared: &HandlerShared) -> bool {
    shared.elicitation.load(std::sync::atomic::Ordering::SeqCst) || shared.advertise_roots || shared.user_capabilities.contains_key("sampling")
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
pub struct Acknowledged(tokio::sync::watch::Receiver<bool>);

impl Acknowledged {
    async fn wait(mut self) {
        let _ = tokio::time::timeout(ACK_BOUND, self.0.wait_for(|done| *done)).await;
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
    let Some(live) = conn.try_current() else { return };
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

/// What a server's notifications are wanted for; kept by the connection across sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interest {
    pub tools_list_changed: bool,
    pub prompts_list_changed: bool,
    pub resources_list_changed: bool,
    /// Resources subscribed to, in subscription order.
    pub resources: Vec<String>,
}

/// A kind of list whose changes a handler listens for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl Interest {
    pub fn is_empty(&self) -> bool {
        *self == Interest::default()
    }

    /// Marks a list's changes as wanted; whether that changed anything.
    pub fn want(&mut self, kind: ListKind) -> bool {
        let flag = match kind {
            ListKind::Tools => &mut self.tools_list_changed,
            ListKind::Prompts => &mut self.prompts_list_changed,
            ListKind::Resources => &mut self.resources_list_changed,
        };
        !std::mem::replace(flag, true)
    }

    /// Adds or removes a resource subscription; whether that changed anything.
    pub fn subscribe(&mut self, uri: &str, subscribe: bool) -> bool {
        let had = self.resources.iter().any(|u| u == uri);
        match (had, subscribe) {
            (false, true) => self.resources.push(uri.to_string()),
            (true, false) => self.resources.retain(|u| u != uri),
            _ => return false,
        }
        true
    }

    fn filter(&self) -> SubscriptionFilter {
        let mut builder = SubscriptionFilter::builder();
        if self.tools_list_changed {
            builder = builder.tools_list_changed();
        }
        if self.prompts_list_changed {
            builder = builder.prompts_list_changed();
        }
        if self.resources_list_changed {
            builder = builder.resources_list_changed();
        }
        for uri in &self.resources {
            builder = builder.resource_subscription(uri.clone());
        }
        builder.build()
    }
}

/// The `subscriptions/listen` stream of one session, if one is open, and what it asks for.
#[derive(Default)]
pub struct Listener {
    open: Mutex<Option<OpenStream>>,
}

struct OpenStream {
    interest: Interest,
    stop: CancellationToken,
    /// Set when the stream is ended on purpose (replaced, or closed): the server is told.
    /// A stream severed by a reconnect is not.
    told: Arc<AtomicBool>,
}

impl OpenStream {
    fn end(self, tell: bool) {
        self.told.store(tell, Ordering::SeqCst);
        self.stop.cancel();
    }
}

/// How long registering a handler or subscribing waits for the server to acknowledge the stream.
const ACK_BOUND: Duration = Duration::from_secs(5);

impl Listener {
    /// Makes the session's stream ask for `interest`: nothing happens when it already does; an
    /// empty interest closes it; otherwise a new stream replaces the old one (which is cancelled).
    /// Returns what settles once the new stream is acknowledged, if one was started.
    pub fn apply(&self, live: &Live, shared: &Arc<HandlerShared>, wanted: impl FnOnce() -> Interest) -> Option<Acknowledged> {
        let Ok(mut open) = self.open.lock() else { return None };
        let interest = &wanted();
        if open.as_ref().map(|o| &o.interest) == Some(interest) || (open.is_none() && interest.is_empty()) {
            return None;
        }
        let (acked, acknowledged) = tokio::sync::watch::channel(false);
        let replacement = (!interest.is_empty()).then(|| {
            let stream = OpenStream { interest: interest.clone(), stop: CancellationToken::new(), told: Default::default() };
            let control = Control { stop: stream.stop.clone(), told: stream.told.clone(), acked };
            start(live.peer().clone(), live.cancel_announcer(), shared.clone(), interest.filter(), control);
            stream
        });
        let started = replacement.is_some();
        if let Some(old) = std::mem::replace(&mut *open, replacement) {
            old.end(true);
        }
        started.then_some(Acknowledged(acknowledged))
    }

    /// Closes the stream, if any; `tell`: the server is told it is cancelled (not when a
    /// reconnect severs it).
    pub fn stop(&self, tell: bool) {
        if let Some(open) = self.open.lock().ok().and_then(|mut o| o.take()) {
            open.end(tell);
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

/// How a stream's task is told to end, and tells that it is acknowledged.
struct Control {
    stop: CancellationToken,
    told: Arc<AtomicBool>,
    acked: tokio::sync::watch::Sender<bool>,
}

/// Opens the subscription on `peer` and drains it until `stop` fires or the subscription ends.
/// Returns at once; the work runs on the runtime.
fn start(peer: Peer<RoleClient>, announcer: Option<Arc<CancelAnnouncer>>, shared: Arc<HandlerShared>, filter: SubscriptionFilter, control: Control) {
    let Control { stop, told, acked } = control;
    tokio::spawn(async move {
        let opened = tokio::select! {
            // A stream replaced before it went out (concurrent subscribe calls) is never sent;
            // one replaced before the server acknowledged it is closed at once (rmcp closes its
            // request), so it carries nothing more.
            biased;
            _ = stop.cancelled() => {
                let _ = acked.send(true);
                return;
            }
            opened = peer.listen(filter) => opened,
        };
        let _ = acked.send(true);
        let mut subscription = match opened {
            Ok(s) => s,
            Err(e) => {
                shared.diagnostic("debug", format!("subscriptions/listen was not accepted: {e}"));
                return;
            }
        };
        loop {
            tokio::select! {
                next = subscription.next() => match next {
                    // Already routed by the transport in arrival order (see the module docs).
                    Ok(Some(_notification)) => {}
                    Ok(None) => {
                        shared.diagnostic("debug", format!("subscriptions/listen ended ({:?})", subscription.end()));
                        return;
                    }
                    Err(e) => {
                        shared.diagnostic("debug", format!("subscriptions/listen failed: {e}"));
                        return;
                    }
                },
                _ = stop.cancelled() => {
                    cancel(subscription, announcer, told.load(Ordering::SeqCst)).await;
                    return;
                }
            }
        }
    });
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

//! In a 2026-07-28 session, list-changed and resource-updated notifications arrive only on a
//! `subscriptions/listen` request. A session keeps one open only while something needs it — a
//! list-changed handler or a resource subscription ([`Interest`]) — asking for exactly that, and
//! replaces it (the old one cancelled) when the interest changes; with none, no stream is held
//! (a long-lived request per server costs on serverless hosts). Its notifications reach the same
//! handlers as in the handshake era through the transport, which routes every notification it
//! receives (`Observed` for HTTP, the stdio pipe) — so this only keeps the subscription open and
//! drained; routing them here too delivered each one twice.

use std::sync::{Arc, Mutex};

use rmcp::model::SubscriptionFilter;
use rmcp::service::RoleClient;
use rmcp::Peer;
use tokio_util::sync::CancellationToken;

use super::handler::HandlerShared;

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
    open: Mutex<Option<(Interest, CancellationToken)>>,
}

impl Listener {
    /// Makes the session's stream ask for `interest`: nothing happens when it already does; an
    /// empty interest closes it; otherwise a new stream replaces the old one.
    pub fn apply(&self, peer: &Peer<RoleClient>, shared: &Arc<HandlerShared>, interest: &Interest) {
        let Ok(mut open) = self.open.lock() else { return };
        if open.as_ref().map(|(asked, _)| asked) == Some(interest) || (open.is_none() && interest.is_empty()) {
            return;
        }
        let replacement = (!interest.is_empty()).then(|| {
            let stop = CancellationToken::new();
            start(peer.clone(), shared.clone(), interest.filter(), stop.clone());
            (interest.clone(), stop)
        });
        if let Some((_, old)) = std::mem::replace(&mut *open, replacement) {
            old.cancel();
        }
    }

    /// Closes the stream, if any.
    pub fn stop(&self) {
        if let Some((_, stop)) = self.open.lock().ok().and_then(|mut o| o.take()) {
            stop.cancel();
        }
    }
}

/// Opens the subscription on `peer` and drains it until `stop` fires or the subscription ends.
/// Returns at once; the work runs on the runtime.
fn start(peer: Peer<RoleClient>, shared: Arc<HandlerShared>, filter: SubscriptionFilter, stop: CancellationToken) {
    tokio::spawn(async move {
        let mut subscription = tokio::select! {
            // A stream replaced before it went out (concurrent subscribe calls) is never sent.
            biased;
            _ = stop.cancelled() => return,
            opened = peer.listen(filter) => match opened {
                Ok(s) => s,
                Err(e) => {
                    shared.diagnostic("debug", format!("subscriptions/listen was not accepted: {e}"));
                    return;
                }
            },
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
                    let _ = subscription.cancel().await;
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

//! In a 2026-07-28 session, list-changed and resource-updated notifications arrive only on a
//! `subscriptions/listen` request. One is kept open per session, asking for every list change
//! and for the resources the user subscribed to; a change of those restarts it. Its
//! notifications reach the same handlers as in the handshake era through the transport, which
//! routes every notification it receives (`Observed` for HTTP, the stdio pipe) — so this only
//! keeps the subscription open and drained; routing them here too delivered each one twice.

use std::sync::Arc;

use rmcp::model::SubscriptionFilter;
use rmcp::service::RoleClient;
use rmcp::Peer;
use tokio_util::sync::CancellationToken;

use super::handler::HandlerShared;

/// Opens the subscription on `peer` and forwards its notifications until `stop` fires or the
/// subscription ends. Returns at once; the work runs on the runtime.
pub fn start(peer: Peer<RoleClient>, shared: Arc<HandlerShared>, resources: Vec<String>, stop: CancellationToken) {
    tokio::spawn(async move {
        let mut builder = SubscriptionFilter::builder().tools_list_changed().prompts_list_changed().resources_list_changed();
        for uri in resources {
            builder = builder.resource_subscription(uri);
        }
        let filter = builder.build();
        let mut subscription = tokio::select! {
            opened = peer.listen(filter) => match opened {
                Ok(s) => s,
                Err(e) => {
                    shared.diagnostic("debug", format!("subscriptions/listen was not accepted: {e}"));
                    return;
                }
            },
            _ = stop.cancelled() => return,
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

//! A transport wrapper that shows every server notification to the client's handler state in
//! the order it arrived, before rmcp (which dispatches each on its own task) sees it, and strips
//! the progress token rmcp adds to requests nobody asked progress for.

use std::sync::Arc;

use rmcp::model::{GetExtensions, GetMeta, JsonRpcMessage};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::core::handler::HandlerShared;

/// Marks a request whose progress the user asked for; rmcp's own progress token is stripped from
/// every other request (see `Observed::send`).
#[derive(Clone, Copy)]
pub struct WantsProgress;

pub struct Observed<T> {
    inner: T,
    shared: Arc<HandlerShared>,
}

impl<T> Observed<T> {
    pub fn new(inner: T, shared: Arc<HandlerShared>) -> Self {
        Observed { inner, shared }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Observed<T> {
    type Error = T::Error;

    fn send(&mut self, mut item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        // rmcp puts a progress token on every request; only requests whose progress the user
        // asked for keep it, so a server sends no progress the user did not ask for.
        if let JsonRpcMessage::Request(r) = &mut item {
            if r.request.extensions().get::<WantsProgress>().is_none() {
                r.request.get_meta_mut().0 .0.remove("progressToken");
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if let Some(JsonRpcMessage::Notification(n)) = &message {
            self.shared.on_notification(&n.notification);
        }
        message
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

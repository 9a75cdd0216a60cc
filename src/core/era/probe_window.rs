//! `'auto'` over stdio: a server that neither answers nor refuses `server/discover` must not cost
//! rmcp's whole 10 s probe window (or, as under `@mastra/mcp` 2.0, the request timeout). Python
//! servers on `mcp` before 1.9.4 are the case: the session's reader dies on the probe's line, but
//! the process stays up and silent, its stdin reader blocked in a thread that no cancellation
//! reaches. Every server that reads the probe answers it in milliseconds (a result or an error),
//! so silence for [`SILENCE`] is the signal: this layer ends the stream, which the start reads as
//! a hang-up of a handshake-era server. The server is killed at once (its stdin is not closed
//! first, so a stuck Python server has no chance to print its traceback) and started again with
//! the handshake first — which also reaches a modern-only server that was merely slow to start.

use std::time::Duration;

use rmcp::model::{ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// How long the probe may stay unanswered.
pub const SILENCE: Duration = Duration::from_secs(1);

pub struct ProbeWindow<T> {
    inner: T,
    /// When the wait for the probe's answer ends, while it is unanswered.
    deadline: Option<tokio::time::Instant>,
    probe: Option<RequestId>,
}

impl<T> ProbeWindow<T> {
    pub fn new(inner: T) -> Self {
        ProbeWindow { inner, deadline: None, probe: None }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ProbeWindow<T> {
    type Error = T::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(r) = &item {
            if self.probe.is_none() && matches!(r.request, ClientRequest::DiscoverRequest(_)) {
                self.probe = Some(r.id.clone());
                self.deadline = Some(tokio::time::Instant::now() + SILENCE);
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = match self.deadline {
            Some(at) => tokio::select! {
                message = self.inner.receive() => message?,
                () = tokio::time::sleep_until(at) => {
                    tracing::debug!("server/discover unanswered for {SILENCE:?}: ending the probe");
                    self.deadline = None;
                    return None;
                }
            },
            None => self.inner.receive().await?,
        };
        let answers = match &message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if answers.is_some() && answers == self.probe.as_ref() {
            self.deadline = None;
        }
        Some(message)
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

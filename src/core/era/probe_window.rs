//! `'auto'` over stdio: a server that neither answers nor refuses `server/discover` must not cost
//! rmcp's whole 10 s probe window (or, as under `@mastra/mcp` 2.0, the request timeout). Python
//! servers on `mcp` before 1.9.4 are the case: the session's reader dies on the probe's line, but
//! the process stays up and silent, its stdin reader blocked in a thread that no cancellation
//! reaches. The signal is the pipe: once the server has read the probe (nothing we wrote is left
//! unread in its stdin), every server that understood it answers in milliseconds, so an answer
//! still missing [`SILENCE`] later ends the wait: this layer ends the stream, which the start
//! reads as a hang-up of a handshake-era server. The server is killed at once (its stdin is not
//! closed first, so a stuck Python server has no chance to print its traceback) and started
//! again with the handshake first. A server still starting (the probe unread) is waited for.

use std::time::Duration;

use rmcp::model::{ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// How long a probe the server has read may stay unanswered.
pub const SILENCE: Duration = Duration::from_secs(1);
/// How often the pipe is looked at while the probe is unanswered.
const POLL: Duration = Duration::from_millis(50);

/// What the server has not read yet of what we wrote (`None`: unknown).
pub type Unread = Box<dyn Fn() -> Option<usize> + Send + Sync>;

pub struct ProbeWindow<T> {
    inner: T,
    unread: Unread,
    /// The probe's id, while it is unanswered.
    probe: Option<RequestId>,
    /// Since when the server has read everything, the probe included.
    read_since: Option<tokio::time::Instant>,
    answered: bool,
}

impl<T> ProbeWindow<T> {
    pub fn new(inner: T, unread: Unread) -> Self {
        ProbeWindow { inner, unread, probe: None, read_since: None, answered: false }
    }

    /// Whether the probe was read and left unanswered for `SILENCE` (checked at each poll).
    fn stuck(&mut self) -> bool {
        match (self.unread)() {
            Some(0) => {
                let since = *self.read_since.get_or_insert_with(tokio::time::Instant::now);
                since.elapsed() >= SILENCE
            }
            _ => {
                self.read_since = None;
                false
            }
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ProbeWindow<T> {
    type Error = T::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(r) = &item {
            if self.probe.is_none() && !self.answered && matches!(r.request, ClientRequest::DiscoverRequest(_)) {
                self.probe = Some(r.id.clone());
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = loop {
            if self.probe.is_none() {
                break self.inner.receive().await?;
            }
            tokio::select! {
                message = self.inner.receive() => break message?,
                () = tokio::time::sleep(POLL) => {
                    if self.stuck() {
                        tracing::debug!("server/discover read by the server and unanswered for {SILENCE:?}: ending the probe");
                        self.probe = None;
                        return None;
                    }
                }
            }
        };
        let answers = match &message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if answers.is_some() && answers == self.probe.as_ref() {
            self.probe = None;
            self.answered = true;
        }
        Some(message)
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

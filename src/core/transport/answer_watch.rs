//! Whether a request's event stream (its POST's, or the GET that resumes it) carried the
//! request's answer. Until it does, the request counts as in flight for the session's GET gate
//! (`listener`): a POST stream the server closes early, with an event id to resume from
//! (SEP-1699), hands its request over to the resumption, so the session's own GET does not go out
//! in the middle of it (the conformance suite's `sse-retry` saw that GET as a reconnect that did
//! not wait for the server's `retry`).

use std::time::Duration;

use serde::de::IgnoredAny;
use serde::Deserialize;
use sse_stream::Sse;

use super::listener::{InFlight, Listener};

/// rmcp's wait before resuming when the server gives no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// Beyond the wait before resuming, how long the request stays counted for it.
const RESUMPTION_MARGIN: Duration = Duration::from_secs(1);
/// The longest a request stays counted for a resumption that may never come.
const MAX_RESUMPTION_WAIT: Duration = Duration::from_secs(10);
/// A message longer than this is taken for the answer unread (notifications are small).
const LOOK_LIMIT: usize = 64 * 1024;

/// Watches the events of one request's stream; see the module.
pub struct AnswerWatch {
    request: Option<InFlight>,
    listener: Listener,
    resumable: bool,
    retry: Option<Duration>,
}

impl AnswerWatch {
    pub fn new(request: InFlight, listener: Listener) -> Self {
        Self { request: Some(request), listener, resumable: false, retry: None }
    }

    /// Looks at one event of the stream.
    pub fn observe(&mut self, event: &Sse) {
        if event.id.is_some() {
            self.resumable = true;
        }
        if let Some(retry) = event.retry {
            self.retry = Some(Duration::from_millis(retry));
        }
        if self.request.is_some() && event.data.as_deref().is_some_and(is_answer) {
            self.request = None;
        }
    }
}

impl Drop for AnswerWatch {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else { return };
        if self.resumable {
            let wait = self.retry.unwrap_or(DEFAULT_RETRY) + RESUMPTION_MARGIN;
            self.listener.await_resumption(request, wait.min(MAX_RESUMPTION_WAIT));
        }
    }
}

/// Whether an event's data is a JSON-RPC answer (a result or an error, not a request or a
/// notification of the server's).
fn is_answer(data: &str) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        method: Option<IgnoredAny>,
        result: Option<IgnoredAny>,
        error: Option<IgnoredAny>,
    }
    if data.len() > LOOK_LIMIT {
        return true;
    }
    serde_json::from_str::<Probe>(data).is_ok_and(|p| p.method.is_none() && (p.result.is_some() || p.error.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: Option<&str>, retry: Option<u64>, data: &str) -> Sse {
        Sse { event: None, data: Some(data.to_string()), id: id.map(str::to_string), retry }
    }

    #[test]
    fn answers_are_told_from_the_server_s_own_messages() {
        assert!(is_answer(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#));
        assert!(is_answer(r#"{"error":{"code":-32601,"message":"no"},"id":"n3","jsonrpc":"2.0"}"#));
        assert!(!is_answer(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#));
        assert!(!is_answer(r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}"#));
        assert!(!is_answer(""), "a priming event carries no message");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_closed_early_hands_its_request_to_the_resumption() {
        let listener = Listener::default();
        let mut watch = AnswerWatch::new(listener.post_started(), listener.clone());
        watch.observe(&event(Some("event-1"), Some(500), ""));
        drop(watch);
        let resumed = listener.resumed().expect("handed over");
        // The resumed stream carries the answer: the request is no longer counted.
        let mut watch = AnswerWatch::new(resumed, listener.clone());
        watch.observe(&event(Some("event-2"), None, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        drop(watch);
        assert!(listener.resumed().is_none(), "answered: nothing to resume");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_without_event_ids_cannot_be_resumed() {
        let listener = Listener::default();
        let watch = AnswerWatch::new(listener.post_started(), listener.clone());
        drop(watch);
        assert!(listener.resumed().is_none());
    }
}

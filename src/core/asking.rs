//! Asking the user for input: one request (a pushed `elicitation/create`, a key of an
//! `input_required` result, a task's input request) handed to the `ElicitationResponder` under a
//! process-unique id, and the bound on the wait for its answer. The core owns the request: when
//! the wait runs out it tells the responder (the face aborts the handler's `signal` with a
//! `TimeoutError`) before the failure is answered, so the face only forwards.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::Value;

use super::events::ElicitationResponder;

/// The ids of input requests, unique in the process (the face keys its abort controllers by them).
static NEXT_ID: AtomicU32 = AtomicU32::new(0);

/// Longest wait a timer represents (`2^31 - 1` ms, as a JavaScript timer): a timeout beyond it
/// (or none) leaves the wait unbounded.
const LONGEST_BOUND_MS: u64 = (1 << 31) - 1;

/// How long the answer is waited for: the server's request timeout, unless a handler registered
/// with `elicitation.onRequest` answers (`registered_handler`: it waits as long as it takes, as in
/// `@mastra/mcp` 1.18); the server definition's `inputRequests` is bounded (as in 2.0).
pub fn bound(timeout_ms: u64, registered_handler: bool) -> Option<Duration> {
    (!registered_handler && timeout_ms > 0 && timeout_ms <= LONGEST_BOUND_MS).then(|| Duration::from_millis(timeout_ms))
}

/// What the handler's `signal` aborts with when the wait runs out.
pub fn timed_out(server: &str, key: &str, bound: Duration) -> String {
    format!("Input request '{key}' from server {server} timed out after {}ms", bound.as_millis())
}

/// The error the call (or the server's request) fails with when the wait runs out.
pub fn failure(server: &str, reason: &str) -> String {
    format!("Elicitation handler for server {server} failed: {reason}")
}

/// Asks `responder` for the answer to one input request, within `bound`. Dropping the returned
/// future drops the wait (the responder tells the handler it is no longer wanted).
pub async fn ask(responder: &dyn ElicitationResponder, server: &str, key: &str, params: Value, bound: Option<Duration>) -> Result<Value, String> {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let answering = responder.respond(server.to_string(), key.to_string(), id, params);
    let Some(bound) = bound else { return answering.await };
    tokio::pin!(answering);
    tokio::select! {
        answer = &mut answering => answer,
        _ = tokio::time::sleep(bound) => {
            let reason = timed_out(server, key, bound);
            // The handler hears of the timeout before the wait is dropped (and before the failure
            // is answered), so its `signal` says why.
            responder.timed_out(server.to_string(), id, reason.clone()).await;
            Err(failure(server, &reason))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::future::BoxFuture;
    use serde_json::json;
    use std::sync::Mutex;

    #[test]
    fn the_wait_is_bounded_by_the_timeout_unless_a_registered_handler_answers() {
        assert_eq!(bound(3000, false), Some(Duration::from_millis(3000)));
        assert_eq!(bound(3000, true), None);
        assert_eq!(bound(0, false), None);
        assert_eq!(bound(1 << 31, false), None, "past a timer's reach: unbounded, as the face's was");
        assert_eq!(bound(LONGEST_BOUND_MS, false), Some(Duration::from_millis(LONGEST_BOUND_MS)));
    }

    #[test]
    fn a_timeout_names_the_request_server_and_bound() {
        let reason = timed_out("s", "address", Duration::from_millis(3000));
        assert_eq!(reason, "Input request 'address' from server s timed out after 3000ms");
        assert_eq!(failure("s", &reason), "Elicitation handler for server s failed: Input request 'address' from server s timed out after 3000ms");
    }

    /// Answers after `delay_ms` (never when `None`); records what the core told it.
    struct Slow {
        delay_ms: Option<u64>,
        told: Mutex<Vec<String>>,
    }

    impl ElicitationResponder for Slow {
        fn respond(&self, _server: String, key: String, id: u32, _params: Value) -> BoxFuture<'static, Result<Value, String>> {
            self.told.lock().unwrap().push(format!("ask {key}"));
            let delay = self.delay_ms;
            Box::pin(async move {
                match delay {
                    Some(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                    None => futures::future::pending::<()>().await,
                }
                Ok(json!({ "action": "accept", "id": id }))
            })
        }

        fn timed_out(&self, _server: String, _id: u32, reason: String) -> BoxFuture<'static, ()> {
            self.told.lock().unwrap().push(format!("timed out: {reason}"));
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn an_answer_within_the_bound_is_the_answer() {
        let slow = Slow { delay_ms: Some(5), told: Mutex::new(Vec::new()) };
        let answer = ask(&slow, "s", "k", json!({}), Some(Duration::from_secs(5))).await.unwrap();
        assert_eq!(answer["action"], "accept");
        assert_eq!(*slow.told.lock().unwrap(), ["ask k"]);
    }

    #[tokio::test]
    async fn a_wait_past_the_bound_tells_the_responder_then_fails() {
        let slow = Slow { delay_ms: None, told: Mutex::new(Vec::new()) };
        let failed = ask(&slow, "s", "k", json!({}), Some(Duration::from_millis(20))).await.unwrap_err();
        assert_eq!(failed, "Elicitation handler for server s failed: Input request 'k' from server s timed out after 20ms");
        assert_eq!(*slow.told.lock().unwrap(), ["ask k", "timed out: Input request 'k' from server s timed out after 20ms"]);
    }

    #[tokio::test]
    async fn an_unbounded_wait_waits() {
        let slow = Slow { delay_ms: Some(30), told: Mutex::new(Vec::new()) };
        assert!(ask(&slow, "s", "k", json!({}), None).await.is_ok());
    }

    #[tokio::test]
    async fn each_request_has_its_own_id() {
        let slow = Slow { delay_ms: Some(0), told: Mutex::new(Vec::new()) };
        let a = ask(&slow, "s", "a", json!({}), None).await.unwrap()["id"].as_u64();
        let b = ask(&slow, "s", "b", json!({}), None).await.unwrap()["id"].as_u64();
        assert_ne!(a, b);
    }
}

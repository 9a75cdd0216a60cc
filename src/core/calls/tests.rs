//! The call table: insert, settle, cancel, hand-over and drain, in every order they can meet.

use std::sync::mpsc;

use super::*;
use crate::core::transport::lane::{LaneError, LaneOutcome};
use crate::core::transport::pipe_writer::PipeWriter;

fn lane() -> Arc<Lane> {
    Lane::start(PipeWriter::start(
        tokio::io::sink(),
        #[cfg(unix)]
        None,
    ))
}

/// A request written on `lane`, still unanswered; its outcome arrives on the receiver.
fn sent(lane: &Lane) -> (u64, mpsc::Receiver<LaneOutcome>) {
    let id = lane.reserve_id();
    let (tx, rx) = mpsc::channel();
    lane.send(id, "tools/call", "{}", 60_000, Box::new(move |o| drop(tx.send(o)))).expect("the lane is open");
    (id, rx)
}

fn reason(abort: &Abort) -> String {
    abort.reason.lock().unwrap().clone()
}

#[test]
fn an_async_call_is_cancelled_with_its_reason_and_a_settled_one_is_not() {
    let calls = CallTable::default();
    let abort = calls.register(1);
    calls.cancel(1, "user aborted");
    assert!(abort.token.is_cancelled());
    assert_eq!(reason(&abort), "user aborted");
    let settled = calls.register(2);
    calls.settle(2);
    calls.cancel(2, "too late");
    assert!(!settled.token.is_cancelled(), "cancel after settle is a no-op");
    assert_eq!(calls.len(), (0, 0));
}

#[tokio::test]
async fn a_direct_call_is_cancelled_on_its_lane() {
    let calls = CallTable::default();
    let lane = lane();
    let (id, rx) = sent(&lane);
    calls.start_direct(7, lane.clone(), id);
    calls.cancel(7, "stop");
    assert_eq!(rx.try_recv().unwrap(), Err(LaneError::Cancelled { reason: "stop".into() }));
    assert_eq!(calls.len(), (0, 0));
}

#[tokio::test]
async fn cancel_after_a_direct_call_settled_is_a_no_op() {
    let calls = CallTable::default();
    let lane = lane();
    let (id, rx) = sent(&lane);
    calls.start_direct(7, lane.clone(), id);
    lane.answer(id, Ok("{}".into()));
    calls.settle_direct(7);
    calls.cancel(7, "too late");
    assert_eq!(rx.try_recv().unwrap(), Ok("{}".into()));
    assert_eq!(calls.len(), (0, 0));
}

#[tokio::test]
async fn a_call_handed_over_then_cancelled_is_cancelled_with_its_reason() {
    let calls = CallTable::default();
    let lane = lane();
    // Answered: the lane no longer knows the request, as when its answer is being handed over.
    calls.start_direct(3, lane.clone(), lane.reserve_id());
    let abort = calls.hand_over(3);
    assert!(!abort.token.is_cancelled());
    assert_eq!(calls.len(), (1, 0));
    calls.cancel(3, "user aborted");
    assert!(abort.token.is_cancelled());
    assert_eq!(reason(&abort), "user aborted");
    assert_eq!(calls.len(), (0, 0));
}

#[tokio::test]
async fn a_call_cancelled_before_its_hand_over_starts_its_follow_up_cancelled() {
    let calls = CallTable::default();
    let lane = lane();
    calls.start_direct(3, lane.clone(), lane.reserve_id());
    calls.cancel(3, "user aborted");
    let abort = calls.hand_over(3);
    assert!(abort.token.is_cancelled(), "the follow-up must not run for a cancelled call");
    calls.settle(3);
    assert_eq!(calls.len(), (0, 0));
}

#[tokio::test]
async fn a_call_handed_over_is_drained_on_disconnect() {
    let calls = CallTable::default();
    let lane = lane();
    let (id, rx) = sent(&lane);
    calls.start_direct(1, lane.clone(), id);
    calls.start_direct(2, lane.clone(), lane.reserve_id());
    let handed = calls.hand_over(2);
    let flow = calls.register(3);
    calls.drain(DISCONNECTED);
    assert_eq!(rx.try_recv().unwrap(), Err(LaneError::Cancelled { reason: DISCONNECTED.into() }));
    assert!(handed.token.is_cancelled() && flow.token.is_cancelled());
    assert_eq!(reason(&handed), DISCONNECTED);
    assert_eq!(calls.len(), (0, 0));
}

/// Runs a hand-over and `other` on two threads released together, many times: whatever the order, the
/// handed-over call ends cancelled.
fn race(other: impl Fn(&CallTable, u32) + Sync) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let _guard = runtime.enter();
    let lane = lane();
    for round in 0..2000u32 {
        let calls = CallTable::default();
        calls.start_direct(round, lane.clone(), lane.reserve_id());
        let barrier = std::sync::Barrier::new(2);
        let abort = std::thread::scope(|s| {
            let handed = s.spawn(|| {
                barrier.wait();
                calls.hand_over(round)
            });
            barrier.wait();
            other(&calls, round);
            handed.join().unwrap()
        });
        assert!(abort.token.is_cancelled(), "round {round}: a cancelled call was followed up");
    }
}

#[test]
fn cancel_racing_the_hand_over_always_cancels_the_call() {
    race(|calls, id| calls.cancel(id, "stop"));
}

#[test]
fn disconnect_racing_the_hand_over_always_cancels_the_call() {
    race(|calls, _| calls.drain(DISCONNECTED));
}

#[tokio::test]
async fn a_run_is_registered_while_it_runs_and_settled_after() {
    let calls = CallTable::default();
    let table = &calls;
    let cancelled = calls
        .run(Some(4), |abort| async move {
            table.cancel(4, "stop");
            abort.token.is_cancelled() && *abort.reason.lock().unwrap() == "stop"
        })
        .await;
    assert!(cancelled);
    let output = calls.run(Some(5), |_| async { table.len() }).await;
    assert_eq!(output, (1, 0));
    assert_eq!(calls.len(), (0, 0));
    assert_eq!(calls.run(None, |abort| async move { abort.token.is_cancelled() }).await, false);
}

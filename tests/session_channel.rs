//! The channel a Streamable HTTP session's tasks talk over (`rmcp::boxed_mpsc`, our vendored
//! patch): a small replacement for tokio's bounded mpsc that must keep its semantics, since
//! rmcp's worker and service loops rely on them. Driven here as those loops drive it, across
//! tasks of a multi-threaded runtime.

use std::time::Duration;

use rmcp::boxed_mpsc::{channel, TryRecvError, TrySendError};
use tokio::time::timeout;

const BOUND: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_arrive_in_order_and_the_end_comes_after_the_last_one() {
    let (tx, mut rx) = channel::<u32>(2);
    let producers: Vec<_> = (0..4u32)
        .map(|p| {
            let tx = tx.clone();
            tokio::spawn(async move {
                for i in 0..250u32 {
                    tx.send(p * 1000 + i).await.expect("the receiver is there");
                }
            })
        })
        .collect();
    drop(tx);
    let mut last = [None::<u32>; 4];
    let mut count = 0;
    while let Some(v) = timeout(BOUND, rx.recv()).await.expect("no hang") {
        let (p, i) = ((v / 1000) as usize, v % 1000);
        assert!(last[p].is_none_or(|prev| prev + 1 == i), "each sender's messages in order");
        last[p] = Some(i);
        count += 1;
    }
    assert_eq!(count, 1000, "recv ends only after every message sent was received");
    for p in producers {
        p.await.expect("producer");
    }
}

#[tokio::test]
async fn a_full_channel_makes_send_wait_and_try_send_refuse() {
    let (tx, mut rx) = channel::<&str>(1);
    tx.send("a").await.expect("room for one");
    assert!(matches!(tx.try_send("b"), Err(TrySendError::Full("b"))));
    let waiting = tokio::spawn({
        let tx = tx.clone();
        async move { tx.send("c").await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!waiting.is_finished(), "send waits while the channel is full");
    assert_eq!(rx.recv().await, Some("a"));
    timeout(BOUND, waiting).await.expect("room made wakes the sender").expect("task").expect("sent");
    assert_eq!(rx.try_recv(), Ok("c"));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[tokio::test]
async fn a_send_dropped_while_waiting_sends_nothing_and_passes_its_turn() {
    let (tx, mut rx) = channel::<u32>(1);
    tx.send(1).await.expect("room");
    let mut first = Box::pin(tx.send(2));
    assert!(futures::poll!(first.as_mut()).is_pending(), "first in line waits");
    let second = tokio::spawn({
        let tx = tx.clone();
        async move { tx.send(3).await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    drop(first);
    assert_eq!(rx.recv().await, Some(1));
    timeout(BOUND, second).await.expect("the next sender gets the room").expect("task").expect("sent");
    assert_eq!(rx.recv().await, Some(3), "the dropped send's message never arrives");
}

#[tokio::test]
async fn closing_the_receiver_fails_senders_and_keeps_what_was_sent() {
    let (tx, mut rx) = channel::<u32>(2);
    tx.send(1).await.expect("room");
    tx.send(2).await.expect("room");
    let blocked = tokio::spawn({
        let tx = tx.clone();
        async move { tx.send(3).await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let watcher = tokio::spawn({
        let tx = tx.clone();
        async move { tx.closed().await }
    });
    assert!(!tx.is_closed() && !rx.is_closed());
    rx.close();
    assert!(tx.is_closed() && rx.is_closed());
    let refused = timeout(BOUND, blocked).await.expect("a waiting sender is told").expect("task");
    assert_eq!(refused.map_err(|e| e.0), Err(3), "the message comes back");
    timeout(BOUND, watcher).await.expect("closed() resolves").expect("task");
    assert!(matches!(tx.try_send(4), Err(TrySendError::Closed(4))));
    assert_eq!(rx.recv().await, Some(1), "what was sent before the close is still received");
    assert_eq!(rx.recv().await, Some(2));
    assert_eq!(rx.recv().await, None);
}

#[tokio::test]
async fn the_senders_going_ends_the_receiver_and_a_dropped_receiver_fails_the_senders() {
    let (tx, mut rx) = channel::<u32>(4);
    let tx2 = tx.clone();
    tx.send(7).await.expect("room");
    drop(tx);
    assert!(!rx.is_closed(), "a sender is left");
    drop(tx2);
    assert!(rx.is_closed(), "every sender gone");
    assert_eq!(rx.try_recv(), Ok(7), "a message sent before is still there");
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert_eq!(timeout(BOUND, rx.recv()).await.expect("no hang"), None);

    let (tx, rx) = channel::<u32>(1);
    let pending = tokio::spawn({
        let tx = tx.clone();
        async move {
            tx.send(1).await.expect("room");
            tx.send(2).await
        }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    drop(rx);
    assert!(timeout(BOUND, pending).await.expect("no hang").expect("task").is_err(), "no receiver: the send fails");
    assert!(tx.is_closed());
    timeout(BOUND, tx.closed()).await.expect("closed() resolves at once");
}

#[tokio::test]
async fn a_receiver_waiting_on_an_empty_channel_wakes_for_a_message_or_the_end() {
    let (tx, mut rx) = channel::<u32>(1);
    let receiver = tokio::spawn(async move { (rx.recv().await, rx.recv().await) });
    tokio::time::sleep(Duration::from_millis(10)).await;
    tx.send(5).await.expect("room");
    tokio::time::sleep(Duration::from_millis(10)).await;
    drop(tx);
    assert_eq!(timeout(BOUND, receiver).await.expect("no hang").expect("task"), (Some(5), None));
}

//! (mastra-mcp-native's patch) A small bounded mpsc channel with the part of
//! `tokio::sync::mpsc`'s API that rmcp uses, and its semantics: `send` waits for room (senders
//! served in the order they came), `recv` drains what was sent before it reports the end, the
//! end comes when every sender is gone or the receiver closes, and a dropped `send` future sends
//! nothing.
//!
//! Why not tokio's: a tokio channel is built for throughput, with cache-padded counters and a
//! first block of 32 slots allocated when it is made, about 1.6 KiB per channel even with boxed
//! messages (16 KiB with rmcp's ~500-byte messages inline); a Streamable HTTP session keeps six
//! channels for as long as it lives, and 200 per-user sessions held at once kept ~2 MB in them.
//! Here a channel is one small allocation under a mutex; its queue grows as messages wait (each
//! boxed, so a queue that grew once keeps 8 bytes a slot) and is empty while idle.
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

pub use tokio::sync::mpsc::error::{SendError, TryRecvError, TrySendError};

struct State<T> {
    queue: VecDeque<Box<T>>,
    capacity: usize,
    senders: usize,
    /// The receiver closed the channel or is gone: nothing more can be sent.
    closed: bool,
    receiver: Option<Waker>,
    /// Senders waiting for room, first come first served: (ticket, waker).
    waiting: VecDeque<(u64, Waker)>,
    next_ticket: u64,
    /// `Sender::closed()` futures waiting for the receiver to close.
    close_watchers: Vec<Waker>,
}

impl<T> State<T> {
    fn has_room(&self) -> bool {
        self.queue.len() < self.capacity
    }

    /// Room was made: the first waiting sender may take it.
    fn wake_next_sender(&self) {
        if self.has_room() {
            if let Some((_, waker)) = self.waiting.front() {
                waker.wake_by_ref();
            }
        }
    }

    fn wake_receiver(&mut self) {
        if let Some(waker) = self.receiver.take() {
            waker.wake();
        }
    }

    /// The receiver side ends: waiting senders fail, `closed()` futures resolve.
    fn close(&mut self) {
        self.closed = true;
        for (_, waker) in self.waiting.drain(..) {
            waker.wake();
        }
        for waker in self.close_watchers.drain(..) {
            waker.wake();
        }
    }
}

struct Shared<T> {
    state: Mutex<State<T>>,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // Nothing here panics while holding the lock but a waker; its state stays consistent.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A bounded channel of `capacity` messages (more than zero, as tokio's).
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(capacity > 0, "mpsc bounded channel requires buffer > 0");
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            queue: VecDeque::new(),
            capacity,
            senders: 1,
            closed: false,
            receiver: None,
            waiting: VecDeque::new(),
            next_ticket: 0,
            close_watchers: Vec::new(),
        }),
    });
    (Sender(shared.clone()), Receiver(shared))
}

/// The sending half (see `tokio::sync::mpsc::Sender`).
pub struct Sender<T>(Arc<Shared<T>>);

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.0.lock().senders += 1;
        Sender(self.0.clone())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.senders -= 1;
        if state.senders == 0 {
            state.wake_receiver();
        }
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Sender").finish()
    }
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for room; fails (handing it back) once the receiver is gone.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        SendFuture {
            shared: &self.0,
            value: Some(Box::new(value)),
            ticket: None,
        }
        .await
    }

    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let mut state = self.0.lock();
        if state.closed {
            return Err(TrySendError::Closed(value));
        }
        if !state.has_room() || !state.waiting.is_empty() {
            return Err(TrySendError::Full(value));
        }
        state.queue.push_back(Box::new(value));
        state.wake_receiver();
        Ok(())
    }

    /// The receiver is gone or closed the channel.
    pub fn is_closed(&self) -> bool {
        self.0.lock().closed
    }

    /// Resolves once the receiver is gone or closed the channel.
    pub async fn closed(&self) {
        std::future::poll_fn(|cx| {
            let mut state = self.0.lock();
            if state.closed {
                return Poll::Ready(());
            }
            if !state.close_watchers.iter().any(|w| w.will_wake(cx.waker())) {
                state.close_watchers.push(cx.waker().clone());
            }
            Poll::Pending
        })
        .await
    }
}

/// A `send` in progress: its message, and its place in line once it had to wait.
struct SendFuture<'a, T> {
    shared: &'a Arc<Shared<T>>,
    value: Option<Box<T>>,
    ticket: Option<u64>,
}

impl<T> Future for SendFuture<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let mut state = this.shared.lock();
        let Some(value) = this.value.take() else {
            return Poll::Ready(Ok(()));
        };
        if state.closed {
            this.ticket = None;
            return Poll::Ready(Err(SendError(*value)));
        }
        let first_in_line = match this.ticket {
            Some(ticket) => state.waiting.front().is_some_and(|(t, _)| *t == ticket),
            None => state.waiting.is_empty(),
        };
        if first_in_line && state.has_room() {
            if this.ticket.take().is_some() {
                state.waiting.pop_front();
            }
            state.queue.push_back(value);
            state.wake_receiver();
            state.wake_next_sender();
            return Poll::Ready(Ok(()));
        }
        this.value = Some(value);
        match this.ticket {
            Some(ticket) => {
                if let Some((_, waker)) = state.waiting.iter_mut().find(|(t, _)| *t == ticket) {
                    if !waker.will_wake(cx.waker()) {
                        *waker = cx.waker().clone();
                    }
                }
            }
            None => {
                let ticket = state.next_ticket;
                state.next_ticket += 1;
                state.waiting.push_back((ticket, cx.waker().clone()));
                this.ticket = Some(ticket);
            }
        }
        Poll::Pending
    }
}

impl<T> Drop for SendFuture<'_, T> {
    fn drop(&mut self) {
        // A send dropped while it waited leaves the line (and passes its turn on).
        let Some(ticket) = self.ticket.take() else {
            return;
        };
        let mut state = self.shared.lock();
        if let Some(at) = state.waiting.iter().position(|(t, _)| *t == ticket) {
            state.waiting.remove(at);
            if at == 0 {
                state.wake_next_sender();
            }
        }
    }
}

/// The receiving half (see `tokio::sync::mpsc::Receiver`).
pub struct Receiver<T>(Arc<Shared<T>>);

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Receiver").finish()
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let queued = {
            let mut state = self.0.lock();
            state.close();
            std::mem::take(&mut state.queue)
        };
        // Messages nobody will read are dropped outside the lock (their drops may send).
        drop(queued);
    }
}

impl<T> Receiver<T> {
    /// The next message; `None` once the channel is closed (every sender gone, or `close()`)
    /// and nothing sent before remains.
    pub async fn recv(&mut self) -> Option<T> {
        std::future::poll_fn(|cx| {
            let mut state = self.0.lock();
            if let Some(value) = state.queue.pop_front() {
                state.wake_next_sender();
                return Poll::Ready(Some(*value));
            }
            if state.senders == 0 || state.closed {
                return Poll::Ready(None);
            }
            match &state.receiver {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                _ => state.receiver = Some(cx.waker().clone()),
            }
            Poll::Pending
        })
        .await
    }

    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut state = self.0.lock();
        if let Some(value) = state.queue.pop_front() {
            state.wake_next_sender();
            return Ok(*value);
        }
        if state.senders == 0 || state.closed {
            Err(TryRecvError::Disconnected)
        } else {
            Err(TryRecvError::Empty)
        }
    }

    /// Closed by `close()`, or every sender is gone (messages may still be waiting).
    pub fn is_closed(&self) -> bool {
        let state = self.0.lock();
        state.closed || state.senders == 0
    }

    /// No more messages can be sent; those already sent can still be received.
    pub fn close(&mut self) {
        self.0.lock().close();
    }
}

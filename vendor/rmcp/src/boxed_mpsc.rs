//! (mastra-mcp-native's patch) tokio's bounded mpsc over boxed messages. A tokio channel
//! allocates its slots 32 at a time, the first block when it is made: for rmcp's messages
//! (about 500 bytes each) that is 16 KiB per channel, and a Streamable HTTP session has six
//! channels alive for as long as it lives. Boxed, a block is 32 pointers (256 bytes) and a
//! message in flight costs its own size. Same API as the part of `tokio::sync::mpsc` used here.
use tokio::sync::mpsc;
pub use tokio::sync::mpsc::error::{SendError, TryRecvError, TrySendError};

/// A bounded channel of `capacity` messages, each boxed.
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = mpsc::channel(capacity);
    (Sender(tx), Receiver(rx))
}

/// The sending half (see `tokio::sync::mpsc::Sender`).
pub struct Sender<T>(mpsc::Sender<Box<T>>);

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender(self.0.clone())
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Sender").finish()
    }
}

impl<T> Sender<T> {
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.0.send(Box::new(value)).await.map_err(|SendError(b)| SendError(*b))
    }

    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.0.try_send(Box::new(value)).map_err(|e| match e {
            TrySendError::Full(b) => TrySendError::Full(*b),
            TrySendError::Closed(b) => TrySendError::Closed(*b),
        })
    }

    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }

    pub async fn closed(&self) {
        self.0.closed().await
    }
}

/// The receiving half (see `tokio::sync::mpsc::Receiver`).
pub struct Receiver<T>(mpsc::Receiver<Box<T>>);

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Receiver").finish()
    }
}

impl<T> Receiver<T> {
    pub async fn recv(&mut self) -> Option<T> {
        self.0.recv().await.map(|b| *b)
    }

    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.0.try_recv().map(|b| *b)
    }

    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }

    pub fn close(&mut self) {
        self.0.close()
    }
}

//! The write side of a pipe transport, usable from any thread. A message is written straight
//! to the pipe by the calling thread when nothing is queued ahead of it (a non-blocking write:
//! no runtime wake-up, no task hop); whatever does not fit, or arrives while earlier bytes are
//! still queued, goes to an outbox that a tokio task drains in order.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

/// The pipe is closed (or closing): nothing more can be written.
#[derive(Debug, Clone, PartialEq)]
pub struct PipeClosed(pub String);

impl std::fmt::Display for PipeClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Default)]
struct Outbox {
    queued: Vec<u8>,
    /// The drain task owns the pipe's next bytes: writers must append, not write.
    draining: bool,
    /// No more writes: the pipe is closing (stdin EOF on its way) or closed.
    closed: Option<String>,
    /// Flush what is queued, then close the pipe.
    closing: bool,
    /// The drain task has ended: the pipe is closed.
    finished: bool,
    /// The pipe's descriptor, for direct writes (unix only); cleared before the pipe is dropped.
    #[cfg(unix)]
    fd: Option<std::os::fd::RawFd>,
}

pub struct PipeWriter {
    outbox: Mutex<Outbox>,
    wake: Notify,
    drained: Notify,
}

impl PipeWriter {
    /// Starts the drain task for `pipe` on the current runtime.
    pub fn start<W>(pipe: W, #[cfg(unix)] fd: Option<std::os::fd::RawFd>) -> Arc<PipeWriter>
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let writer = Arc::new(PipeWriter { outbox: Mutex::default(), wake: Notify::new(), drained: Notify::new() });
        #[cfg(unix)]
        if let Ok(mut outbox) = writer.outbox.lock() {
            outbox.fd = fd;
        }
        tokio::spawn(drain(writer.clone(), pipe));
        writer
    }

    /// Writes `bytes` (one whole message) in order with every other write.
    pub fn write(&self, bytes: Vec<u8>) -> Result<(), PipeClosed> {
        let mut outbox = self.outbox.lock().map_err(|_| PipeClosed("pipe writer poisoned".into()))?;
        if let Some(why) = &outbox.closed {
            return Err(PipeClosed(why.clone()));
        }
        if outbox.draining {
            outbox.queued.extend_from_slice(&bytes);
            return Ok(());
        }
        #[cfg(unix)]
        let bytes = match outbox.fd {
            Some(fd) => match write_now(fd, &bytes) {
                Ok(n) if n == bytes.len() => return Ok(()),
                Ok(n) => bytes[n..].to_vec(),
                Err(e) => {
                    let why = format!("write to the server failed: {e}");
                    outbox.closed = Some(why.clone());
                    return Err(PipeClosed(why));
                }
            },
            None => bytes,
        };
        outbox.queued = bytes;
        outbox.draining = true;
        drop(outbox);
        self.wake.notify_one();
        Ok(())
    }

    /// Bytes written that the server has not read yet: still queued here, or in the pipe. `None`
    /// where that cannot be known (no descriptor, or a platform without `FIONREAD` on a pipe's
    /// write end).
    pub fn unread(&self) -> Option<usize> {
        let outbox = self.outbox.lock().ok()?;
        #[cfg(unix)]
        {
            let fd = outbox.fd?;
            let mut in_pipe: libc::c_int = 0;
            // SAFETY: FIONREAD writes one c_int through the pointer; `fd` is our open pipe end
            // (cleared before the pipe is dropped, under this lock).
            if unsafe { libc::ioctl(fd, libc::FIONREAD as _, &mut in_pipe) } != 0 || in_pipe < 0 {
                return None;
            }
            Some(outbox.queued.len() + in_pipe as usize)
        }
        #[cfg(not(unix))]
        {
            drop(outbox);
            None
        }
    }

    /// Refuses further writes, flushes what is queued, then closes the pipe (the reader sees
    /// EOF). Resolves once the pipe is closed.
    pub async fn close(&self) {
        let notified = self.drained.notified();
        if self.begin_close() {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), notified).await;
        }
    }

    /// Starts closing without waiting (for `Drop`); false when already closing or closed.
    pub fn begin_close(&self) -> bool {
        {
            let Ok(mut outbox) = self.outbox.lock() else { return false };
            if outbox.closing || outbox.finished {
                return false;
            }
            outbox.closing = true;
            if outbox.closed.is_none() {
                outbox.closed = Some("the pipe to the server is closed".into());
            }
        }
        self.wake.notify_one();
        true
    }
}

/// Drains the outbox into the pipe in order; closes the pipe when asked or when a write fails.
async fn drain<W: AsyncWrite + Unpin>(writer: Arc<PipeWriter>, mut pipe: W) {
    enum Next {
        Write(Vec<u8>),
        Idle,
        Close,
    }
    loop {
        writer.wake.notified().await;
        loop {
            let next = match writer.outbox.lock() {
                Ok(mut outbox) if outbox.queued.is_empty() => {
                    outbox.draining = false;
                    if outbox.closing {
                        #[cfg(unix)]
                        {
                            outbox.fd = None;
                        }
                        outbox.finished = true;
                        Next::Close
                    } else {
                        Next::Idle
                    }
                }
                Ok(mut outbox) => {
                    outbox.draining = true;
                    Next::Write(std::mem::take(&mut outbox.queued))
                }
                Err(_) => Next::Close,
            };
            match next {
                Next::Idle => break,
                Next::Close => {
                    let _ = pipe.shutdown().await;
                    drop(pipe);
                    writer.drained.notify_waiters();
                    return;
                }
                Next::Write(bytes) => {
                    if let Err(e) = pipe.write_all(&bytes).await {
                        if let Ok(mut outbox) = writer.outbox.lock() {
                            outbox.closed.get_or_insert_with(|| format!("write to the server failed: {e}"));
                            outbox.queued.clear();
                            #[cfg(unix)]
                            {
                                outbox.fd = None;
                            }
                            outbox.finished = true;
                        }
                        drop(pipe);
                        writer.drained.notify_waiters();
                        return;
                    }
                }
            }
        }
    }
}

/// One non-blocking write attempt loop: how many bytes went out before the pipe filled up.
#[cfg(unix)]
fn write_now(fd: std::os::fd::RawFd, bytes: &[u8]) -> std::io::Result<usize> {
    let mut written = 0;
    while written < bytes.len() {
        let rest = &bytes[written..];
        // SAFETY: `fd` is the open pipe owned by the drain task; it is only closed after the
        // outbox's `fd` is cleared under the same lock the caller holds.
        let n = unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) };
        if n >= 0 {
            written += n as usize;
            continue;
        }
        let err = std::io::Error::last_os_error();
        match err.kind() {
            std::io::ErrorKind::Interrupted => continue,
            std::io::ErrorKind::WouldBlock => break,
            _ => return Err(err),
        }
    }
    Ok(written)
}

//! Newline-delimited JSON-RPC over a pair of pipes (a stdio server's stdout and stdin), as an rmcp
//! transport with a request lane on the side. rmcp still runs the handshake, server→client
//! requests and notifications; requests sent through the lane are answered here, as soon as
//! their line is read, without a trip through rmcp's service loop. Notifications are shown to
//! the client's handler state in arrival order (before rmcp, which dispatches each on its own
//! task, sees them).

use std::sync::Arc;

use rmcp::model::{JsonRpcMessage, ServerNotification};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::lane::{lane_id, Lane, LaneError, LaneOutcome, CLOSED_UNDER_REQUEST};
use super::pipe_writer::PipeWriter;
use super::process_group::{Grace, ProcessGroup};
use super::stdio::Spawned;
use crate::core::handler::HandlerShared;

/// Longest line accepted from a server (a tool result is one line). Longer ones are skipped.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
/// The most one read may take from the pipe (a pipe holds 64 KiB): reached while a server streams
/// (each read that fills the buffer doubles the next one's room).
const READ_CHUNK_BYTES: usize = 64 * 1024;
/// The room of a read after one that did not fill its buffer: a session waiting for its next
/// small message holds this much, not a pipe's worth (100 idle stdio clients held 6 MB of it).
const SMALL_READ_BYTES: usize = 4 * 1024;
/// A line buffer grown past this by one big message is given back once the message is handled.
const KEEP_LINE_CAPACITY: usize = 256 * 1024;
/// Bound on flushing and closing stdin (a server that does not read can hold a write forever).
const STDIN_CLOSE_BOUND: std::time::Duration = std::time::Duration::from_millis(500);

pub struct PipeTransport<R> {
    read: R,
    /// Bytes read from the pipe; `buf[pos..]` is not consumed yet.
    buf: Vec<u8>,
    pos: usize,
    /// The room the next read gets (`SMALL_READ_BYTES` up to `READ_CHUNK_BYTES`).
    next_read: usize,
    line: Vec<u8>,
    /// Skipping the rest of an oversized line.
    discarding: bool,
    writer: Arc<PipeWriter>,
    lane: Arc<Lane>,
    shared: Arc<HandlerShared>,
    group: Option<ProcessGroup>,
    /// The server's stdout ended (or failed): it cannot answer any more.
    stdout_closed: bool,
}

impl PipeTransport<tokio::process::ChildStdout> {
    /// The transport over a spawned stdio server's pipes; it owns the server's process group.
    pub fn over_spawned(spawned: Spawned, shared: Arc<HandlerShared>) -> Self {
        #[cfg(unix)]
        let stdin_fd = Some(std::os::fd::AsRawFd::as_raw_fd(&spawned.stdin));
        let writer = PipeWriter::start(
            spawned.stdin,
            #[cfg(unix)]
            stdin_fd,
        );
        PipeTransport::new(spawned.stdout, writer, shared, Some(spawned.group))
    }
}

impl<R: AsyncRead + Unpin + Send> PipeTransport<R> {
    /// Must be called inside a tokio runtime (the writer and the lane start tasks).
    pub fn new(read: R, writer: Arc<PipeWriter>, shared: Arc<HandlerShared>, group: Option<ProcessGroup>) -> Self {
        let lane = Lane::start(writer.clone());
        PipeTransport {
            read,
            buf: Vec::new(),
            pos: 0,
            next_read: SMALL_READ_BYTES,
            line: Vec::new(),
            discarding: false,
            writer,
            lane,
            shared,
            group,
            stdout_closed: false,
        }
    }

    pub fn lane(&self) -> Arc<Lane> {
        self.lane.clone()
    }

    pub fn writer(&self) -> Arc<PipeWriter> {
        self.writer.clone()
    }

    /// After stdout closed: how the server's process ended, if it does within a moment
    /// (a server that closed stdout but runs on is ended by `close`).
    async fn note_exit(&mut self) {
        const EXIT_WAIT: std::time::Duration = std::time::Duration::from_millis(200);
        let Some(group) = self.group.as_mut() else {
            return;
        };
        match tokio::time::timeout(EXIT_WAIT, group.child_mut().wait()).await {
            Ok(Ok(status)) => self.shared.note_exit(super::exit::describe(status)),
            Ok(Err(e)) => {
                tracing::debug!(server = %self.shared.server, "waiting for the server's exit failed: {e}")
            }
            Err(_) => self.shared.note_exit("closed its output but did not exit".to_string()),
        }
    }

    /// The server's pid (its process group id), while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.group.as_ref().and_then(ProcessGroup::pid)
    }

    /// Reads one line into `self.line`. Cancel-safe: a partial line stays buffered, and a read
    /// that is dropped before it completes has taken nothing from the pipe.
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            if self.pos == self.buf.len() {
                self.pos = 0;
                if self.buf.capacity() > self.next_read {
                    // The stream went quiet: the big buffer goes, a small one waits.
                    self.buf = Vec::new();
                }
                self.buf.clear();
                self.buf.reserve(self.next_read);
                let room = self.buf.capacity();
                let read = self.read.read_buf(&mut self.buf).await?;
                if read == 0 {
                    return Ok(LineRead::Eof);
                }
                self.next_read = if read >= room { (room * 2).min(READ_CHUNK_BYTES) } else { SMALL_READ_BYTES };
            }
            let available = &self.buf[self.pos..];
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let outcome = if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                }
                None
            } else if self.line.len() + take > MAX_LINE_BYTES {
                let id = lane_id_in_prefix(&self.line);
                self.line = Vec::new();
                self.discarding = newline.is_none();
                Some(LineRead::Oversized(id))
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| LineRead::Line)
            };
            self.pos += take;
            if let Some(outcome) = outcome {
                return Ok(outcome);
            }
        }
    }
}

enum LineRead {
    Line,
    /// A line over `MAX_LINE_BYTES`, skipped; the lane request it answered, if its start says.
    Oversized(Option<u64>),
    Eof,
}

/// The lane id of a message from the start of its line (`{"jsonrpc":"2.0","id":"n7",…`), if any.
fn lane_id_in_prefix(line: &[u8]) -> Option<u64> {
    let head = &line[..line.len().min(256)];
    let at = head.windows(5).position(|w| w == b"\"id\":")?;
    let rest = std::str::from_utf8(&head[at + 5..]).ok()?.trim_start();
    let end = rest.get(1..)?.find('"')? + 2;
    lane_id(&rest[..end])
}

/// What one incoming line is.
enum Routed {
    /// An answer to a lane request.
    Lane(u64, LaneOutcome),
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleClient>>),
    /// Not a JSON-RPC message we can use.
    Skip(String),
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct WireError {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<Value>,
}

fn route(line: &[u8]) -> Routed {
    let head: Head<'_> = match serde_json::from_slice(line) {
        Ok(h) => h,
        Err(e) => return Routed::Skip(format!("ignoring a line that is not JSON-RPC ({e})")),
    };
    if head.method.is_none() {
        if let Some(id) = head.id.and_then(|raw| lane_id(raw.get())) {
            let outcome = match (head.result, head.error) {
                (_, Some(error)) => Err(match serde_json::from_str::<WireError>(error.get()) {
                    Ok(e) => LaneError::Rpc { code: e.code, message: e.message, data: e.data },
                    Err(_) => LaneError::Rpc { code: -32603, message: format!("invalid error object {}", error.get()), data: None },
                }),
                (Some(result), None) => Ok(result.get().to_string()),
                (None, None) => Err(LaneError::Rpc { code: -32603, message: "a response with neither result nor error".into(), data: None }),
            };
            return Routed::Lane(id, outcome);
        }
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(line) {
        Ok(message) => Routed::Message(Box::new(message)),
        Err(e) => Routed::Skip(format!("ignoring a message rmcp cannot read ({e})")),
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleClient> for PipeTransport<R> {
    type Error = std::io::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let result = serde_json::to_vec(&item).map_err(std::io::Error::other).and_then(|mut bytes| {
            bytes.push(b'\n');
            self.writer.write(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::BrokenPipe, e.0))
        });
        std::future::ready(result)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            match self.read_line().await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::Oversized(id)) => {
                    let why = format!("the server's answer is longer than {} MiB, the most a stdio message may be", MAX_LINE_BYTES >> 20);
                    self.shared.diagnostic("warning", format!("Skipped a message: {why}"));
                    if let Some(id) = id {
                        self.lane.answer(id, Err(LaneError::TooLarge { detail: why }));
                    }
                    continue;
                }
                Ok(LineRead::Eof) => {
                    self.stdout_closed = true;
                    self.note_exit().await;
                    let reason = self.shared.crash_reason();
                    self.lane.close(&format!("the server closed its output (stdout); a request already written to it may have run{reason}"));
                    return None;
                }
                Err(e) => {
                    self.stdout_closed = true;
                    self.lane.close(&format!("reading the server's output failed: {e}"));
                    return None;
                }
            }
            let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let routed = if text.iter().all(u8::is_ascii_whitespace) { None } else { Some(route(text)) };
            self.line.clear();
            if self.line.capacity() > KEEP_LINE_CAPACITY {
                self.line = Vec::new();
            }
            match routed {
                None => {}
                Some(Routed::Lane(id, outcome)) => self.lane.answer(id, outcome),
                Some(Routed::Message(message)) => {
                    if let JsonRpcMessage::Notification(n) = message.as_ref() {
                        if let ServerNotification::ProgressNotification(p) = &n.notification {
                            // A lane request whose progress moves its deadline hears of it first.
                            if let Ok(token) = serde_json::to_string(&p.params.progress_token) {
                                self.lane.progressed(&token);
                            }
                        }
                        self.shared.on_notification(&n.notification);
                    }
                    return Some(*message);
                }
                Some(Routed::Skip(why)) => self.shared.diagnostic("debug", why),
            }
        }
    }

    /// Ends the session: stdin EOF (queued messages flushed first, bounded), then the server's
    /// process group is ended — at once when its stdout already closed, else with a grace period.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.lane.close(CLOSED_UNDER_REQUEST);
        let _ = tokio::time::timeout(STDIN_CLOSE_BOUND, self.writer.close()).await;
        if let Some(group) = self.group.as_mut() {
            group.shutdown(if self.stdout_closed { Grace::BROKEN } else { Grace::NORMAL }).await;
        }
        Ok(())
    }
}

impl<R> Drop for PipeTransport<R> {
    fn drop(&mut self) {
        // Not closed first: settle what is pending, let the drain task end and release stdin
        // (the process group ends when `group` drops).
        self.lane.close(CLOSED_UNDER_REQUEST);
        self.writer.begin_close();
    }
}

#[cfg(test)]
mod tests {
    use super::lane_id_in_prefix;

    #[test]
    fn lane_ids_are_read_from_the_start_of_a_line() {
        assert_eq!(lane_id_in_prefix(br#"{"jsonrpc":"2.0","id":"n42","result":{"content":[{"text":"xxxx"#), Some(42));
        assert_eq!(lane_id_in_prefix(br#"{"jsonrpc":"2.0","id": "n7","#), Some(7));
        assert_eq!(lane_id_in_prefix(br#"{"jsonrpc":"2.0","id":3,"result":{}"#), None);
        assert_eq!(lane_id_in_prefix(br#"{"jsonrpc":"2.0","method":"notifications/progress""#), None);
    }
}

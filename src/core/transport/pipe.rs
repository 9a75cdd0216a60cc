//! Newline-delimited JSON-RPC over a pair of pipes (a stdio server's stdout and stdin), as an rmcp
//! transport with a request lane on the side. rmcp still runs the handshake, server→client
//! requests and notifications; requests sent through the lane are answered here, as soon as
//! their line is read, without a trip through rmcp's service loop. Notifications are shown to
//! the client's handler state in arrival order (before rmcp, which dispatches each on its own
//! task, sees them).

use std::sync::Arc;

use rmcp::model::JsonRpcMessage;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::lane::{lane_id, Lane, LaneError, LaneOutcome};
use super::pipe_writer::PipeWriter;
use super::process_group::{Grace, ProcessGroup};
use crate::core::handler::HandlerShared;

/// Longest line accepted from a server (a tool result is one line). Longer ones are skipped.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
/// Small on purpose: tokio zero-fills it, so each server would keep a larger one resident.
const READ_BUFFER_BYTES: usize = 8 * 1024;
/// Bound on flushing and closing stdin (a server that does not read can hold a write forever).
const STDIN_CLOSE_BOUND: std::time::Duration = std::time::Duration::from_millis(500);

pub struct PipeTransport<R> {
    read: BufReader<R>,
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

impl<R: AsyncRead + Unpin + Send> PipeTransport<R> {
    /// Must be called inside a tokio runtime (the writer and the lane start tasks).
    pub fn new(read: R, writer: Arc<PipeWriter>, shared: Arc<HandlerShared>, group: Option<ProcessGroup>) -> Self {
        let lane = Lane::start(writer.clone());
        PipeTransport {
            read: BufReader::with_capacity(READ_BUFFER_BYTES, read),
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

    /// The server's pid (its process group id), while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.group.as_ref().and_then(ProcessGroup::pid)
    }

    /// Reads one line into `self.line`. Cancel-safe: a partial line stays buffered.
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let (consumed, outcome) = {
                let available = self.read.fill_buf().await?;
                if available.is_empty() {
                    return Ok(LineRead::Eof);
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                if self.discarding {
                    if newline.is_some() {
                        self.discarding = false;
                    }
                    (take, None)
                } else if self.line.len() + take > MAX_LINE_BYTES {
                    self.line.clear();
                    self.discarding = newline.is_none();
                    (take, Some(LineRead::Oversized))
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    (take, newline.map(|_| LineRead::Line))
                }
            };
            self.read.consume(consumed);
            if let Some(outcome) = outcome {
                return Ok(outcome);
            }
        }
    }
}

enum LineRead {
    Line,
    Oversized,
    Eof,
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
                Ok(LineRead::Oversized) => {
                    self.shared.diagnostic("warning", format!("Skipped a message longer than {MAX_LINE_BYTES} bytes"));
                    continue;
                }
                Ok(LineRead::Eof) => {
                    self.stdout_closed = true;
                    self.lane.close("the server closed its output (stdout)");
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
            match routed {
                None => {}
                Some(Routed::Lane(id, outcome)) => self.lane.answer(id, outcome),
                Some(Routed::Message(message)) => {
                    if let JsonRpcMessage::Notification(n) = message.as_ref() {
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
        self.lane.close("the connection was closed");
        let _ = tokio::time::timeout(STDIN_CLOSE_BOUND, self.writer.close()).await;
        if let Some(group) = self.group.as_mut() {
            group.shutdown(if self.stdout_closed { Grace::BROKEN } else { Grace::NORMAL }).await;
        }
        Ok(())
    }
}

impl<R> Drop for PipeTransport<R> {
    fn drop(&mut self) {
        self.lane.close("the connection was closed");
    }
}

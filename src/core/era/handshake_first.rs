//! The default start of a stdio session: the `initialize` handshake first, as `@mastra/mcp` 1.18
//! opens every session, and 2026-07-28 only when the server refuses the handshake the way a
//! modern-only server does (with one of the errors the 2026-07-28 revision defines, -32020,
//! -32021 or -32022, or -32601 for `initialize`) — on the same process, with no restart.
//!
//! rmcp has no such mode, so this is a transport layer under rmcp's `Auto` start (which sends
//! `server/discover` first and falls back to `initialize` on a JSON-RPC error). The layer holds
//! rmcp's `server/discover` back and sends `initialize` in its place:
//! - the server answers it (result or any other error): rmcp hears a -32601 for its probe,
//!   falls back, and its `initialize` is answered with the server's answer without being sent,
//!   so the server sees exactly one `initialize`, as under 1.18;
//! - the server refuses it as a modern-only server: the held `server/discover` goes out and
//!   everything from then on passes through.
//!
//! rmcp gives the probe 10 s before it falls back on its own: when its `initialize` arrives while
//! ours is still unanswered, the server's answer goes to it directly.

use std::collections::VecDeque;

use rmcp::model::{ClientRequest, ErrorCode, ErrorData, InitializeRequest, InitializeRequestParams, JsonRpcMessage, RequestId};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::core::transport::reply::answer_with_id;

/// Whether a JSON-RPC error answering `initialize` says the server only speaks 2026-07-28: one
/// of the errors that revision defines for a request it refuses (-32020 `HeaderMismatch`, the
/// Streamable HTTP answer to a request without its `MCP-Protocol-Version` header; -32021
/// `MissingRequiredClientCapability`; -32022 `UnsupportedProtocolVersion`), or -32601, which no
/// handshake server answers `initialize` with. A server that works under `@mastra/mcp` 1.18
/// answers `initialize`, so it never gets here: its first request stays the same.
pub fn refuses_handshake(code: ErrorCode) -> bool {
    [ErrorCode::HEADER_MISMATCH, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, ErrorCode::METHOD_NOT_FOUND]
        .contains(&code)
}

enum Phase {
    /// Waiting for rmcp's `server/discover`.
    AwaitProbe,
    /// Our `initialize` is out (under the probe's id); the probe is held.
    Initializing { probe: TxJsonRpcMessage<RoleClient>, id: RequestId, rmcp_initialize: Option<RequestId> },
    /// The server answered our `initialize`; rmcp's own `initialize` gets this answer.
    Answered(RxJsonRpcMessage<RoleClient>),
    /// Everything passes through.
    Through,
}

pub struct HandshakeFirst<T> {
    inner: T,
    initialize: InitializeRequestParams,
    phase: Phase,
    /// Answers made up for rmcp, returned before anything else is read.
    pending: VecDeque<RxJsonRpcMessage<RoleClient>>,
}

impl<T> HandshakeFirst<T> {
    /// `initialize`: the parameters of the handshake (the client's info and capabilities).
    pub fn new(inner: T, initialize: InitializeRequestParams) -> Self {
        HandshakeFirst { inner, initialize, phase: Phase::AwaitProbe, pending: VecDeque::new() }
    }
}

/// The id a response or error answers (`None` for anything else, or an error without an id).
pub(super) fn answered_id(message: &RxJsonRpcMessage<RoleClient>) -> Option<&RequestId> {
    match message {
        JsonRpcMessage::Response(r) => Some(&r.id),
        JsonRpcMessage::Error(e) => e.id.as_ref(),
        _ => None,
    }
}

fn is_request(message: &TxJsonRpcMessage<RoleClient>, initialize: bool) -> Option<RequestId> {
    match message {
        JsonRpcMessage::Request(r) => match (&r.request, initialize) {
            (ClientRequest::InitializeRequest(_), true) | (ClientRequest::DiscoverRequest(_), false) => Some(r.id.clone()),
            _ => None,
        },
        _ => None,
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for HandshakeFirst<T> {
    type Error = T::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        use futures::future::Either;
        let ready = || Either::Left(std::future::ready(Ok(())));
        match std::mem::replace(&mut self.phase, Phase::Through) {
            Phase::AwaitProbe => match is_request(&item, false) {
                Some(id) => {
                    let initialize = InitializeRequest::new(self.initialize.clone());
                    let message = JsonRpcMessage::request(ClientRequest::InitializeRequest(initialize), id.clone());
                    self.phase = Phase::Initializing { probe: item, id, rmcp_initialize: None };
                    Either::Right(self.inner.send(message))
                }
                None => {
                    self.phase = Phase::AwaitProbe;
                    Either::Right(self.inner.send(item))
                }
            },
            Phase::Initializing { probe, id, rmcp_initialize: None } if is_request(&item, true).is_some() => {
                // rmcp's probe window ran out: it falls back and waits for this id.
                self.phase = Phase::Initializing { probe, id, rmcp_initialize: is_request(&item, true) };
                ready()
            }
            Phase::Answered(answer) => match is_request(&item, true) {
                Some(id) => {
                    self.pending.push_back(answer_with_id(answer, id));
                    ready()
                }
                None => {
                    self.phase = Phase::Answered(answer);
                    Either::Right(self.inner.send(item))
                }
            },
            phase => {
                self.phase = phase;
                Either::Right(self.inner.send(item))
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        if let Some(made_up) = self.pending.pop_front() {
            return Some(made_up);
        }
        loop {
            let message = self.inner.receive().await?;
            let Phase::Initializing { id, .. } = &self.phase else { return Some(message) };
            if answered_id(&message) != Some(id) {
                return Some(message);
            }
            let Phase::Initializing { probe, id, rmcp_initialize } = std::mem::replace(&mut self.phase, Phase::Through) else {
                unreachable!("matched above")
            };
            let refused = matches!(&message, JsonRpcMessage::Error(e) if refuses_handshake(e.error.code));
            match (refused, rmcp_initialize) {
                // Too late to turn back: rmcp is in its handshake and gets the answer as it is.
                (_, Some(rmcp_id)) => return Some(answer_with_id(message, rmcp_id)),
                (true, None) => {
                    tracing::debug!("initialize refused as by a 2026-07-28 server; sending server/discover");
                    if self.inner.send(probe).await.is_err() {
                        return None;
                    }
                }
                (false, None) => {
                    self.phase = Phase::Answered(message);
                    return Some(JsonRpcMessage::error(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "Method not found", None), Some(id)));
                }
            }
        }
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

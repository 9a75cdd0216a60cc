//! Why a connect failed, as the user sees it, and whether another transport is worth trying.

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use crate::core::era;
use crate::core::error::{ErrorKind, McpError};
use crate::core::net::NetError;

pub(super) fn both_failed(name: &str, streamable: McpError, sse: McpError) -> McpError {
    let mut e = McpError::new(
        ErrorKind::ConnectFailed,
        name,
        format!(
            "Could not connect to server with any available HTTP transport. Streamable HTTP: {}. SSE: {}",
            streamable.message, sse.message
        ),
    );
    e.http_status = streamable.http_status.or(sse.http_status);
    if let ErrorKind::Policy(_) = sse.kind {
        return sse;
    }
    e.during_connect = true;
    e
}

/// A failed handshake and whether another transport is worth trying.
pub struct Failure {
    pub error: McpError,
    pub falls_back: bool,
    /// The server answered 401: `Some(challenge)` (the `WWW-Authenticate` value, if any).
    pub auth: Option<Option<String>>,
}

pub(super) fn net_failure(name: &str, e: &NetError) -> Failure {
    Failure {
        error: net_error(name, e),
        falls_back: net_falls_back(e),
        auth: (e.status() == Some(401)).then_some(None),
    }
}

/// Whether a failed `initialize` was refused the way a modern-only server refuses it: a
/// JSON-RPC -32022 or -32601 answer, or (over HTTP) one inside a 4xx.
pub(super) fn refuses_handshake(e: &ClientInitializeError) -> bool {
    match e {
        ClientInitializeError::JsonRpcError(data) => era::handshake_first::refuses_handshake(data.code),
        ClientInitializeError::TransportError { error, .. } => {
            let inner: &(dyn std::error::Error + Send + Sync + 'static) = error.error.as_ref();
            let net = inner.downcast_ref::<NetError>().or_else(|| match inner.downcast_ref::<StreamableHttpError<NetError>>() {
                Some(StreamableHttpError::Client(n)) => Some(n),
                _ => None,
            });
            matches!(net, Some(NetError::Status { status, body }) if era::http_refuses_handshake(Some(*status), body))
        }
        _ => false,
    }
}

/// A pipe error that means the server process went away.
pub(super) fn hung_up(e: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| matches!(io.kind(), std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset))
}

pub(super) fn timed_out(name: &str, timeout_ms: u64, what: &str) -> McpError {
    McpError::new(ErrorKind::Timeout, name, format!("Request timed out after {timeout_ms} ms ({what} on server {name})")).in_connect()
}

/// The user-facing error for a network failure.
pub fn net_error(name: &str, e: &NetError) -> McpError {
    match e {
        NetError::Policy { id, message } => McpError::new(ErrorKind::Policy(id), name, message.clone()).in_connect(),
        NetError::Status { status, .. } => {
            let mut err = McpError::new(ErrorKind::ConnectFailed, name, e.to_string());
            err.http_status = Some(*status);
            err
        }
        other => McpError::new(ErrorKind::ConnectFailed, name, other.to_string()),
    }
}

/// Falls back on HTTP 400/404/405 and on failures without an HTTP answer; never on policy
/// errors, authorization challenges or other statuses.
pub(super) fn net_falls_back(e: &NetError) -> bool {
    match e {
        NetError::Policy { .. } | NetError::Fetch(_) => false,
        NetError::Status { status, .. } => matches!(status, 400 | 404 | 405),
        NetError::Connect(_) | NetError::Unreachable(_) | NetError::Timeout(_) | NetError::Body(_) => true,
    }
}

pub(super) fn classify(name: &str, e: &ClientInitializeError) -> Failure {
    match e {
        ClientInitializeError::TransportError { error, context } => {
            let inner: &(dyn std::error::Error + Send + Sync + 'static) = error.error.as_ref();
            if let Some(http) = inner.downcast_ref::<StreamableHttpError<NetError>>() {
                return match http {
                    StreamableHttpError::Client(net) => net_failure(name, net),
                    StreamableHttpError::AuthRequired(challenge) => {
                        let mut err = McpError::new(ErrorKind::ConnectFailed, name, "HTTP 401: the server requires authorization");
                        err.http_status = Some(401);
                        Failure { error: err, falls_back: false, auth: Some(Some(challenge.www_authenticate_header.clone())) }
                    }
                    StreamableHttpError::SessionExpired => {
                        let mut err = McpError::new(ErrorKind::ConnectFailed, name, "HTTP 404");
                        err.http_status = Some(404);
                        Failure { error: err, falls_back: true, auth: None }
                    }
                    StreamableHttpError::Auth(e) => Failure {
                        error: McpError::new(ErrorKind::AuthFailed, name, format!("OAuth: {e}")),
                        falls_back: false,
                        auth: None,
                    },
                    other => Failure {
                        error: McpError::new(ErrorKind::ConnectFailed, name, format!("{context}: {}", error_and_causes(other))),
                        falls_back: true,
                        auth: None,
                    },
                };
            }
            if let Some(net) = inner.downcast_ref::<NetError>() {
                return net_failure(name, net);
            }
            if hung_up(inner) {
                // A stdio server that exits at once closes its stdin before we write to it.
                return Failure {
                    error: McpError::new(
                        ErrorKind::ConnectFailed,
                        name,
                        format!("Connection closed before the server completed the initialize handshake (the server exited: {inner})"),
                    ),
                    falls_back: true,
                    auth: None,
                };
            }
            Failure {
                error: McpError::new(ErrorKind::ConnectFailed, name, format!("{context}: {}", error_and_causes(inner))),
                falls_back: true,
                auth: None,
            }
        }
        // The handshake-first start: rmcp's own `initialize` got the server's answer.
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => return classify(name, fallback),
        // A JSON-RPC answer to `initialize` means an MCP server is there: no other transport.
        ClientInitializeError::JsonRpcError(data) => Failure {
            error: McpError::new(ErrorKind::ConnectFailed, name, format!("MCP error {}: {}", data.code.0, data.message)),
            falls_back: false,
            auth: None,
        },
        ClientInitializeError::ConnectionClosed(_) => Failure {
            error: McpError::new(
                ErrorKind::ConnectFailed,
                name,
                "Connection closed before the server completed the initialize handshake (the server exited or wrote something that is not JSON-RPC)",
            ),
            falls_back: true,
            auth: None,
        },
        other => Failure { error: McpError::new(ErrorKind::ConnectFailed, name, other.to_string()), falls_back: true, auth: None },
    }
    .in_connect()
}

impl Failure {
    pub(super) fn in_connect(mut self) -> Self {
        self.error.during_connect = true;
        self
    }
}

/// An error's message followed by its causes' (when they add something), joined by ": ".
pub fn error_and_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(err) = cur {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = err.source();
    }
    parts.join(": ")
}

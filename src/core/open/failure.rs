//! Why a connect failed, as the user sees it, and whether another transport is worth trying.

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use crate::core::auth::{BeginError, OAuthSession};
use crate::core::era;
use crate::core::error::{ErrorKind, McpError};
use crate::core::net::NetError;

pub(super) fn both_failed(name: &str, streamable: McpError, sse: McpError) -> McpError {
    let mut e = McpError::new(
        ErrorKind::ConnectFailed,
        name,
        format!("Could not connect to server with any available HTTP transport. Streamable HTTP: {}. SSE: {}", streamable.message, sse.message),
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
    Failure { error: net_error(name, e), falls_back: net_falls_back(e), auth: (e.status() == Some(401)).then_some(None) }
}

/// Whether a failed `initialize` was refused the way a modern-only server refuses it: a
/// JSON-RPC error of the 2026-07-28 revision (-32020, -32021, -32022) or -32601, or (over HTTP)
/// one inside a 4xx (see `era::handshake_first::refuses_handshake`).
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
    e.downcast_ref::<std::io::Error>().is_some_and(|io| matches!(io.kind(), std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset))
}

pub(super) fn timed_out(name: &str, timeout_ms: u64, what: &str) -> McpError {
    McpError::new(ErrorKind::Timeout, name, format!("Request timed out after {timeout_ms} ms ({what} on server {name})")).in_connect()
}

/// The error of a connect refused with a 401, once the OAuth flow is started: the provider's
/// `redirectToAuthorization` fires, the server is marked `needs-auth`, and the connect fails
/// with an `UnauthorizedError`.
pub(super) async fn authorization_begun(name: &str, session: &OAuthSession, failure: Failure) -> McpError {
    let challenge = failure.auth.flatten();
    let mut error = match session.begin(challenge.as_deref()).await {
        Ok(_) => McpError::new(ErrorKind::AuthRequired, name, "UnauthorizedError: Unauthorized"),
        Err(BeginError::Policy { id, message }) => return McpError::new(ErrorKind::Policy(id), name, message).in_connect(),
        Err(BeginError::Failed(e)) => McpError::new(ErrorKind::AuthFailed, name, format!("UnauthorizedError: authorization could not start: {e}")),
    };
    error.http_status = Some(401);
    error.during_connect = true;
    error
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
                    StreamableHttpError::Auth(e) => Failure::no_fallback(McpError::new(ErrorKind::AuthFailed, name, format!("OAuth: {e}"))),
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
    /// A failure no other transport would mend, and no authorization challenge.
    pub(super) fn no_fallback(error: McpError) -> Self {
        Failure { error, falls_back: false, auth: None }
    }

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

#[cfg(test)]
mod tests {
    use std::any::TypeId;

    use rmcp::model::{ErrorCode, ErrorData};
    use rmcp::transport::streamable_http_client::AuthRequiredError;
    use rmcp::transport::DynamicTransportError;

    use super::*;

    fn status(status: u16) -> NetError {
        NetError::Status { status, body: String::new() }
    }

    /// A failed handshake whose transport failed with `error`.
    fn transport_failure(error: Box<dyn std::error::Error + Send + Sync>) -> ClientInitializeError {
        ClientInitializeError::TransportError {
            error: DynamicTransportError::from_parts("test", TypeId::of::<()>(), error),
            context: "send initialize".into(),
        }
    }

    #[test]
    fn http_falls_back_to_sse_only_where_streamable_http_may_be_missing() {
        for s in [400, 404, 405] {
            assert!(net_falls_back(&status(s)), "HTTP {s} falls back");
        }
        for s in [401, 403, 500, 503] {
            assert!(!net_falls_back(&status(s)), "HTTP {s} does not");
        }
        for e in [
            NetError::Connect("refused".into()),
            NetError::Unreachable("down".into()),
            NetError::Timeout("slow".into()),
            NetError::Body("cut".into()),
        ] {
            assert!(net_falls_back(&e), "{e} (no HTTP answer) falls back");
        }
        assert!(!net_falls_back(&NetError::Policy { id: "MCP_CLIENT_HOST_NOT_ALLOWED", message: "no".into() }));
        assert!(!net_falls_back(&NetError::Fetch("threw".into())), "a user's fetch that threw is not a missing transport");
    }

    #[test]
    fn a_network_failure_as_the_user_sees_it() {
        let policy = net_error("s", &NetError::Policy { id: "MCP_CLIENT_HOST_NOT_ALLOWED", message: "host x is not allowed".into() });
        assert_eq!(policy.kind, ErrorKind::Policy("MCP_CLIENT_HOST_NOT_ALLOWED"));
        assert_eq!(policy.message, "host x is not allowed");
        assert!(policy.during_connect);
        let refused = net_error("s", &NetError::Status { status: 503, body: "busy".into() });
        assert_eq!((refused.kind, refused.http_status, refused.message.as_str()), (ErrorKind::ConnectFailed, Some(503), "HTTP 503: busy"));
        let down = net_error("s", &NetError::Connect("connection refused".into()));
        assert_eq!((down.kind, down.http_status), (ErrorKind::ConnectFailed, None));
        let unauthorized = net_failure("s", &status(401));
        assert_eq!((unauthorized.falls_back, unauthorized.auth), (false, Some(None)), "a bare 401 asks for authorization");
        assert_eq!(net_failure("s", &status(404)).auth, None);
    }

    #[test]
    fn both_transports_failing_name_both_and_keep_a_status_and_a_policy_refusal() {
        let streamable = net_error("s", &status(404));
        let sse = net_error("s", &NetError::Connect("refused".into()));
        let both = both_failed("s", streamable.clone(), sse);
        assert_eq!(both.kind, ErrorKind::ConnectFailed);
        assert!(both.message.contains("Streamable HTTP: HTTP 404. SSE: refused"), "{}", both.message);
        assert_eq!(both.http_status, Some(404));
        assert!(both.during_connect);
        let only_sse_status = both_failed("s", net_error("s", &NetError::Connect("refused".into())), net_error("s", &status(405)));
        assert_eq!(only_sse_status.http_status, Some(405));
        let policy = net_error("s", &NetError::Policy { id: "MCP_CLIENT_REDIRECT_NOT_ALLOWED", message: "redirect refused".into() });
        let refused = both_failed("s", streamable, policy);
        assert_eq!((refused.kind, refused.message.as_str()), (ErrorKind::Policy("MCP_CLIENT_REDIRECT_NOT_ALLOWED"), "redirect refused"));
    }

    #[test]
    fn a_json_rpc_answer_means_a_server_is_there() {
        let failure = classify("s", &ClientInitializeError::JsonRpcError(ErrorData::new(ErrorCode::INVALID_PARAMS, "bad version", None)));
        assert!(!failure.falls_back);
        assert_eq!(failure.error.message, "MCP error -32602: bad version");
        assert!(failure.error.during_connect);
        let closed = classify("s", &ClientInitializeError::ConnectionClosed("eof".into()));
        assert!(closed.falls_back);
        assert!(closed.error.message.starts_with("Connection closed before the server completed the initialize handshake"));
    }

    #[test]
    fn the_handshake_first_start_is_judged_by_its_fallback() {
        let fallback = ClientInitializeError::JsonRpcError(ErrorData::new(ErrorCode::INTERNAL_ERROR, "boom", None));
        let failed = ClientInitializeError::LegacyFallbackFailed {
            discover: Box::new(ClientInitializeError::ConnectionClosed("eof".into())),
            fallback: Box::new(fallback),
        };
        let failure = classify("s", &failed);
        assert!(!failure.falls_back, "the fallback's JSON-RPC answer decides");
        assert!(failure.error.message.contains("boom"));
    }

    #[test]
    fn transport_failures_are_read_through_to_their_cause() {
        let auth = classify(
            "s",
            &transport_failure(Box::new(StreamableHttpError::<NetError>::AuthRequired(AuthRequiredError::new("Bearer realm=\"x\"".into())))),
        );
        assert_eq!(auth.auth, Some(Some("Bearer realm=\"x\"".to_string())));
        assert_eq!(auth.error.http_status, Some(401));
        assert!(!auth.falls_back);
        let net = classify("s", &transport_failure(Box::new(StreamableHttpError::<NetError>::Client(status(405)))));
        assert!(net.falls_back);
        assert_eq!(net.error.http_status, Some(405));
        let expired = classify("s", &transport_failure(Box::new(StreamableHttpError::<NetError>::SessionExpired)));
        assert_eq!((expired.falls_back, expired.error.http_status), (true, Some(404)));
        let bare = classify("s", &transport_failure(Box::new(NetError::Status { status: 403, body: String::new() })));
        assert!(!bare.falls_back);
        let exited = classify("s", &transport_failure(Box::new(std::io::Error::from(std::io::ErrorKind::BrokenPipe))));
        assert!(exited.falls_back);
        assert!(exited.error.message.contains("the server exited"), "{}", exited.error.message);
        let other = classify("s", &transport_failure(Box::new(std::io::Error::other("odd"))));
        assert_eq!(other.error.message, "send initialize: odd");
        assert!(other.error.during_connect);
    }

    #[test]
    fn a_modern_only_refusal_of_the_handshake_is_recognised() {
        let rpc = |code| ClientInitializeError::JsonRpcError(ErrorData::new(code, "no", None));
        assert!(refuses_handshake(&rpc(ErrorCode::METHOD_NOT_FOUND)));
        assert!(refuses_handshake(&rpc(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)));
        assert!(refuses_handshake(&rpc(ErrorCode::HEADER_MISMATCH)));
        assert!(refuses_handshake(&rpc(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)));
        assert!(!refuses_handshake(&rpc(ErrorCode::INVALID_PARAMS)));
        assert!(!refuses_handshake(&rpc(ErrorCode::INTERNAL_ERROR)));
        assert!(!refuses_handshake(&ClientInitializeError::ConnectionClosed("eof".into())));
        assert!(!refuses_handshake(&transport_failure(Box::new(NetError::Connect("refused".into())))));
    }

    #[test]
    fn hang_ups_and_timeouts() {
        assert!(hung_up(&std::io::Error::from(std::io::ErrorKind::BrokenPipe)));
        assert!(hung_up(&std::io::Error::from(std::io::ErrorKind::ConnectionReset)));
        assert!(!hung_up(&std::io::Error::from(std::io::ErrorKind::NotFound)));
        assert!(!hung_up(&NetError::Connect("refused".into())));
        let t = timed_out("s", 3000, "initialize");
        assert_eq!((t.kind, t.during_connect), (ErrorKind::Timeout, true));
        assert_eq!(t.message, "Request timed out after 3000 ms (initialize on server s)");
    }

    #[derive(Debug)]
    struct Chain(&'static str, Option<Box<Chain>>);
    impl std::fmt::Display for Chain {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Chain {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|c| c as _)
        }
    }

    #[test]
    fn causes_are_joined_once_each() {
        let chain = Chain("send failed", Some(Box::new(Chain("connection refused", Some(Box::new(Chain("refused", None)))))));
        assert_eq!(error_and_causes(&chain), "send failed: connection refused", "a cause already said adds nothing");
        assert_eq!(error_and_causes(&Chain("alone", None)), "alone");
    }
}

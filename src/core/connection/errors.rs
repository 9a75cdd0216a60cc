//! The user-facing errors of the request path: rmcp's `ServiceError` and the lane's `LaneError`
//! as `McpError`, and whether a failed request provably never reached the server.

use rmcp::service::ServiceError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::RequestOptions;
use crate::core::config::DEFAULT_ABORT_REASON;
use crate::core::error::{ErrorKind, McpError};
use crate::core::net::NetError;
use crate::core::open::{error_and_causes, net_error};
use crate::core::transport::lane::LaneError;

/// Why a request failed: whether it provably never reached the server matters for retries.
pub(super) enum RequestFailure {
    NotSent(McpError),
    Failed(McpError),
}

impl RequestFailure {
    pub(super) fn into_error(self) -> McpError {
        match self {
            RequestFailure::NotSent(e) | RequestFailure::Failed(e) => e,
        }
    }
}

/// Why a request was cancelled, as the canceller said.
pub fn cancel_reason(options: &RequestOptions) -> String {
    options
        .cancel_reason
        .as_ref()
        .and_then(|r| r.lock().ok().map(|s| s.clone()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| DEFAULT_ABORT_REASON.to_string())
}

/// The user-facing error for a lane request that did not succeed.
pub fn lane_error(server: &str, method: &str, e: LaneError) -> McpError {
    match e {
        LaneError::Rpc { code, message, data } => McpError::rpc(server, code, format!("MCP error {code}: {message}"), data),
        LaneError::Timeout { after_ms } => {
            McpError::new(ErrorKind::Timeout, server, format!("Request timed out after {after_ms} ms ({method} on server {server})"))
        }
        LaneError::Closed { detail } => {
            McpError::new(ErrorKind::TransportClosed, server, format!("Connection to MCP server {server} closed ({method}): {detail}"))
        }
        LaneError::Cancelled { reason } => McpError::new(ErrorKind::Aborted, server, reason),
        LaneError::TooLarge { detail } => McpError::new(ErrorKind::InvalidResponse, server, format!("{method} failed on server {server}: {detail}")),
    }
}

pub(super) fn service_error(server: &str, method: &str, timeout_ms: u64, e: ServiceError) -> McpError {
    match e {
        ServiceError::McpError(data) => {
            McpError::rpc(server, i64::from(data.code.0), format!("MCP error {}: {}", data.code.0, data.message), data.data)
        }
        ServiceError::Timeout { .. } => {
            McpError::new(ErrorKind::Timeout, server, format!("Request timed out after {timeout_ms} ms ({method} on server {server})"))
        }
        ServiceError::TransportSend(ref dynamic) => {
            let inner: &(dyn std::error::Error + Send + Sync + 'static) = dynamic.error.as_ref();
            let refusal = match inner.downcast_ref::<StreamableHttpError<NetError>>() {
                Some(StreamableHttpError::InsufficientScope(c)) => Some((403, "needs more scope", &c.www_authenticate_header)),
                Some(StreamableHttpError::AuthRequired(c)) => Some((401, "was refused", &c.www_authenticate_header)),
                _ => None,
            };
            if let Some((status, what, challenge)) = refusal {
                let mut err = McpError::new(
                    ErrorKind::AuthRequired,
                    server,
                    format!("UnauthorizedError: {method} on server {server} {what} (HTTP {status}); authorization is required"),
                );
                err.http_status = Some(status);
                err.auth_challenge = Some(challenge.clone());
                return err;
            }
            let net = inner.downcast_ref::<NetError>().or_else(|| match inner.downcast_ref::<StreamableHttpError<NetError>>() {
                Some(StreamableHttpError::Client(n)) => Some(n),
                _ => None,
            });
            match net {
                Some(n) => {
                    let mut err = net_error(server, n);
                    err.during_connect = false;
                    err.message = format!("{method} failed on server {server}: {}", err.message);
                    err
                }
                None => McpError::new(
                    ErrorKind::TransportClosed,
                    server,
                    format!("Connection to MCP server {server} closed ({method}): {}", error_and_causes(inner)),
                ),
            }
        }
        ServiceError::TransportClosed => {
            McpError::new(ErrorKind::TransportClosed, server, format!("Connection to MCP server {server} closed ({method}): {e}"))
        }
        ServiceError::Cancelled { reason } => McpError::new(ErrorKind::Aborted, server, reason.unwrap_or_else(|| DEFAULT_ABORT_REASON.into())),
        other => McpError::new(ErrorKind::InvalidResponse, server, format!("{method} failed on server {server}: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use std::any::TypeId;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use rmcp::model::{ErrorCode, ErrorData};
    use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
    use rmcp::transport::DynamicTransportError;
    use serde_json::json;

    use super::*;

    fn sent_and_failed(error: Box<dyn std::error::Error + Send + Sync>) -> ServiceError {
        ServiceError::TransportSend(DynamicTransportError::from_parts("test", TypeId::of::<()>(), error))
    }

    #[test]
    fn a_cancel_reports_the_cancellers_reason_or_the_default() {
        let mut options = RequestOptions::default();
        assert_eq!(cancel_reason(&options), "This operation was aborted");
        options.cancel_reason = Some(Arc::new(Mutex::new(String::new())));
        assert_eq!(cancel_reason(&options), "This operation was aborted", "an empty reason is no reason");
        options.cancel_reason = Some(Arc::new(Mutex::new("user left".into())));
        assert_eq!(cancel_reason(&options), "user left");
    }

    #[test]
    fn lane_failures_as_the_user_sees_them() {
        let rpc = lane_error("s", "tools/call", LaneError::Rpc { code: -32602, message: "bad".into(), data: Some(json!({ "field": "x" })) });
        assert_eq!((rpc.kind, rpc.rpc_code, rpc.message.as_str()), (ErrorKind::Rpc, Some(-32602), "MCP error -32602: bad"));
        assert_eq!(rpc.rpc_data, Some(json!({ "field": "x" })));
        let timeout = lane_error("s", "tools/call", LaneError::Timeout { after_ms: 250 });
        assert_eq!((timeout.kind, timeout.message.as_str()), (ErrorKind::Timeout, "Request timed out after 250 ms (tools/call on server s)"));
        let closed = lane_error("s", "tools/call", LaneError::Closed { detail: "server exited".into() });
        assert_eq!(
            (closed.kind, closed.message.as_str()),
            (ErrorKind::TransportClosed, "Connection to MCP server s closed (tools/call): server exited")
        );
        let cancelled = lane_error("s", "tools/call", LaneError::Cancelled { reason: "stop".into() });
        assert_eq!((cancelled.kind, cancelled.message.as_str()), (ErrorKind::Aborted, "stop"));
        let large = lane_error("s", "tools/call", LaneError::TooLarge { detail: "over 64 MiB".into() });
        assert_eq!((large.kind, large.message.as_str()), (ErrorKind::InvalidResponse, "tools/call failed on server s: over 64 MiB"));
        assert!(!timeout.during_connect && !closed.during_connect, "a request's failure is not a connect's");
    }

    #[test]
    fn rmcp_failures_as_the_user_sees_them() {
        let rpc = service_error("s", "resources/read", 1000, ServiceError::McpError(ErrorData::new(ErrorCode::RESOURCE_NOT_FOUND, "gone", None)));
        assert_eq!((rpc.kind, rpc.rpc_code, rpc.message.as_str()), (ErrorKind::Rpc, Some(-32002), "MCP error -32002: gone"));
        // The timeout the user set, not rmcp's rendering of it.
        let timeout = service_error("s", "resources/read", 1500, ServiceError::Timeout { timeout: Duration::from_millis(1500) });
        assert_eq!((timeout.kind, timeout.message.as_str()), (ErrorKind::Timeout, "Request timed out after 1500 ms (resources/read on server s)"));
        let closed = service_error("s", "prompts/get", 1000, ServiceError::TransportClosed);
        assert_eq!(closed.kind, ErrorKind::TransportClosed);
        assert!(closed.message.starts_with("Connection to MCP server s closed (prompts/get)"), "{}", closed.message);
        let cancelled = service_error("s", "prompts/get", 1000, ServiceError::Cancelled { reason: None });
        assert_eq!((cancelled.kind, cancelled.message.as_str()), (ErrorKind::Aborted, "This operation was aborted"));
        let said = service_error("s", "prompts/get", 1000, ServiceError::Cancelled { reason: Some("replaced".into()) });
        assert_eq!(said.message, "replaced");
        let other = service_error("s", "prompts/get", 1000, ServiceError::UnexpectedResponse);
        assert_eq!((other.kind, other.message.as_str()), (ErrorKind::InvalidResponse, "prompts/get failed on server s: Unexpected response type"));
    }

    #[test]
    fn an_authorization_refusal_carries_its_status_and_challenge() {
        let refused = service_error(
            "s",
            "tools/list",
            1000,
            sent_and_failed(Box::new(StreamableHttpError::<NetError>::AuthRequired(AuthRequiredError::new("Bearer".into())))),
        );
        assert_eq!((refused.kind, refused.http_status, refused.auth_challenge.as_deref()), (ErrorKind::AuthRequired, Some(401), Some("Bearer")));
        assert!(refused.message.contains("tools/list on server s was refused (HTTP 401)"), "{}", refused.message);
        let scope = InsufficientScopeError::new("Bearer error=\"insufficient_scope\"".into(), Some("write".into()));
        let more = service_error("s", "tools/call", 1000, sent_and_failed(Box::new(StreamableHttpError::<NetError>::InsufficientScope(scope))));
        assert_eq!((more.kind, more.http_status), (ErrorKind::AuthRequired, Some(403)));
        assert!(more.message.contains("needs more scope"), "{}", more.message);
    }

    #[test]
    fn a_network_failure_of_a_request_is_no_connect_failure() {
        for net in [
            Box::new(NetError::Status { status: 503, body: String::new() }) as Box<dyn std::error::Error + Send + Sync>,
            Box::new(StreamableHttpError::<NetError>::Client(NetError::Status { status: 503, body: String::new() })),
        ] {
            let e = service_error("s", "tools/call", 1000, sent_and_failed(net));
            assert_eq!((e.kind, e.http_status, e.during_connect), (ErrorKind::ConnectFailed, Some(503), false));
            assert_eq!(e.message, "tools/call failed on server s: HTTP 503");
        }
        let odd = service_error("s", "tools/call", 1000, sent_and_failed(Box::new(std::io::Error::other("socket gone"))));
        assert_eq!((odd.kind, odd.message.as_str()), (ErrorKind::TransportClosed, "Connection to MCP server s closed (tools/call): socket gone"));
    }

    #[test]
    fn either_failure_gives_its_error() {
        let e = McpError::new(ErrorKind::Timeout, "s", "late");
        assert_eq!(RequestFailure::NotSent(e.clone()).into_error().message, "late");
        assert_eq!(RequestFailure::Failed(e).into_error().kind, ErrorKind::Timeout);
    }
}

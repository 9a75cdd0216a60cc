//! The user-facing errors of the request path: rmcp's `ServiceError` and the lane's `LaneError`
//! as `McpError`, and whether a failed request provably never reached the server.

use rmcp::service::ServiceError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::RequestOptions;
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
        .unwrap_or_else(|| "This operation was aborted".to_string())
}

/// The user-facing error for a lane request that did not succeed.
pub fn lane_error(server: &str, method: &str, e: LaneError) -> McpError {
    match e {
        LaneError::Rpc { code, message, data } => McpError::rpc(server, code, format!("MCP error {code}: {message}"), data),
        LaneError::Timeout { after_ms } => McpError::new(
            ErrorKind::Timeout,
            server,
            format!("Request timed out after {after_ms} ms ({method} on server {server})"),
        ),
        LaneError::Closed { detail } => McpError::new(
            ErrorKind::TransportClosed,
            server,
            format!("Connection to MCP server {server} closed ({method}): {detail}"),
        ),
        LaneError::Cancelled { reason } => McpError::new(ErrorKind::Aborted, server, reason),
        LaneError::TooLarge { detail } => {
            McpError::new(ErrorKind::InvalidResponse, server, format!("{method} failed on server {server}: {detail}"))
        }
    }
}

pub(super) fn service_error(server: &str, method: &str, timeout_ms: u64, e: ServiceError) -> McpError {
    match e {
        ServiceError::McpError(data) => {
            McpError::rpc(server, i64::from(data.code.0), format!("MCP error {}: {}", data.code.0, data.message), data.data)
        }
        ServiceError::Timeout { .. } => McpError::new(
            ErrorKind::Timeout,
            server,
            format!("Request timed out after {timeout_ms} ms ({method} on server {server})"),
        ),
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
            let net = inner
                .downcast_ref::<NetError>()
                .or_else(|| match inner.downcast_ref::<StreamableHttpError<NetError>>() {
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
        ServiceError::TransportClosed => McpError::new(
            ErrorKind::TransportClosed,
            server,
            format!("Connection to MCP server {server} closed ({method}): {e}"),
        ),
        ServiceError::Cancelled { reason } => McpError::new(
            ErrorKind::Aborted,
            server,
            reason.unwrap_or_else(|| "This operation was aborted".into()),
        ),
        other => McpError::new(ErrorKind::InvalidResponse, server, format!("{method} failed on server {server}: {other}")),
    }
}

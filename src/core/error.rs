//! One error type for the whole core. Every variant names the server it concerns and maps to a
//! stable code string that the JS face turns into the matching `MastraError` / SDK-like error.

use serde_json::{json, Value};

/// What went wrong, as a closed set of kinds with stable codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The server definition is unusable (missing/both transports, wrong types).
    InvalidConfig,
    /// A per-server API was called with a name that is not configured.
    UnknownServer,
    /// The stdio child process could not be started.
    SpawnFailed,
    /// The transport opened but the MCP handshake failed (closed early, garbage, bad reply).
    ConnectFailed,
    /// A request (or the handshake) did not answer within its timeout.
    Timeout,
    /// The server answered with a JSON-RPC error.
    Rpc,
    /// The connection closed while a request was outstanding (it may have been processed).
    TransportClosed,
    /// The caller aborted the request.
    Aborted,
    /// The server's reply did not have the expected shape.
    InvalidResponse,
    /// An operation is not allowed in the current state (e.g. elicitation after connect).
    InvalidState,
    /// The client was disconnected while the operation was in flight.
    Disconnected,
    /// `allowedHosts` or the redirect rules refused a request; carries the anchor's error id
    /// (`MCP_CLIENT_HOST_NOT_ALLOWED`, `MCP_CLIENT_TOO_MANY_REDIRECTS`, ...). Never retried,
    /// never a reason to fall back to another transport.
    Policy(&'static str),
    /// The server requires OAuth authorization (`needs-auth`); `authenticate()` resolves it.
    AuthRequired,
    /// An OAuth step failed (discovery, registration, token exchange, callback).
    AuthFailed,
    /// The face handed over arguments that are not what the call takes (not JSON, not an object).
    InvalidArguments,
    /// Content did not match what the server said it would be (a skill file's size, digest or
    /// frontmatter against its entry): it is not used.
    Unverified,
}

impl ErrorKind {
    /// Stable code used across the JS boundary.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidConfig => "INVALID_CONFIG",
            ErrorKind::UnknownServer => "UNKNOWN_SERVER",
            ErrorKind::SpawnFailed => "SPAWN_FAILED",
            ErrorKind::ConnectFailed => "CONNECT_FAILED",
            ErrorKind::Timeout => "REQUEST_TIMEOUT",
            ErrorKind::Rpc => "RPC_ERROR",
            ErrorKind::TransportClosed => "TRANSPORT_CLOSED",
            ErrorKind::Aborted => "ABORTED",
            ErrorKind::InvalidResponse => "INVALID_RESPONSE",
            ErrorKind::InvalidState => "INVALID_STATE",
            ErrorKind::Disconnected => "DISCONNECTED",
            ErrorKind::Policy(id) => id,
            ErrorKind::AuthRequired => "UNAUTHORIZED",
            ErrorKind::AuthFailed => "AUTH_FAILED",
            ErrorKind::InvalidArguments => "INVALID_ARGUMENTS",
            ErrorKind::Unverified => "UNVERIFIED",
        }
    }

    /// Whether this failure happened while establishing the connection (as opposed to
    /// while running a request on an established one).
    pub fn is_connect_phase(self) -> bool {
        matches!(self, ErrorKind::InvalidConfig | ErrorKind::SpawnFailed | ErrorKind::ConnectFailed)
    }
}

/// An error from the core, always naming the server.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct McpError {
    pub kind: ErrorKind,
    pub server: String,
    pub message: String,
    /// JSON-RPC error code, for `ErrorKind::Rpc`.
    pub rpc_code: Option<i64>,
    /// JSON-RPC error data, for `ErrorKind::Rpc`.
    pub rpc_data: Option<Value>,
    /// HTTP status, when a remote server answered with one.
    pub http_status: Option<u16>,
    /// True when the failure happened while connecting (handshake included).
    pub during_connect: bool,
    /// The `WWW-Authenticate` challenge of a 401 (for `ErrorKind::AuthRequired`).
    pub auth_challenge: Option<String>,
}

impl McpError {
    pub fn new(kind: ErrorKind, server: impl Into<String>, message: impl Into<String>) -> Self {
        McpError {
            kind,
            server: server.into(),
            message: message.into(),
            rpc_code: None,
            rpc_data: None,
            http_status: None,
            during_connect: kind.is_connect_phase(),
            auth_challenge: None,
        }
    }

    pub fn invalid_config(server: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidConfig, server, message)
    }

    pub fn unknown_server(server: &str) -> Self {
        Self::new(ErrorKind::UnknownServer, server, format!("Server configuration not found for name: {server}"))
    }

    pub fn rpc(server: &str, code: i64, message: impl Into<String>, data: Option<Value>) -> Self {
        let mut e = Self::new(ErrorKind::Rpc, server, message);
        e.rpc_code = Some(code);
        e.rpc_data = data;
        e
    }

    /// Marks the error as having happened while connecting.
    pub fn in_connect(mut self) -> Self {
        self.during_connect = true;
        self
    }

    /// Whether the message already names the server (`… server <name> …`), or must keep the
    /// anchor's exact text (unknown server, `allowedHosts`/redirect policy: those carry the
    /// server in the error's details).
    fn names_server(&self) -> bool {
        self.server.is_empty()
            || matches!(self.kind, ErrorKind::UnknownServer | ErrorKind::Policy(_))
            || self.message.contains(&format!("server {}", self.server))
    }

    /// The message a user sees: every error names its server, exactly once. This is the one
    /// place where that is ensured; the specific text (and any code) is kept in front.
    pub fn user_message(&self) -> String {
        if self.names_server() {
            self.message.clone()
        } else {
            format!("{} (MCP server {})", self.message, self.server)
        }
    }

    /// The error as plain data for the JS face. `message` names the server; `detail` is the
    /// bare message, for wrappers that name the server themselves
    /// (`Failed to connect to MCP server <name>: <detail>`).
    pub fn to_json(&self) -> Value {
        json!({
            "code": self.kind.code(),
            "server": self.server,
            "message": self.user_message(),
            "detail": self.message,
            "rpcCode": self.rpc_code,
            "rpcData": self.rpc_data,
            "httpStatus": self.http_status,
            "duringConnect": self.during_connect,
        })
    }
}

pub type Result<T> = std::result::Result<T, McpError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable_and_json_names_the_server() {
        let e = McpError::rpc("weather", -32602, "Unknown tool: nope", None);
        let j = e.to_json();
        assert_eq!(j["code"], "RPC_ERROR");
        assert_eq!(j["server"], "weather");
        assert_eq!(j["rpcCode"], -32602);
        assert_eq!(j["duringConnect"], false);
        assert!(McpError::invalid_config("s", "x").during_connect);
    }

    #[test]
    fn every_user_message_names_the_server_once_and_keeps_the_code() {
        let e = McpError::rpc("weather", -32602, "MCP error -32602: Unknown tool: nope", None);
        assert_eq!(e.to_json()["message"], "MCP error -32602: Unknown tool: nope (MCP server weather)");
        assert_eq!(e.to_json()["detail"], "MCP error -32602: Unknown tool: nope");
        let named = McpError::new(ErrorKind::Timeout, "w", "Request timed out after 5 ms (tools/call on server w)");
        assert_eq!(named.user_message(), named.message);
        assert_eq!(McpError::unknown_server("w").user_message(), "Server configuration not found for name: w");
        assert_eq!(McpError::new(ErrorKind::ConnectFailed, "", "x").user_message(), "x");
    }
}

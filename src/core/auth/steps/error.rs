//! Why an OAuth step failed, in the MCP SDK's error vocabulary (`OAuthError` with its wire
//! `error` code, the flow errors, network failures), so the binding can raise the same classes.

use serde_json::{json, Value};

use crate::core::net::NetError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum StepError {
    /// The authorization server answered with an OAuth error (`error`, `error_description`, `error_uri`).
    #[error("{description}")]
    OAuth { code: String, description: String, uri: Option<String> },
    /// RFC 8414 §3.3 (`metadata`) or RFC 9207 (`authorization_response`) issuer check failed.
    #[error("Issuer mismatch in {}: expected {}, received {}", if *kind == "metadata" { "authorization server metadata (RFC 8414 §3.3)" } else { "authorization response (RFC 9207)" }, json!(expected), received.as_ref().map(|r| json!(r).to_string()).unwrap_or_else(|| "undefined".into()))]
    IssuerMismatch { kind: &'static str, expected: String, received: Option<String> },
    #[error("Dynamic Client Registration rejected (HTTP {status}): {body}")]
    RegistrationRejected { status: u16, body: String, submitted: Value },
    #[error(
        "Refusing to send credentials to non-https token endpoint '{0}'. OAuth token requests MUST use TLS (localhost / 127.0.0.1 / ::1 are exempt)."
    )]
    InsecureTokenEndpoint(String),
    #[error("Authorization server changed between redirect and callback (redirected to {}, callback resolved {}); refusing to send authorization_code/code_verifier to a different token endpoint", json!(recorded), json!(current))]
    AuthorizationServerMismatch { recorded: String, current: String },
    /// The request could not be made or its response not read.
    #[error("{0}")]
    Net(NetError),
    /// A URL argument is not a URL (`new URL()` throws a `TypeError`).
    #[error("{0}")]
    InvalidUrl(String),
    /// The provider's method threw.
    #[error("{0}")]
    Provider(String),
    /// Anything else the SDK reports as a plain `Error`.
    #[error("{0}")]
    Failed(String),
}

impl From<NetError> for StepError {
    fn from(e: NetError) -> Self {
        StepError::Net(e)
    }
}

impl StepError {
    pub fn failed(message: impl Into<String>) -> Self {
        StepError::Failed(message.into())
    }

    /// The OAuth error code, for `OAuth` errors.
    pub fn oauth_code(&self) -> Option<&str> {
        match self {
            StepError::OAuth { code, .. } => Some(code),
            _ => None,
        }
    }

    /// `{ kind, message, ...fields }`: what the binding turns into the SDK's error class.
    pub fn to_json(&self) -> Value {
        let message = self.to_string();
        match self {
            StepError::OAuth { code, uri, .. } => json!({ "kind": "OAuthError", "message": message, "code": code, "errorUri": uri }),
            StepError::IssuerMismatch { kind, expected, received } => {
                json!({ "kind": "IssuerMismatchError", "message": message, "issuerKind": kind, "expected": expected, "received": received })
            }
            StepError::RegistrationRejected { status, body, submitted } => {
                json!({ "kind": "RegistrationRejectedError", "message": message, "status": status, "body": body, "submittedMetadata": submitted })
            }
            StepError::InsecureTokenEndpoint(url) => json!({ "kind": "InsecureTokenEndpointError", "message": message, "tokenEndpoint": url }),
            StepError::AuthorizationServerMismatch { recorded, current } => {
                json!({ "kind": "AuthorizationServerMismatchError", "message": message, "recordedIssuer": recorded, "currentIssuer": current })
            }
            StepError::InvalidUrl(_) => json!({ "kind": "TypeError", "message": message }),
            StepError::Net(NetError::Policy { id, .. }) => json!({ "kind": "Error", "message": message, "policyId": id }),
            StepError::Net(NetError::Fetch(_)) => json!({ "kind": "Error", "message": message }),
            StepError::Net(_) => json!({ "kind": "TypeError", "message": format!("fetch failed: {message}") }),
            StepError::Provider(_) | StepError::Failed(_) => json!({ "kind": "Error", "message": message }),
        }
    }
}

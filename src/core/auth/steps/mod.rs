//! The OAuth client flow as separate steps, each usable on its own (the MCP SDK's `auth.ts`
//! shape: discover protected-resource metadata, discover authorization-server metadata,
//! register, start the authorization, exchange the code, refresh), and the `auth()` driver
//! that composes them over a provider. All HTTP goes through our net layer, so a custom
//! `fetch` and the host policy apply.

pub mod discovery;
pub mod driver;
pub mod error;
mod http;
pub mod register;
pub mod token;

pub use error::StepError;

/// The MCP protocol revision sent as `MCP-Protocol-Version` on discovery requests.
pub const DEFAULT_PROTOCOL_VERSION: &str = "2025-11-25";

/// Parses a URL the way `new URL()` does for our purposes; an unparsable one is a `TypeError`.
pub fn parse_url(value: &str) -> Result<url::Url, StepError> {
    url::Url::parse(value).map_err(|e| StepError::InvalidUrl(format!("Invalid URL {value:?}: {e}")))
}

/// `new URL(path, base)`.
pub fn join_url(base: &url::Url, path: &str) -> Result<url::Url, StepError> {
    base.join(path).map_err(|e| StepError::InvalidUrl(format!("Invalid URL {path:?} against {base}: {e}")))
}

/// A failure of the user's provider (its storage, a hook) as a step error.
pub(crate) fn provider_error(e: String) -> StepError {
    StepError::Provider(e)
}

pub(crate) fn str_field<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(serde_json::Value::as_str)
}

/// Two issuer identifiers that differ at most by a trailing slash.
pub(crate) fn issuers_match(a: &str, b: &str) -> bool {
    a == b || a.strip_suffix('/') == Some(b) || b.strip_suffix('/') == Some(a)
}

/// Stored credentials stamped for another authorization server are ignored.
pub(crate) fn unless_other_issuer(stored: Option<serde_json::Value>, issuer: &str) -> Option<serde_json::Value> {
    stored.filter(|v| str_field(v, "issuer").is_none_or(|i| issuers_match(i, issuer)))
}

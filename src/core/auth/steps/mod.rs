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

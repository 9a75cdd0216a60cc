//! OAuth 2.1 for protected MCP servers. rmcp's `AuthorizationManager` runs the RFC steps
//! (protected-resource and authorization-server discovery, registration, PKCE, token exchange
//! with the RFC 9207 `iss` check, refresh); this module plugs it into our net layer (host policy,
//! custom fetch), the user's provider (token and client storage, the browser redirect), and a
//! loopback callback server.

pub mod callback;
pub mod challenge;
pub mod http;
pub mod provider;
pub mod session;
pub mod steps;
pub mod store;

pub use provider::{AuthProvider, ProviderConfig};
pub use session::{AuthState, BeginError, OAuthSession, Refusal};

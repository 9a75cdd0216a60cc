//! OAuth 2.1 for protected MCP servers. rmcp's `AuthorizationManager` runs the RFC steps
//! (protected-resource and authorization-server discovery, registration, PKCE, token exchange
//! with the RFC 9207 `iss` check, refresh); this module plugs it into our net layer (host policy,
//! custom fetch), the user's provider (token and client storage, the browser redirect), and a
//! loopback callback server. `steps` is our own step-by-step engine with the MCP SDK's
//! functions and `auth()` driver (exported on their own, and used for providers without a
//! browser step); `challenge` reads and writes `WWW-Authenticate`.

pub mod callback;
pub mod challenge;
pub mod http;
pub mod provider;
pub mod session;
pub mod steps;
pub mod store;

pub use provider::{AuthProvider, ProviderConfig};
pub use session::{AuthState, BeginError, OAuthSession, Refusal};

//! OAuth 2.1 for protected MCP servers. `steps` runs the RFC steps (protected-resource and
//! authorization-server discovery, registration, PKCE, token exchange with the RFC 9207 `iss`
//! check, refresh, the provider's own grants) as the MCP SDK's functions and `auth()` driver,
//! over our net layer (host policy, custom fetch) and the user's provider (storage, hooks, the
//! browser redirect). `session` holds one server's flow state, `bearer` puts its tokens on
//! every MCP request, `callback` is the loopback callback server, `challenge` reads and
//! writes `WWW-Authenticate`.

pub mod bearer;
pub mod callback;
pub mod challenge;
pub mod dpop;
pub mod provider;
pub mod session;
pub mod steps;
pub mod store;

pub use provider::{AuthProvider, ProviderConfig};
pub use session::{AuthState, BeginError, OAuthSession, Refusal};

//! The port to the user's OAuth client provider (the MCP SDK's `OAuthClientProvider` shape:
//! `tokens`, `saveTokens`, `clientInformation`, `saveClientInformation`, `saveCodeVerifier`,
//! `redirectToAuthorization`, `invalidateCredentials`, plus its configuration). The node layer
//! implements it over one ThreadsafeFunction; everything is JSON.

use futures::future::BoxFuture;
use serde_json::{json, Value};

/// Calls one provider operation. `op` is the provider method name.
pub trait AuthProvider: Send + Sync + 'static {
    fn call(&self, op: &'static str, args: Value) -> BoxFuture<'static, Result<Value, String>>;
}

/// What the provider is configured with.
#[derive(Debug, Clone, Default)]
pub struct ProviderConfig {
    pub redirect_url: String,
    pub client_metadata: Value,
    pub client_metadata_url: Option<String>,
    /// The optional `OAuthClientProvider` methods this provider implements
    /// (`prepareTokenRequest`, `addClientAuthentication`, `validateResourceURL`, `state`, ...).
    pub hooks: Vec<String>,
    /// The provider asks for DPoP-bound tokens (RFC 9449).
    pub dpop: bool,
}

impl ProviderConfig {
    pub fn client_name(&self) -> Option<String> {
        self.client_metadata.get("client_name").and_then(Value::as_str).map(str::to_string)
    }

    pub fn has(&self, hook: &str) -> bool {
        self.hooks.iter().any(|h| h == hook)
    }

    /// Whether the provider sends users to a browser (it has a `redirectUrl`).
    pub fn interactive(&self) -> bool {
        !self.redirect_url.is_empty()
    }

    /// Scopes the client asks for when the server does not say.
    pub fn scopes(&self) -> Vec<String> {
        self.client_metadata.get("scope").and_then(Value::as_str).map(|s| s.split_whitespace().map(str::to_string).collect()).unwrap_or_default()
    }
}

/// How long a process waits for another one's refresh or registration of the same credentials
/// (the provider's storage lock, where it has one).
pub const CREDENTIAL_LOCK_WAIT_MS: u64 = 30_000;

/// Typed helpers over `AuthProvider::call`.
pub struct Provider<'a>(pub &'a dyn AuthProvider);

fn nonnull(v: Value) -> Option<Value> {
    (!v.is_null()).then_some(v)
}

impl Provider<'_> {
    pub async fn config(&self) -> Result<ProviderConfig, String> {
        let v = self.0.call("config", Value::Null).await?;
        Ok(ProviderConfig {
            redirect_url: v.get("redirectUrl").and_then(Value::as_str).unwrap_or_default().to_string(),
            client_metadata: v.get("clientMetadata").cloned().unwrap_or(Value::Null),
            client_metadata_url: v.get("clientMetadataUrl").and_then(Value::as_str).map(str::to_string),
            hooks: v
                .get("hooks")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default(),
            dpop: v.get("dpop").and_then(Value::as_bool).unwrap_or(false),
        })
    }

    pub async fn tokens(&self) -> Result<Option<Value>, String> {
        self.0.call("tokens", Value::Null).await.map(nonnull)
    }

    pub async fn save_tokens(&self, tokens: Value) -> Result<(), String> {
        self.0.call("saveTokens", tokens).await.map(drop)
    }

    pub async fn client_information(&self) -> Result<Option<Value>, String> {
        self.0.call("clientInformation", Value::Null).await.map(nonnull)
    }

    pub async fn save_client_information(&self, info: Value) -> Result<(), String> {
        self.0.call("saveClientInformation", info).await.map(drop)
    }

    pub async fn save_code_verifier(&self, verifier: &str) -> Result<(), String> {
        self.0.call("saveCodeVerifier", json!(verifier)).await.map(drop)
    }

    pub async fn redirect_to_authorization(&self, url: &str) -> Result<(), String> {
        self.0.call("redirectToAuthorization", json!(url)).await.map(drop)
    }

    pub async fn invalidate_credentials(&self, scope: &str) -> Result<(), String> {
        self.0.call("invalidateCredentials", json!(scope)).await.map(drop)
    }

    /// The saved discovery state (`OAuthDiscoveryState`), if any.
    pub async fn discovery_state(&self) -> Result<Option<Value>, String> {
        self.0.call("discoveryState", Value::Null).await.map(nonnull)
    }

    pub async fn save_discovery_state(&self, state: Value) -> Result<(), String> {
        self.0.call("saveDiscoveryState", state).await.map(drop)
    }

    /// Tells the provider which redirect URL the callback server actually bound (and every
    /// candidate it could have bound), as `applyResolvedRedirectUrl` does.
    pub async fn apply_resolved_redirect_url(&self, url: &str, candidates: &[String]) -> Result<(), String> {
        self.0.call("applyResolvedRedirectUrl", json!({ "url": url, "candidates": candidates })).await.map(drop)
    }

    /// `beginAuthorizationSession()` (pins `state()` for the flow), when the provider has it.
    pub async fn begin_authorization_session(&self, config: &ProviderConfig) -> Result<Option<String>, String> {
        if !config.has("beginAuthorizationSession") {
            return Ok(None);
        }
        Ok(self.0.call("beginAuthorizationSession", Value::Null).await?.as_str().map(str::to_string))
    }

    /// `endAuthorizationSession()`: unpins the state and restores the configured redirect URL.
    pub async fn end_authorization_session(&self, config: &ProviderConfig) -> Result<(), String> {
        if !config.has("endAuthorizationSession") {
            return Ok(());
        }
        self.0.call("endAuthorizationSession", Value::Null).await.map(drop)
    }

    pub async fn code_verifier(&self) -> Result<String, String> {
        let v = self.0.call("codeVerifier", Value::Null).await?;
        v.as_str().map(str::to_string).ok_or_else(|| "the OAuth provider's codeVerifier() returned no string".to_string())
    }

    /// Takes the storage's lock on the provider's `what` credentials (`tokens`, `client`) across
    /// processes, when its storage has one: a handle for `unlock_credentials`, or `None`.
    pub async fn lock_credentials(&self, config: &ProviderConfig, what: &str) -> Result<Option<Value>, String> {
        if !config.has("lockCredentials") {
            return Ok(None);
        }
        self.0.call("lockCredentials", json!({ "what": what, "waitMs": CREDENTIAL_LOCK_WAIT_MS })).await.map(nonnull)
    }

    /// Releases what `lock_credentials` took (a failure is logged: the lock ends with its holder).
    pub async fn unlock_credentials(&self, handle: Option<Value>) {
        if let Some(handle) = handle {
            if let Err(e) = self.0.call("unlockCredentials", handle).await {
                tracing::warn!("releasing the OAuth credentials lock failed: {e}");
            }
        }
    }

    /// `state()`, when the provider implements it.
    pub async fn state(&self) -> Result<Option<String>, String> {
        Ok(self.0.call("state", Value::Null).await?.as_str().map(str::to_string))
    }

    pub async fn save_resource_url(&self, url: &str) -> Result<(), String> {
        self.0.call("saveResourceUrl", json!(url)).await.map(drop)
    }

    pub async fn save_authorization_server_url(&self, url: &str) -> Result<(), String> {
        self.0.call("saveAuthorizationServerUrl", json!(url)).await.map(drop)
    }

    /// `validateResourceURL(serverUrl, resource)`: the resource to send, or `None` for none.
    pub async fn validate_resource_url(&self, server_url: &str, resource: Option<&str>) -> Result<Option<String>, String> {
        let v = self.0.call("validateResourceURL", json!({ "serverUrl": server_url, "resource": resource })).await?;
        Ok(v.as_str().map(str::to_string))
    }

    /// `prepareTokenRequest(scope)`: the grant parameters, or `None` for the default grant.
    pub async fn prepare_token_request(&self, scope: Option<&str>) -> Result<Option<Vec<(String, String)>>, String> {
        let v = self.0.call("prepareTokenRequest", json!(scope)).await?;
        Ok(pairs(&v))
    }

    /// `addClientAuthentication(headers, params, url, metadata)`: the request as the hook left it.
    pub async fn add_client_authentication(
        &self,
        headers: &[(String, String)],
        params: &[(String, String)],
        url: &str,
        metadata: Option<&Value>,
    ) -> Result<(Vec<(String, String)>, Vec<(String, String)>), String> {
        let v = self.0.call("addClientAuthentication", json!({ "headers": headers, "params": params, "url": url, "metadata": metadata })).await?;
        let headers = v.get("headers").and_then(pairs).ok_or("addClientAuthentication returned no headers")?;
        let params = v.get("params").and_then(pairs).ok_or("addClientAuthentication returned no params")?;
        Ok((headers, params))
    }
}

/// `[[key, value], ...]` as pairs; `None` for null or another shape.
fn pairs(v: &Value) -> Option<Vec<(String, String)>> {
    v.as_array()?
        .iter()
        .map(|p| match p.as_array().map(Vec::as_slice) {
            Some([Value::String(k), Value::String(v)]) => Some((k.clone(), v.clone())),
            _ => None,
        })
        .collect()
}

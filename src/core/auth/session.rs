//! One protected server's OAuth state: the rmcp `AuthorizationManager` (shared with the
//! transport's `AuthClient`, which attaches tokens and refreshes on 401), the pending
//! authorization (its `state`), and whether the server currently needs authorization.

use std::sync::{Arc, Mutex as StdMutex};

use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest, AuthorizationSession, InMemoryStateStore,
    OAuthClientConfig, StateStore,
};
use serde_json::{json, Value};
use tokio::sync::{Mutex, OnceCell};

use super::callback::Callback;
use super::http::NetOAuthHttp;
use super::provider::{AuthProvider, Provider, ProviderConfig};
use super::steps::driver::{self, AuthOptions, AuthResult};
use super::steps::StepError;
use super::store::ProviderCredentialStore;
use crate::core::net::{NetClient, NetError};

/// `getServerAuthState()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthState {
    /// Not connected yet (or never challenged).
    Unknown,
    /// The server refused us; `authenticate()` is needed.
    NeedsAuth,
    /// A connection was accepted.
    Authorized,
}

impl AuthState {
    pub fn as_str(self) -> Option<&'static str> {
        match self {
            AuthState::Unknown => None,
            AuthState::NeedsAuth => Some("needs-auth"),
            AuthState::Authorized => Some("authorized"),
        }
    }
}

pub struct OAuthSession {
    server: String,
    resource: url::Url,
    provider: Arc<dyn AuthProvider>,
    net: NetClient,
    manager: OnceCell<Arc<Mutex<AuthorizationManager>>>,
    states: InMemoryStateStore,
    state: StdMutex<AuthState>,
    /// `state` (CSRF token) of the authorization the user is expected to complete.
    pending: Arc<StdMutex<Option<String>>>,
    /// The redirect URL a running `authenticate()` bound, overriding the provider's.
    redirect_override: StdMutex<Option<String>>,
    /// A request-time refusal waiting for `authenticate()` (the session itself connects fine).
    refusal: StdMutex<Option<Refusal>>,
    /// A request of ours that `allowedHosts` refused (see `NetOAuthHttp::refused`).
    refused: Arc<StdMutex<Option<NetError>>>,
}

/// A request the server refused after the session was established.
#[derive(Debug, Clone)]
pub enum Refusal {
    /// 401: the token was rejected (and could not be refreshed).
    Unauthorized(Option<String>),
    /// 403 `insufficient_scope`: the challenge names the scope needed.
    InsufficientScope(String),
}

/// Why an authorization could not start.
#[derive(Debug)]
pub enum BeginError {
    /// `allowedHosts` refused an OAuth request (`id` is the policy error id).
    Policy { id: &'static str, message: String },
    Failed(String),
}

impl From<String> for BeginError {
    fn from(e: String) -> Self {
        BeginError::Failed(e)
    }
}

fn auth_error(e: AuthError) -> String {
    e.to_string()
}

impl OAuthSession {
    pub fn new(server: &str, resource: url::Url, provider: Arc<dyn AuthProvider>, net: NetClient) -> Self {
        OAuthSession {
            server: server.to_string(),
            resource,
            provider,
            net,
            manager: OnceCell::new(),
            states: InMemoryStateStore::new(),
            state: StdMutex::new(AuthState::Unknown),
            pending: Arc::new(StdMutex::new(None)),
            redirect_override: StdMutex::new(None),
            refused: Arc::new(StdMutex::new(None)),
            refusal: StdMutex::new(None),
        }
    }

    pub fn state(&self) -> AuthState {
        self.state.lock().map(|s| *s).unwrap_or(AuthState::Unknown)
    }

    pub fn set_state(&self, state: AuthState) {
        if let Ok(mut s) = self.state.lock() {
            *s = state;
        }
    }

    /// The cell holding the pending authorization's `state`, for the callback server.
    pub fn pending_state_cell(&self) -> Arc<StdMutex<Option<String>>> {
        self.pending.clone()
    }

    /// Forgets the pending authorization: callbacks for it are refused from now on.
    pub fn clear_pending(&self) {
        if let Ok(mut p) = self.pending.lock() {
            *p = None;
        }
    }

    pub fn pending_state(&self) -> Option<String> {
        self.pending.lock().ok().and_then(|p| p.clone())
    }

    pub fn set_redirect_override(&self, url: Option<String>) {
        if let Ok(mut r) = self.redirect_override.lock() {
            *r = url;
        }
    }

    pub fn provider(&self) -> Provider<'_> {
        Provider(self.provider.as_ref())
    }

    async fn new_manager(&self) -> Result<AuthorizationManager, String> {
        let http = Arc::new(NetOAuthHttp { net: self.net.clone(), refused: self.refused.clone() });
        let mut manager = AuthorizationManager::new_with_oauth_http_client(self.resource.as_str(), http)
            .await
            .map_err(auth_error)?;
        manager.set_credential_store(ProviderCredentialStore { provider: self.provider.clone() });
        manager.set_state_store(self.states.clone());
        Ok(manager)
    }

    /// The shared manager. On first use, stored tokens are picked up (with discovery, so that
    /// they can be refreshed) and a stored client secret is configured.
    async fn manager(&self) -> Result<Arc<Mutex<AuthorizationManager>>, String> {
        self.manager
            .get_or_try_init(|| async {
                let mut manager = self.new_manager().await?;
                // Saved discovery spares the metadata requests (and works while the
                // authorization server's discovery endpoints are unreachable).
                if let Some(metadata) = self.saved_metadata().await {
                    manager.set_metadata(metadata);
                }
                match manager.initialize_from_store().await {
                    Ok(true) => {
                        if let Err(e) = self.configure_stored_client(&mut manager).await {
                            tracing::warn!(server = %self.server, "stored OAuth client unusable: {e}");
                        }
                    }
                    Ok(false) => {}
                    // Tokens stay usable as they are; only refresh needs discovery.
                    Err(e) => tracing::warn!(server = %self.server, "OAuth discovery for stored tokens failed: {e}"),
                }
                Ok(Arc::new(Mutex::new(manager)))
            })
            .await
            .cloned()
    }

    async fn saved_metadata(&self) -> Option<AuthorizationMetadata> {
        let state = self.provider().discovery_state().await.ok().flatten()?;
        serde_json::from_value(state.get("authorizationServerMetadata")?.clone()).ok()
    }

    /// Saves discovery in the SDK's `OAuthDiscoveryState` shape.
    async fn save_metadata(&self, metadata: &AuthorizationMetadata) {
        let Ok(value) = serde_json::to_value(metadata) else { return };
        let state = json!({
            "authorizationServerUrl": metadata.issuer.clone().unwrap_or_else(|| metadata.authorization_endpoint.clone()),
            "authorizationServerMetadata": value,
        });
        if let Err(e) = self.provider().save_discovery_state(state).await {
            tracing::warn!(server = %self.server, "could not save OAuth discovery state: {e}");
        }
    }

    async fn configure_stored_client(&self, manager: &mut AuthorizationManager) -> Result<(), String> {
        let provider = self.provider();
        let Some(info) = provider.client_information().await? else { return Ok(()) };
        let Some(client_id) = info.get("client_id").and_then(Value::as_str) else { return Ok(()) };
        let config = provider.config().await?;
        let mut client = OAuthClientConfig::new(client_id, self.redirect_url(&config));
        if let Some(secret) = info.get("client_secret").and_then(Value::as_str) {
            client = client.with_client_secret(secret);
        }
        manager.configure_client(client).map_err(auth_error)
    }

    fn redirect_url(&self, config: &ProviderConfig) -> String {
        self.redirect_override
            .lock()
            .ok()
            .and_then(|r| r.clone())
            .unwrap_or_else(|| config.redirect_url.clone())
    }

    /// Wraps a transport HTTP client so requests carry tokens and a rejected token is refreshed.
    pub async fn authorize<C>(&self, http: C) -> Result<AuthClient<C>, String> {
        let shared = self.manager().await?;
        let mut client = AuthClient::new(http, self.new_manager().await?);
        client.auth_manager = shared;
        Ok(client)
    }

    /// The current access token, if one is stored and usable (refreshing it if needed).
    pub async fn access_token(&self) -> Option<String> {
        let manager = self.manager().await.ok()?;
        let token = manager.lock().await.get_access_token().await.ok();
        token
    }

    /// The server asked for authorization: discover, pick the client identity, build the
    /// authorization URL and hand it to the provider's `redirectToAuthorization`.
    pub async fn begin(&self, challenge: Option<&str>) -> Result<String, BeginError> {
        self.set_state(AuthState::NeedsAuth);
        if let Ok(mut r) = self.refused.lock() {
            *r = None;
        }
        self.begin_inner(challenge).await.map_err(|e| match self.refused.lock().ok().and_then(|mut r| r.take()) {
            Some(NetError::Policy { id, message }) => BeginError::Policy { id, message },
            _ => e,
        })
    }

    async fn begin_inner(&self, challenge: Option<&str>) -> Result<String, BeginError> {
        let provider = self.provider();
        let config = provider.config().await?;
        let redirect = self.redirect_url(&config);
        if redirect.is_empty() {
            return Err(BeginError::Failed(format!("The OAuth provider of MCP server {} has no redirect URL", self.server)));
        }
        let shared = self.manager().await?;
        let mut guard = shared.lock().await;
        let placeholder = self.new_manager().await?;
        let mut manager = std::mem::replace(&mut *guard, placeholder);
        match manager.resolve_metadata_from_challenge(challenge).await {
            Ok(resolution) => {
                self.save_metadata(&resolution.metadata).await;
                manager.set_metadata(resolution.metadata);
            }
            Err(e) => {
                *guard = manager;
                return Err(BeginError::Failed(format!("OAuth discovery failed: {e}")));
            }
        }
        let stored_client = provider.client_information().await?;
        let mut request = AuthorizationRequest::new(redirect.clone());
        let scopes = config.scopes();
        if !scopes.is_empty() && challenge.is_none_or(|c| !c.contains("scope=")) {
            request = request.with_scopes(scopes);
        }
        match stored_client.as_ref().and_then(|c| c.get("client_id")).and_then(Value::as_str) {
            Some(client_id) => {
                request = request.with_preregistered_client(client_id);
                if let Some(secret) = stored_client.as_ref().and_then(|c| c.get("client_secret")).and_then(Value::as_str) {
                    request = request.with_client_secret(secret);
                }
            }
            None => {
                if let Some(url) = &config.client_metadata_url {
                    request = request.with_client_metadata_url(url);
                }
                request = request.with_client_name(config.client_name().unwrap_or_else(|| "Mastra MCP client".into()));
            }
        }
        let session = match AuthorizationSession::new(manager, request).await {
            Ok(session) => session,
            Err((manager, e)) => {
                *guard = manager;
                return Err(BeginError::Failed(e.to_string()));
            }
        };
        let auth_url = session.auth_url.clone();
        let credentials = session.auth_manager.get_credentials().await.ok();
        *guard = session.auth_manager;
        drop(guard);
        if stored_client.is_none() {
            if let Some((client_id, _)) = credentials {
                provider.save_client_information(json!({ "client_id": client_id, "redirect_uris": [redirect] })).await?;
            }
        }
        self.note_pending(&auth_url).await?;
        provider.redirect_to_authorization(&auth_url).await?;
        Ok(auth_url)
    }

    /// A provider with no browser step (no `redirectUrl`: client credentials or another grant
    /// its `prepareTokenRequest` prepares) obtains tokens right away through the `auth()`
    /// driver, as the SDK's transport does on a 401. `Ok(true)` when tokens were stored and
    /// the request can be retried; `Ok(false)` for interactive providers.
    pub async fn authorize_without_browser(&self, challenge: Option<&str>) -> Result<bool, BeginError> {
        let config = self.provider().config().await?;
        if config.interactive() {
            return Ok(false);
        }
        let params = challenge.map(super::challenge::challenge_params).unwrap_or_default();
        let options = AuthOptions {
            server_url: self.resource.to_string(),
            scope: params.scope,
            resource_metadata_url: params.resource_metadata_url.map(String::from),
            ..Default::default()
        };
        match driver::auth(&self.net, self.provider.as_ref(), &options).await {
            Ok(AuthResult::Authorized) => Ok(true),
            Ok(AuthResult::Redirect) => Ok(false),
            Err(StepError::Net(NetError::Policy { id, message })) => Err(BeginError::Policy { id, message }),
            Err(e) => Err(BeginError::Failed(format!("OAuth for MCP server {} failed: {e}", self.server))),
        }
    }

    /// A request was refused: the server needs (more) authorization. `authenticate()` starts
    /// it; starting it here too would count twice against the authorization server's patience
    /// (and the conformance suite's retry limit).
    pub fn refused(&self, refusal: Refusal) {
        self.set_state(AuthState::NeedsAuth);
        if let Ok(mut r) = self.refusal.lock() {
            *r = Some(refusal);
        }
    }

    /// Starts the authorization a refusal calls for.
    pub async fn retry_refusal(&self, refusal: Refusal) -> Result<(), BeginError> {
        match refusal {
            Refusal::Unauthorized(challenge) => self.begin(challenge.as_deref()).await.map(drop),
            Refusal::InsufficientScope(challenge) => self.begin_step_up(&challenge).await,
        }
    }

    /// The refusal waiting for `authenticate()`, if any.
    pub fn take_refusal(&self) -> Option<Refusal> {
        self.refusal.lock().ok().and_then(|mut r| r.take())
    }

    /// A 403 `insufficient_scope`: authorize again for the scopes held plus the ones required
    /// (rmcp bounds the number of upgrades). The redirect fires now; `authenticate()` repeats it
    /// while its callback server listens.
    pub async fn begin_step_up(&self, challenge: &str) -> Result<(), BeginError> {
        self.set_state(AuthState::NeedsAuth);
        let required = super::challenge::challenge_param(challenge, "scope").unwrap_or_default();
        let provider = self.provider();
        let config = provider.config().await?;
        let redirect = self.redirect_url(&config);
        let shared = self.manager().await?;
        let mut guard = shared.lock().await;
        if let Ok((client_id, _)) = guard.get_credentials().await {
            let mut client = OAuthClientConfig::new(client_id, redirect);
            let secret = provider.client_information().await?.and_then(|c| c.get("client_secret").and_then(Value::as_str).map(str::to_string));
            if let Some(secret) = secret {
                client = client.with_client_secret(secret);
            }
            guard.configure_client(client).map_err(|e| BeginError::Failed(e.to_string()))?;
        }
        let auth_url = guard
            .request_scope_upgrade(&required)
            .await
            .map_err(|e| BeginError::Failed(format!("scope step-up refused: {e}")))?;
        drop(guard);
        self.note_pending(&auth_url).await?;
        provider.redirect_to_authorization(&auth_url).await?;
        Ok(())
    }

    /// Records the `state` of a new authorization URL and hands the PKCE verifier to the provider.
    async fn note_pending(&self, auth_url: &str) -> Result<(), String> {
        let csrf = url::Url::parse(auth_url)
            .ok()
            .and_then(|u| u.query_pairs().find(|(k, _)| k == "state").map(|(_, v)| v.into_owned()));
        if let Some(csrf) = &csrf {
            if let Ok(Some(stored)) = self.states.load(csrf).await {
                self.provider().save_code_verifier(&stored.pkce_verifier).await?;
            }
        }
        if let Ok(mut p) = self.pending.lock() {
            *p = csrf;
        }
        Ok(())
    }

    /// Completes the pending authorization with the callback's code (checking `state` and the
    /// RFC 9207 issuer) and stores the tokens through the provider.
    pub async fn finish(&self, callback: &Callback) -> Result<(), String> {
        let expected = self
            .pending_state()
            .ok_or_else(|| "No OAuth authorization is pending for this server. Call connect() first.".to_string())?;
        if callback.state != expected {
            return Err("The OAuth callback's state does not match the pending authorization".into());
        }
        let shared = self.manager().await?;
        let guard = shared.lock().await;
        guard
            .exchange_code_for_token_with_issuer(&callback.code, &callback.state, callback.iss.as_deref())
            .await
            .map_err(|e| format!("OAuth token exchange failed: {e}"))?;
        drop(guard);
        if let Ok(mut p) = self.pending.lock() {
            *p = None;
        }
        Ok(())
    }
}

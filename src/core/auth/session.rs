//! One protected server's OAuth state: the pending authorization (its `state`), whether the
//! server currently needs authorization, and the bridge from the transport (`bearer.rs`) and
//! `authenticate()` to the `auth()` driver of `steps`, which runs every RFC step over the
//! user's provider (its hooks included) and our net layer.

use std::sync::{Arc, Mutex as StdMutex};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::Mutex;

use super::callback::Callback;
use super::dpop::DpopKey;
use super::provider::{AuthProvider, Provider};
use super::steps::driver::{self, AuthOptions, AuthResult};
use super::steps::StepError;
use super::store::{now_secs_precise, OBTAINED_AT};
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
    state: StdMutex<AuthState>,
    /// `state` (CSRF token) of the authorization the user is expected to complete.
    pending: Arc<StdMutex<Option<String>>>,
    /// A request-time refusal waiting for `authenticate()` (the session itself connects fine).
    refusal: StdMutex<Option<Refusal>>,
    /// One token renewal at a time: concurrent requests wait for it and use its result.
    renewing: Mutex<()>,
    /// How many renewals got a token (an operation's trace tells a refresh under it).
    renewals: std::sync::atomic::AtomicU64,
    /// The DPoP key of this server's credentials (RFC 9449), made when the provider asks for
    /// DPoP, and the resource server's last nonce.
    dpop: StdMutex<Option<Arc<DpopKey>>>,
    rs_nonce: StdMutex<Option<String>>,
    /// Whether the provider asks for DPoP (read from its configuration once).
    dpop_wanted: std::sync::OnceLock<bool>,
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
    Policy {
        id: &'static str,
        message: String,
    },
    Failed(String),
}

impl From<String> for BeginError {
    fn from(e: String) -> Self {
        BeginError::Failed(e)
    }
}

impl std::fmt::Display for BeginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BeginError::Policy { message, .. } | BeginError::Failed(message) => f.write_str(message),
        }
    }
}

impl From<StepError> for BeginError {
    fn from(e: StepError) -> Self {
        match e {
            StepError::Net(NetError::Policy { id, message }) => BeginError::Policy { id, message },
            e => BeginError::Failed(e.to_string()),
        }
    }
}

/// The provider as the driver sees it during `begin`: every redirect it asks for is recorded
/// (its `state` becomes the pending authorization) before the user's `redirectToAuthorization`.
struct Recording {
    provider: Arc<dyn AuthProvider>,
    pending: Arc<StdMutex<Option<String>>>,
}

impl AuthProvider for Recording {
    fn call(&self, op: &'static str, args: Value) -> BoxFuture<'static, Result<Value, String>> {
        if op == "redirectToAuthorization" {
            let csrf = args
                .as_str()
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.query_pairs().find(|(k, _)| k == "state").map(|(_, v)| v.into_owned()));
            if let Ok(mut p) = self.pending.lock() {
                *p = csrf;
            }
        }
        self.provider.call(op, args)
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Whether stored tokens say they have expired (`obtained_at` + `expires_in`, with a margin).
fn expired(tokens: &Value) -> bool {
    const MARGIN_SECS: f64 = 5.0;
    match (tokens.get(OBTAINED_AT).and_then(Value::as_f64), tokens.get("expires_in").and_then(Value::as_f64)) {
        (Some(at), Some(ttl)) => at + ttl <= now_secs_precise() + MARGIN_SECS.min(ttl / 2.0),
        _ => false,
    }
}

impl OAuthSession {
    pub fn new(server: &str, resource: url::Url, provider: Arc<dyn AuthProvider>, net: NetClient) -> Self {
        OAuthSession {
            server: server.to_string(),
            resource,
            provider,
            net,
            state: StdMutex::new(AuthState::Unknown),
            pending: Arc::new(StdMutex::new(None)),
            refusal: StdMutex::new(None),
            renewing: Mutex::new(()),
            renewals: Default::default(),
            dpop: StdMutex::new(None),
            rs_nonce: StdMutex::new(None),
            dpop_wanted: std::sync::OnceLock::new(),
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

    pub fn provider(&self) -> Provider<'_> {
        Provider(self.provider.as_ref())
    }

    /// The current access token, if one is stored and usable (refreshing it if needed).
    pub async fn access_token(&self) -> Option<String> {
        self.bearer().await
    }

    async fn stored_tokens(&self) -> Option<Value> {
        match self.provider().tokens().await {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(server = %self.server, "reading OAuth tokens failed: {e}");
                None
            }
        }
    }

    /// The token to send: the stored one, renewed first when it says it has expired (and a
    /// renewal is possible; otherwise the stored one goes out and the server decides).
    pub async fn bearer(&self) -> Option<String> {
        self.bearer_checked().await.unwrap_or_else(|e| {
            tracing::warn!(server = %self.server, "reading OAuth tokens failed: {e}");
            None
        })
    }

    /// `bearer`, with the provider's failure to read its storage as an error (a store that
    /// cannot be read is not a server that needs authorization).
    pub async fn bearer_checked(&self) -> Result<Option<String>, String> {
        let Some(tokens) = self.provider().tokens().await? else { return Ok(None) };
        let Some(token) = str_field(&tokens, "access_token").map(str::to_string) else { return Ok(None) };
        if !expired(&tokens) {
            return Ok(Some(token));
        }
        Ok(Some(self.renew(Some(&token), None, false).await.unwrap_or(token)))
    }

    /// How many renewals (a refresh, or the provider's own grant) got a token so far.
    pub fn renewals(&self) -> u64 {
        self.renewals.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The server rejected `sent`: a new token, when one can be had without the user.
    pub async fn renew_after_rejection(&self, sent: Option<&str>, challenge: Option<&str>) -> Option<String> {
        self.renew(sent, challenge, true).await
    }

    /// Renews the token (a refresh, or the provider's own grant) without a browser step;
    /// `rejected`: the server refused the token, so its metadata is read again first.
    /// Serialised: a caller that waited finds the token another renewal stored.
    /// Across processes too, where the provider's storage has a lock: a refresh token that
    /// rotates is spent by one process, and the others read what it stored.
    async fn renew(&self, stale: Option<&str>, challenge: Option<&str>, rejected: bool) -> Option<String> {
        let _turn = self.renewing.lock().await;
        let config = self.provider().config().await.ok()?;
        let held = match self.provider().lock_credentials(&config, "tokens").await {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(server = %self.server, "OAuth tokens of MCP server {} not renewed: {e}", self.server);
                return None;
            }
        };
        let renewed = self.renew_held(stale, challenge, rejected, &config).await;
        self.provider().unlock_credentials(held).await;
        renewed
    }

    async fn renew_held(&self, stale: Option<&str>, challenge: Option<&str>, rejected: bool, config: &super::ProviderConfig) -> Option<String> {
        if let Some(current) = self.stored_tokens().await {
            let token = str_field(&current, "access_token");
            if token.is_some() && token != stale && !expired(&current) {
                return token.map(str::to_string);
            }
        }
        // An interactive provider renews only by refreshing (anything else needs the user).
        if config.interactive() && self.stored_tokens().await.as_ref().and_then(|t| str_field(t, "refresh_token")).is_none() {
            return None;
        }
        let options = self.options(challenge, AuthOptions { no_redirect: true, rediscover: rejected, ..Default::default() });
        match self.run(self.provider.as_ref(), options).await {
            Ok(AuthResult::Authorized) => {
                self.renewals.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let tokens = self.stored_tokens().await?;
                str_field(&tokens, "access_token").map(str::to_string)
            }
            Ok(AuthResult::Redirect) => None,
            Err(e) => {
                tracing::debug!(server = %self.server, "OAuth token renewal failed: {e}");
                None
            }
        }
    }

    /// Runs the `auth()` driver for this server, with its DPoP key when the provider asks for DPoP.
    async fn run(&self, provider: &dyn AuthProvider, mut options: AuthOptions) -> Result<AuthResult, StepError> {
        options.dpop = self.dpop_key().await;
        driver::auth(&self.net, provider, &options).await
    }

    async fn wants_dpop(&self) -> bool {
        if let Some(wanted) = self.dpop_wanted.get() {
            return *wanted;
        }
        let wanted = self.provider().config().await.is_ok_and(|c| c.dpop);
        *self.dpop_wanted.get_or_init(|| wanted)
    }

    /// The DPoP key of these credentials, when the provider asks for DPoP: the one the stored
    /// tokens are bound to (kept with them, so it outlives the process as they do), else a new one.
    pub async fn dpop_key(&self) -> Option<Arc<DpopKey>> {
        if !self.wants_dpop().await {
            return None;
        }
        if let Some(key) = self.dpop.lock().ok().and_then(|k| k.clone()) {
            return Some(key);
        }
        let stored = self.stored_tokens().await.and_then(|t| DpopKey::from_tokens(&t));
        let key = match stored {
            Some(key) => Some(key),
            None => DpopKey::generate().map_err(|e| tracing::warn!(server = %self.server, "{e}")).ok(),
        };
        let mut held = self.dpop.lock().ok()?;
        if held.is_none() {
            *held = key.map(Arc::new);
        }
        held.clone()
    }

    /// How the token goes out on a request to the MCP server: the DPoP key to prove it with when
    /// the stored token is DPoP-bound (`None`: a bearer token), and the server's last nonce.
    /// A provider without DPoP is asked nothing more than its configuration, once.
    pub async fn presentation(&self) -> (Option<Arc<DpopKey>>, Option<String>) {
        if !self.wants_dpop().await {
            return (None, None);
        }
        let bound = self.stored_tokens().await.is_some_and(|t| super::dpop::bound(&t));
        let key = if bound { self.dpop_key().await } else { None };
        (key, self.rs_nonce.lock().ok().and_then(|n| n.clone()))
    }

    /// The resource server supplied a DPoP nonce.
    pub fn set_rs_nonce(&self, nonce: String) {
        if let Ok(mut n) = self.rs_nonce.lock() {
            *n = Some(nonce);
        }
    }

    /// Driver options for this server, with the challenge's scope and metadata URL.
    fn options(&self, challenge: Option<&str>, base: AuthOptions) -> AuthOptions {
        let params = challenge.map(super::challenge::challenge_params).unwrap_or_default();
        AuthOptions {
            server_url: self.resource.to_string(),
            scope: base.scope.or(params.scope),
            resource_metadata_url: params.resource_metadata_url.map(String::from),
            ..base
        }
    }

    /// The server asked for authorization: discover, pick the client identity, build the
    /// authorization URL and hand it to the provider's `redirectToAuthorization`.
    pub async fn begin(&self, challenge: Option<&str>) -> Result<(), BeginError> {
        self.set_state(AuthState::NeedsAuth);
        let config = self.provider().config().await?;
        if !config.interactive() {
            return Err(BeginError::Failed(format!("The OAuth provider of MCP server {} has no redirect URL", self.server)));
        }
        self.redirect(self.options(challenge, AuthOptions { force_reauthorization: true, rediscover: true, ..Default::default() })).await
    }

    async fn redirect(&self, options: AuthOptions) -> Result<(), BeginError> {
        let recording = Recording { provider: self.provider.clone(), pending: self.pending.clone() };
        match self.run(&recording, options).await {
            Ok(_) => Ok(()),
            Err(e) => Err(e.into()),
        }
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
        let options = self.options(challenge, AuthOptions::default());
        match self.run(self.provider.as_ref(), options).await {
            Ok(AuthResult::Authorized) => Ok(true),
            Ok(AuthResult::Redirect) => Ok(false),
            Err(e) => Err(match BeginError::from(e) {
                BeginError::Failed(e) => BeginError::Failed(format!("OAuth for MCP server {} failed: {e}", self.server)),
                policy => policy,
            }),
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
            Refusal::Unauthorized(challenge) => self.begin(challenge.as_deref()).await,
            Refusal::InsufficientScope(challenge) => self.begin_step_up(&challenge).await,
        }
    }

    /// The refusal waiting for `authenticate()`, if any.
    pub fn take_refusal(&self) -> Option<Refusal> {
        self.refusal.lock().ok().and_then(|mut r| r.take())
    }

    /// A 403 `insufficient_scope`: authorize again for the scopes held plus the ones required.
    pub async fn begin_step_up(&self, challenge: &str) -> Result<(), BeginError> {
        self.set_state(AuthState::NeedsAuth);
        let required = super::challenge::challenge_param(challenge, "scope").unwrap_or_default();
        let held = self.stored_tokens().await.and_then(|t| str_field(&t, "scope").map(str::to_string)).unwrap_or_default();
        let mut scopes: Vec<&str> = held.split_whitespace().collect();
        for s in required.split_whitespace() {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        self.redirect(self.options(Some(challenge), AuthOptions { scope, force_reauthorization: true, rediscover: true, ..Default::default() })).await
    }

    /// Completes the pending authorization with the callback's code (checking `state` and the
    /// RFC 9207 issuer) and stores the tokens through the provider.
    pub async fn finish(&self, callback: &Callback) -> Result<(), String> {
        let expected = self.pending_state().ok_or_else(|| "No OAuth authorization is pending for this server. Call connect() first.".to_string())?;
        if callback.state != expected {
            return Err("The OAuth callback's state does not match the pending authorization".into());
        }
        let options = AuthOptions {
            server_url: self.resource.to_string(),
            authorization_code: Some(callback.code.clone()),
            iss: callback.iss.clone(),
            ..Default::default()
        };
        self.run(self.provider.as_ref(), options).await.map_err(|e| format!("OAuth token exchange failed: {e}"))?;
        if let Ok(mut p) = self.pending.lock() {
            *p = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::store::now_secs;
    use super::*;
    use serde_json::json;

    /// A provider that asks for DPoP and holds `tokens`.
    struct Holding(Value);

    impl AuthProvider for Holding {
        fn call(&self, op: &'static str, _args: Value) -> BoxFuture<'static, Result<Value, String>> {
            let answer = match op {
                "config" => json!({ "redirectUrl": "http://127.0.0.1:1/cb", "clientMetadata": {}, "hooks": [], "dpop": true }),
                "tokens" => self.0.clone(),
                _ => Value::Null,
            };
            Box::pin(async move { Ok(answer) })
        }
    }

    fn session_holding(tokens: Value) -> OAuthSession {
        let backend = Arc::new(crate::core::net::reqwest_backend::ReqwestBackend::shared());
        let net = NetClient::new(backend, Default::default(), vec![]);
        OAuthSession::new("s", url::Url::parse("http://127.0.0.1:1/mcp").unwrap(), Arc::new(Holding(tokens)), net)
    }

    #[tokio::test]
    async fn a_dpop_bound_token_is_proven_with_the_key_stored_with_it() {
        let key = DpopKey::generate().unwrap();
        let stored = json!({ "access_token": "a", "token_type": "DPoP", super::super::dpop::STORED_KEY: key.stored() });
        let session = session_holding(stored);
        let (presented, _) = session.presentation().await;
        assert_eq!(presented.expect("a bound token is proven").jwk(), key.jwk(), "with the key that came back with the tokens, not a new one");
        let bearer = session_holding(json!({ "access_token": "a", "token_type": "Bearer" }));
        assert!(bearer.presentation().await.0.is_none(), "a bearer token goes out as one");
    }

    #[test]
    fn tokens_expire_by_their_own_clock_with_a_small_margin() {
        let now = now_secs();
        assert!(!expired(&json!({ "access_token": "a" })), "no expiry known: used until refused");
        assert!(!expired(&json!({ OBTAINED_AT: now, "expires_in": 300 })));
        assert!(expired(&json!({ OBTAINED_AT: now - 301, "expires_in": 300 })));
        assert!(expired(&json!({ OBTAINED_AT: now - 298, "expires_in": 300 })), "within the margin");
        assert!(!expired(&json!({ OBTAINED_AT: now, "expires_in": 3 })), "a short-lived token is not expired at once");
    }
}

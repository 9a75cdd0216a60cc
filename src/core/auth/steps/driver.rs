//! `auth()`: the steps composed over a provider, as the MCP SDK's driver does — discovery
//! (or the provider's saved discovery), the resource indicator, the client identity
//! (stored, a Client ID Metadata Document URL, or dynamic registration), then one of: the
//! code exchange (callback leg), a non-interactive grant (`prepareTokenRequest`, or no
//! redirect URL), a refresh, or a new authorization (the provider's redirect).

use async_trait::async_trait;
use serde_json::{json, Value};

use super::discovery::{self, ServerInfo};
use super::register::register_once;
use super::token::{self, AuthorizationParams, ClientAuthentication, TokenCall, TokenRequest};
use super::{issuers_match, parse_url, provider_error, str_field, unless_other_issuer, StepError};
use crate::core::auth::provider::{AuthProvider, Provider, ProviderConfig};
use crate::core::net::NetClient;

#[derive(Debug, Clone, Default)]
pub struct AuthOptions {
    pub server_url: String,
    pub authorization_code: Option<String>,
    pub iss: Option<String>,
    pub scope: Option<String>,
    pub resource_metadata_url: Option<String>,
    pub skip_issuer_metadata_validation: bool,
    pub force_reauthorization: bool,
    /// The server refused a token: read its protected-resource metadata again before using a
    /// saved discovery (its authorization server may have moved, SEP-2352).
    pub rediscover: bool,
    /// The key that proves possession on token requests (RFC 9449), when the provider asks for DPoP.
    pub dpop: Option<std::sync::Arc<crate::core::auth::dpop::DpopKey>>,
    /// Renew tokens only (refresh, or the provider's grant): where a new authorization would
    /// start, return `Redirect` without sending the user anywhere.
    pub no_redirect: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthResult {
    Authorized,
    Redirect,
}

impl AuthResult {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthResult::Authorized => "AUTHORIZED",
            AuthResult::Redirect => "REDIRECT",
        }
    }
}

/// The provider's `addClientAuthentication` as the token step's hook.
pub struct ProviderClientAuth<'a>(pub &'a dyn AuthProvider);

#[async_trait]
impl ClientAuthentication for ProviderClientAuth<'_> {
    async fn apply(&self, request: TokenRequest, metadata: Option<&Value>) -> Result<TokenRequest, StepError> {
        let (headers, params) = Provider(self.0)
            .add_client_authentication(&request.headers, &request.params, request.url.as_str(), metadata)
            .await
            .map_err(provider_error)?;
        Ok(TokenRequest { url: request.url, headers, params })
    }
}

/// Runs the flow; an `invalid_client`/`unauthorized_client` answer forgets the client and the
/// tokens and runs it once more, an `invalid_grant` forgets the tokens and runs it once more.
pub async fn auth(net: &NetClient, provider: &dyn AuthProvider, options: &AuthOptions) -> Result<AuthResult, StepError> {
    match auth_once(net, provider, options).await {
        Err(e) => {
            let p = Provider(provider);
            match e.oauth_code() {
                Some("invalid_client" | "unauthorized_client") => {
                    p.invalidate_credentials("client").await.map_err(provider_error)?;
                    p.invalidate_credentials("tokens").await.map_err(provider_error)?;
                }
                Some("invalid_grant") => p.invalidate_credentials("tokens").await.map_err(provider_error)?,
                _ => return Err(e),
            }
            auth_once(net, provider, options).await
        }
        ok => ok,
    }
}

/// Client metadata with the SDK's defaults: `grant_types` for interactive clients and an
/// `application_type` derived from the redirect URIs.
pub fn resolve_client_metadata(config: &ProviderConfig) -> Value {
    let mut metadata = match &config.client_metadata {
        Value::Object(m) => m.clone(),
        _ => Default::default(),
    };
    if metadata.get("grant_types").is_none_or(Value::is_null) && config.interactive() {
        metadata.insert("grant_types".into(), json!(["authorization_code", "refresh_token"]));
    }
    if metadata.get("application_type").is_none_or(Value::is_null) {
        let native = metadata.get("redirect_uris").and_then(Value::as_array).is_some_and(|uris| {
            uris.iter()
                .filter_map(Value::as_str)
                .filter_map(|u| url::Url::parse(u).ok())
                .any(|u| !matches!(u.scheme(), "http" | "https") || matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]" | "::1")))
        });
        metadata.insert("application_type".into(), json!(if native { "native" } else { "web" }));
    }
    Value::Object(metadata)
}

/// The scope to request: the caller's, else the resource's `scopes_supported`, else the
/// client's; plus `offline_access` when the server offers it and the client refreshes.
fn determine_scope(requested: Option<&str>, resource: Option<&Value>, as_metadata: Option<&Value>, client: &Value) -> Option<String> {
    let from_resource = resource
        .and_then(|r| r.get("scopes_supported"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty());
    let mut scope = requested
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or(from_resource)
        .or_else(|| str_field(client, "scope").filter(|s| !s.is_empty()).map(str::to_string))?;
    let offers_offline = as_metadata
        .and_then(|m| m.get("scopes_supported"))
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|v| v.as_str() == Some("offline_access")));
    let refreshes = client.get("grant_types").and_then(Value::as_array).is_some_and(|a| a.iter().any(|v| v.as_str() == Some("refresh_token")));
    if offers_offline && refreshes && !scope.split(' ').any(|s| s == "offline_access") {
        scope.push_str(" offline_access");
    }
    Some(scope)
}

/// RFC 8707: the MCP server URL without its fragment is allowed when it lies under the
/// resource the server declared (same origin, path prefix on segment boundaries).
pub fn resource_allowed(requested: &url::Url, configured: &url::Url) -> bool {
    if requested.origin() != configured.origin() || requested.path().len() < configured.path().len() {
        return false;
    }
    let with_slash = |p: &str| if p.ends_with('/') { p.to_string() } else { format!("{p}/") };
    with_slash(requested.path()).starts_with(&with_slash(configured.path()))
}

/// `selectResourceURL`: the provider's `validateResourceURL` decides when it has one;
/// otherwise the declared resource, checked against the server URL (none without metadata).
/// The indicator is the resource exactly as given (RFC 8707 and RFC 9728 compare it as a
/// string: `http://host:port` stays without the `/` a URL parser would add).
pub async fn select_resource_url(
    server_url: &url::Url,
    provider: &dyn AuthProvider,
    config: &ProviderConfig,
    resource_metadata: Option<&Value>,
) -> Result<Option<String>, StepError> {
    let mut default_resource = server_url.clone();
    default_resource.set_fragment(None);
    let declared = resource_metadata.and_then(|m| str_field(m, "resource"));
    if config.has("validateResourceURL") {
        let chosen = Provider(provider).validate_resource_url(default_resource.as_str(), declared).await.map_err(provider_error)?;
        return chosen.map(|u| parse_url(&u).map(|_| u)).transpose();
    }
    let Some(declared) = declared else { return Ok(None) };
    let configured = parse_url(declared)?;
    if !resource_allowed(&default_resource, &configured) {
        return Err(StepError::failed(format!("Protected resource {declared} does not match expected {default_resource} (or origin)")));
    }
    Ok(Some(declared.to_string()))
}

fn discovery_state(info: &ServerInfo, resource_metadata_url: Option<&str>) -> Value {
    let mut state = json!({ "authorizationServerUrl": info.authorization_server_url });
    if let Some(u) = resource_metadata_url {
        state["resourceMetadataUrl"] = json!(u);
    }
    if let Some(m) = &info.resource_metadata {
        state["resourceMetadata"] = m.clone();
    }
    if let Some(m) = &info.authorization_server_metadata {
        state["authorizationServerMetadata"] = m.clone();
    }
    state
}

async fn auth_once(net: &NetClient, provider: &dyn AuthProvider, options: &AuthOptions) -> Result<AuthResult, StepError> {
    let p = Provider(provider);
    let config = p.config().await.map_err(provider_error)?;
    let client_metadata = resolve_client_metadata(&config);
    let server_url = parse_url(&options.server_url)?;
    let mut cached = p.discovery_state().await.map_err(provider_error)?;
    let resource_metadata_url =
        options.resource_metadata_url.clone().or_else(|| cached.as_ref().and_then(|c| str_field(c, "resourceMetadataUrl")).map(str::to_string));
    let explicit_metadata_url = resource_metadata_url.as_deref().map(parse_url).transpose()?;
    if options.rediscover {
        cached = discovery::still_current(net, &server_url, explicit_metadata_url.clone(), cached).await;
    }

    let mut fresh_state = None;
    let info = match cached.as_ref().and_then(|c| str_field(c, "authorizationServerUrl").map(|u| (c, u.to_string()))) {
        Some((cached, authorization_server_url)) => {
            let cached_as = cached.get("authorizationServerMetadata").filter(|v| !v.is_null()).cloned();
            let cached_rs = cached.get("resourceMetadata").filter(|v| !v.is_null()).cloned();
            let authorization_server_metadata = match &cached_as {
                Some(m) => Some(m.clone()),
                None => {
                    discovery::authorization_server_metadata(net, &authorization_server_url, None, options.skip_issuer_metadata_validation).await?
                }
            };
            let resource_metadata = match &cached_rs {
                Some(m) => Some(m.clone()),
                None => match discovery::protected_resource_metadata(net, &server_url, explicit_metadata_url.clone(), None).await {
                    Ok(m) => Some(m),
                    Err(e @ StepError::InvalidUrl(_)) => return Err(e),
                    Err(_) => None,
                },
            };
            let info = ServerInfo { authorization_server_url, authorization_server_metadata, resource_metadata };
            if cached_as.is_none() || cached_rs.is_none() {
                p.save_discovery_state(discovery_state(&info, resource_metadata_url.as_deref())).await.map_err(provider_error)?;
            }
            info
        }
        None => {
            let info = discovery::server_info(net, &server_url, explicit_metadata_url.clone(), options.skip_issuer_metadata_validation).await?;
            fresh_state = Some(discovery_state(&info, resource_metadata_url.as_deref()));
            info
        }
    };
    let metadata = info.authorization_server_metadata.as_ref();
    let authorization_server = parse_url(&info.authorization_server_url)?;
    let issuer = metadata.and_then(|m| str_field(m, "issuer")).map(str::to_string).unwrap_or_else(|| info.authorization_server_url.clone());
    if config.has("saveAuthorizationServerUrl") {
        p.save_authorization_server_url(&issuer).await.map_err(provider_error)?;
    }

    if options.authorization_code.is_some() {
        // The code must go to the authorization server the user was sent to.
        let recorded = cached.as_ref().and_then(|c| {
            c.get("authorizationServerMetadata").and_then(|m| str_field(m, "issuer")).or_else(|| str_field(c, "authorizationServerUrl"))
        });
        match recorded {
            None if config.has("saveDiscoveryState") => {
                return Err(StepError::AuthorizationServerMismatch {
                    recorded:
                        "discoveryState was not available on the callback leg; ensure your provider persists discoveryState alongside codeVerifier"
                            .into(),
                    current: issuer,
                })
            }
            Some(recorded) if !issuers_match(recorded, &issuer) => {
                return Err(StepError::AuthorizationServerMismatch { recorded: recorded.to_string(), current: issuer })
            }
            _ => {}
        }
    }
    if let Some(state) = fresh_state {
        p.save_discovery_state(state).await.map_err(provider_error)?;
    }

    let resource = select_resource_url(&server_url, provider, &config, info.resource_metadata.as_ref()).await?;
    if let Some(resource) = &resource {
        if config.has("saveResourceUrl") {
            p.save_resource_url(resource).await.map_err(provider_error)?;
        }
    }
    let scope = determine_scope(options.scope.as_deref(), info.resource_metadata.as_ref(), metadata, &config.client_metadata);

    let client = client_identity(net, &p, &config, &client_metadata, &authorization_server, metadata, &issuer, scope.as_deref(), options).await?;

    let custom_auth = ProviderClientAuth(provider);
    let call = TokenCall {
        net,
        authorization_server: &authorization_server,
        metadata,
        client_information: Some(&client),
        resource: resource.as_deref(),
        client_auth: config.has("addClientAuthentication").then_some(&custom_auth as &dyn ClientAuthentication),
        dpop: options.dpop.as_deref(),
    };

    if options.authorization_code.is_some() || !config.interactive() {
        let tokens = fetch_token(&call, &p, &config, options, scope.as_deref()).await?;
        save_tokens(&p, tokens, &issuer, call.dpop).await?;
        return Ok(AuthResult::Authorized);
    }

    let tokens = unless_other_issuer(p.tokens().await.map_err(provider_error)?, &issuer);
    if let Some(refresh_token) = tokens.as_ref().and_then(|t| str_field(t, "refresh_token")).filter(|_| !options.force_reauthorization) {
        match token::refresh_authorization(&call, refresh_token).await {
            Ok(fresh) => {
                save_tokens(&p, fresh, &issuer, call.dpop).await?;
                return Ok(AuthResult::Authorized);
            }
            Err(e @ StepError::InsecureTokenEndpoint(_)) => return Err(e),
            // A refused refresh falls through to a new authorization; only OAuth errors
            // other than `server_error` are final.
            Err(e @ StepError::OAuth { .. }) if e.oauth_code() != Some("server_error") => return Err(e),
            Err(e) => tracing::debug!("OAuth refresh failed, authorizing again: {e}"),
        }
    }

    if options.no_redirect {
        return Ok(AuthResult::Redirect);
    }
    let state = if config.has("state") { p.state().await.map_err(provider_error)? } else { None };
    let client_id = str_field(&client, "client_id").unwrap_or_default();
    let authorization = token::start_authorization(
        &authorization_server,
        &AuthorizationParams {
            metadata,
            client_id,
            redirect_url: &config.redirect_url,
            scope: scope.as_deref(),
            state: state.as_deref(),
            resource: resource.as_deref(),
        },
    )?;
    p.save_code_verifier(&authorization.code_verifier).await.map_err(provider_error)?;
    p.redirect_to_authorization(authorization.url.as_str()).await.map_err(provider_error)?;
    Ok(AuthResult::Redirect)
}

/// The stored client (stamped with the issuer), a Client ID Metadata Document URL, or a newly
/// registered client.
#[allow(clippy::too_many_arguments)]
async fn client_identity(
    net: &NetClient,
    p: &Provider<'_>,
    config: &ProviderConfig,
    client_metadata: &Value,
    authorization_server: &url::Url,
    metadata: Option<&Value>,
    issuer: &str,
    scope: Option<&str>,
    options: &AuthOptions,
) -> Result<Value, StepError> {
    let stored = unless_other_issuer(p.client_information().await.map_err(provider_error)?, issuer);
    if let Some(mut client) = stored {
        if str_field(&client, "issuer").is_none() {
            if let Some(obj) = client.as_object_mut() {
                obj.insert("issuer".into(), json!(issuer));
            }
            p.save_client_information(client.clone()).await.map_err(provider_error)?;
        }
        return Ok(client);
    }
    if options.authorization_code.is_some() {
        return Err(StepError::failed("Existing OAuth client information is required when exchanging an authorization code"));
    }
    let cimd_supported = metadata.and_then(|m| m.get("client_id_metadata_document_supported")) == Some(&Value::Bool(true));
    if let Some(url) = &config.client_metadata_url {
        let valid = url::Url::parse(url).is_ok_and(|u| u.scheme() == "https" && u.path() != "/");
        if !valid {
            return Err(StepError::OAuth {
                code: "invalid_client_metadata".into(),
                description: format!("clientMetadataUrl must be a valid HTTPS URL with a non-root pathname, got: {url}"),
                uri: None,
            });
        }
        if cimd_supported {
            let client = json!({ "client_id": url, "issuer": issuer });
            p.save_client_information(client.clone()).await.map_err(provider_error)?;
            return Ok(client);
        }
    }
    register_once(net, p, config, client_metadata, authorization_server, metadata, issuer, scope).await
}

/// The token request of the callback leg or of a non-interactive grant: the provider's
/// `prepareTokenRequest` parameters, else the authorization code grant.
async fn fetch_token(
    call: &TokenCall<'_>,
    p: &Provider<'_>,
    config: &ProviderConfig,
    options: &AuthOptions,
    scope: Option<&str>,
) -> Result<Value, StepError> {
    if options.authorization_code.is_some() {
        token::validate_authorization_response_issuer(options.iss.as_deref(), call.metadata)?;
    }
    let scope = scope.map(str::to_string).or_else(|| str_field(&config.client_metadata, "scope").map(str::to_string));
    let mut params = None;
    if config.has("prepareTokenRequest") {
        params = p.prepare_token_request(scope.as_deref()).await.map_err(provider_error)?;
    }
    let params = match params {
        Some(params) => params,
        None => {
            let code = options
                .authorization_code
                .as_deref()
                .ok_or_else(|| StepError::failed("Either provider.prepareTokenRequest() or authorizationCode is required"))?;
            if !config.interactive() {
                return Err(StepError::failed("redirectUrl is required for authorization_code flow"));
            }
            let verifier = p.code_verifier().await.map_err(provider_error)?;
            token::authorization_code_params(code, &verifier, &config.redirect_url)
        }
    };
    token::execute(call, params).await
}

/// Stores tokens stamped with their issuer and arrival, and a DPoP-bound token with its key.
async fn save_tokens(p: &Provider<'_>, mut tokens: Value, issuer: &str, dpop: Option<&crate::core::auth::dpop::DpopKey>) -> Result<(), StepError> {
    let key = dpop.filter(|_| crate::core::auth::dpop::bound(&tokens)).map(|k| k.stored());
    if let Some(obj) = tokens.as_object_mut() {
        if let Some(key) = key {
            obj.insert(crate::core::auth::dpop::STORED_KEY.into(), json!(key));
        }
        obj.insert("issuer".into(), json!(issuer));
        // When they arrived, so that expiry can be checked later (see `store.rs`).
        obj.entry(crate::core::auth::store::OBTAINED_AT).or_insert(json!(crate::core::auth::store::now_secs_precise()));
    }
    p.save_tokens(tokens).await.map_err(provider_error)
}

#[cfg(test)]
mod tests {
    use super::super::register::with_supported_auth_method;
    use super::*;

    #[test]
    fn resources_match_on_origin_and_path_segments() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        assert!(resource_allowed(&u("https://a/mcp"), &u("https://a/")));
        assert!(resource_allowed(&u("https://a/mcp/x"), &u("https://a/mcp")));
        assert!(!resource_allowed(&u("https://a/mcpx"), &u("https://a/mcp")));
        assert!(!resource_allowed(&u("https://b/mcp"), &u("https://a/mcp")));
    }

    #[test]
    fn registration_asks_for_an_auth_method_the_server_supports() {
        let none = json!({ "token_endpoint_auth_method": "none" });
        let method = |client: &Value, supported: Value| {
            with_supported_auth_method(client, Some(&json!({ "token_endpoint_auth_methods_supported": supported })))["token_endpoint_auth_method"]
                .clone()
        };
        assert_eq!(method(&none, json!(["none", "client_secret_basic"])), json!("none"));
        assert_eq!(method(&none, json!(["client_secret_post", "client_secret_basic"])), json!("client_secret_basic"));
        assert_eq!(method(&none, json!(["client_secret_post"])), json!("client_secret_post"));
        assert_eq!(method(&json!({}), json!(["none"])), json!("none"));
        assert_eq!(with_supported_auth_method(&none, None), none, "nothing listed: unchanged");
    }

    #[test]
    fn scope_prefers_request_then_resource_then_client_and_adds_offline_access() {
        let client = json!({ "scope": "c", "grant_types": ["authorization_code", "refresh_token"] });
        let rs = json!({ "scopes_supported": ["r1", "r2"] });
        let as_meta = json!({ "scopes_supported": ["offline_access"] });
        assert_eq!(determine_scope(Some("x"), Some(&rs), None, &client).as_deref(), Some("x"));
        assert_eq!(determine_scope(None, Some(&rs), None, &client).as_deref(), Some("r1 r2"));
        assert_eq!(determine_scope(None, None, Some(&as_meta), &client).as_deref(), Some("c offline_access"));
        assert_eq!(determine_scope(None, None, None, &json!({})), None);
    }
}

//! The authorization request (PKCE S256) and the token endpoint: code exchange, refresh and
//! any grant a provider prepares, with client authentication chosen from what the server
//! supports (or done by the provider's `addClientAuthentication`).

use async_trait::async_trait;
use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::http;
use super::{join_url, parse_url, StepError};
use crate::core::net::{HttpRequest, NetClient};

/// A token request about to be sent; `addClientAuthentication` may change headers and params.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRequest {
    pub url: url::Url,
    pub headers: Vec<(String, String)>,
    pub params: Vec<(String, String)>,
}

impl TokenRequest {
    pub fn set_param(&mut self, key: &str, value: impl Into<String>) {
        let value = value.into();
        match self.params.iter().position(|(k, _)| k == key) {
            Some(i) => {
                self.params[i].1 = value;
                let mut n = 0;
                self.params.retain(|(k, _)| {
                    k != key || {
                        n += 1;
                        n == 1
                    }
                });
            }
            None => self.params.push((key.to_string(), value)),
        }
    }

    pub fn set_header(&mut self, key: &str, value: impl Into<String>) {
        self.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
        self.headers.push((key.to_string(), value.into()));
    }
}

/// The provider's `addClientAuthentication(headers, params, url, metadata)`.
#[async_trait]
pub trait ClientAuthentication: Send + Sync {
    async fn apply(&self, request: TokenRequest, metadata: Option<&Value>) -> Result<TokenRequest, StepError>;
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `client_secret_basic` > `client_secret_post` > `none`, honouring a registered
/// `token_endpoint_auth_method` the server supports.
pub fn select_client_auth_method(client: &Value, supported: &[String]) -> &'static str {
    let has_secret = client.get("client_secret").is_some_and(|s| !s.is_null());
    let known = ["client_secret_basic", "client_secret_post", "none"];
    if let Some(m) = str_field(client, "token_endpoint_auth_method") {
        if let Some(known) = known.iter().find(|k| **k == m) {
            if supported.is_empty() || supported.iter().any(|s| s == m) {
                return known;
            }
        }
    }
    let offers = |m: &str| supported.iter().any(|s| s == m);
    if supported.is_empty() {
        return if has_secret { "client_secret_basic" } else { "none" };
    }
    if has_secret && offers("client_secret_basic") {
        return "client_secret_basic";
    }
    if has_secret && offers("client_secret_post") {
        return "client_secret_post";
    }
    if offers("none") {
        return "none";
    }
    if has_secret {
        "client_secret_post"
    } else {
        "none"
    }
}

fn apply_client_authentication(method: &str, client: &Value, request: &mut TokenRequest) -> Result<(), StepError> {
    let client_id = str_field(client, "client_id").unwrap_or_default().to_string();
    let secret = str_field(client, "client_secret").map(str::to_string);
    match method {
        "client_secret_basic" => {
            let secret = secret.ok_or_else(|| StepError::failed("client_secret_basic authentication requires a client_secret"))?;
            let credentials = base64::engine::general_purpose::STANDARD.encode(format!("{client_id}:{secret}"));
            request.set_header("Authorization", format!("Basic {credentials}"));
        }
        "client_secret_post" => {
            request.set_param("client_id", client_id);
            if let Some(secret) = secret.filter(|s| !s.is_empty()) {
                request.set_param("client_secret", secret);
            }
        }
        _ => request.set_param("client_id", client_id),
    }
    Ok(())
}

fn supported_auth_methods(metadata: Option<&Value>) -> Vec<String> {
    metadata
        .and_then(|m| m.get("token_endpoint_auth_methods_supported"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Loopback hosts are exempt from the TLS requirement (RFC 8252 §7.3).
fn is_loopback_host(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.octets() == [127, 0, 0, 1],
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The token endpoint: from metadata, else `/token` on the authorization server; TLS required.
pub fn token_endpoint(authorization_server: &url::Url, metadata: Option<&Value>) -> Result<url::Url, StepError> {
    let url = match metadata.and_then(|m| str_field(m, "token_endpoint")) {
        Some(endpoint) => parse_url(endpoint)?,
        None => join_url(authorization_server, "/token")?,
    };
    if url.scheme() != "https" && !is_loopback_host(&url) {
        return Err(StepError::InsecureTokenEndpoint(url.to_string()));
    }
    Ok(url)
}

/// Everything a token request needs besides its grant parameters.
pub struct TokenCall<'a> {
    pub net: &'a NetClient,
    pub authorization_server: &'a url::Url,
    pub metadata: Option<&'a Value>,
    pub client_information: Option<&'a Value>,
    pub resource: Option<&'a str>,
    pub client_auth: Option<&'a dyn ClientAuthentication>,
    /// Prove possession of this key on the token request (RFC 9449 §5).
    pub dpop: Option<&'a crate::core::auth::dpop::DpopKey>,
}

/// Sends a token request with grant `params` and returns the token response.
pub async fn execute(call: &TokenCall<'_>, params: Vec<(String, String)>) -> Result<Value, StepError> {
    let url = token_endpoint(call.authorization_server, call.metadata)?;
    let mut request = TokenRequest {
        url,
        headers: vec![("Content-Type".into(), "application/x-www-form-urlencoded".into()), ("Accept".into(), "application/json".into())],
        params,
    };
    if let Some(resource) = call.resource {
        request.set_param("resource", resource);
    }
    if let Some(hook) = call.client_auth {
        request = hook.apply(request, call.metadata).await?;
    } else if let Some(client) = call.client_information {
        let method = select_client_auth_method(client, &supported_auth_methods(call.metadata));
        apply_client_authentication(method, client, &mut request)?;
    }
    let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(request.params.iter()).finish();
    let mut http_request = HttpRequest::new("POST", request.url.clone());
    for (k, v) in &request.headers {
        http_request.set_header(k, v.clone());
    }
    http_request.body = Some(body.into_bytes().into());
    let reply = send_proving(call, http_request).await?;
    if !reply.ok() {
        return Err(parse_error_response(Some(reply.status), &reply.text()));
    }
    let tokens = reply.json().map_err(StepError::Failed)?;
    if str_field(&tokens, "access_token").is_some() && str_field(&tokens, "token_type").is_some() {
        // Asked for a DPoP-bound token of a server that does DPoP, a bearer token is a downgrade.
        let does_dpop = call.metadata.is_some_and(|m| m.get("dpop_signing_alg_values_supported").is_some());
        if call.dpop.is_some() && does_dpop && !crate::core::auth::dpop::bound(&tokens) {
            return Err(StepError::failed("The authorization server issued a bearer token where a DPoP-bound one was asked for"));
        }
        return Ok(tokens);
    }
    if tokens.get("error").is_some() {
        return Err(parse_error_response(None, &tokens.to_string()));
    }
    Err(StepError::failed(format!("Invalid token response (access_token and token_type are required): {tokens}")))
}

/// Sends a token request, with a DPoP proof when the call has a key; an authorization server
/// that answers `use_dpop_nonce` with a nonce gets the request once more, its proof carrying
/// the nonce (RFC 9449 §8).
async fn send_proving(call: &TokenCall<'_>, request: HttpRequest) -> Result<http::Reply, StepError> {
    use crate::core::auth::dpop::USE_NONCE;
    let Some(key) = call.dpop else { return Ok(http::send(call.net, request).await?) };
    let proven = |nonce: Option<&str>| -> Result<HttpRequest, StepError> {
        let proof = key.proof("POST", &request.url, None, nonce).map_err(StepError::Failed)?;
        Ok(request.clone().header("DPoP", proof))
    };
    let reply = http::send(call.net, proven(None)?).await?;
    let asks_nonce = reply.status == 400 && reply.json().ok().is_some_and(|v| str_field(&v, "error") == Some(USE_NONCE));
    match (asks_nonce, reply.dpop_nonce.clone()) {
        (true, Some(nonce)) => Ok(http::send(call.net, proven(Some(&nonce))?).await?),
        _ => Ok(reply),
    }
}

/// An OAuth error response (RFC 6749 §5.2) as an `OAuth` error; anything else becomes a
/// `server_error` carrying the status and the raw body.
pub fn parse_error_response(status: Option<u16>, body: &str) -> StepError {
    let parsed = serde_json::from_str::<Value>(body).map_err(|e| e.to_string()).and_then(|v| {
        let code = str_field(&v, "error").ok_or_else(|| "the `error` field is missing or not a string".to_string())?.to_string();
        let opt = |k: &str| match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("the `{k}` field is not a string")),
        };
        Ok((code, opt("error_description")?, opt("error_uri")?))
    });
    match parsed {
        Ok((code, description, uri)) => StepError::OAuth { description: description.unwrap_or_else(|| code.clone()), code, uri },
        Err(e) => {
            let prefix = status.map(|s| format!("HTTP {s}: ")).unwrap_or_default();
            StepError::OAuth {
                code: "server_error".into(),
                description: format!("{prefix}Invalid OAuth error response: {e}. Raw body: {body}"),
                uri: None,
            }
        }
    }
}

/// RFC 9207 §2.4: the callback's `iss` must equal the metadata's issuer (and is required when
/// the server advertises it). No metadata issuer: nothing to compare with.
pub fn validate_authorization_response_issuer(iss: Option<&str>, metadata: Option<&Value>) -> Result<(), StepError> {
    let Some(expected) = metadata.and_then(|m| str_field(m, "issuer")) else { return Ok(()) };
    let advertised = metadata.and_then(|m| m.get("authorization_response_iss_parameter_supported")) == Some(&Value::Bool(true));
    match iss {
        None if advertised => Err(StepError::IssuerMismatch { kind: "authorization_response", expected: expected.into(), received: None }),
        None => Ok(()),
        Some(iss) if iss != expected => {
            Err(StepError::IssuerMismatch { kind: "authorization_response", expected: expected.into(), received: Some(iss.into()) })
        }
        Some(_) => Ok(()),
    }
}

/// The authorization code grant's parameters.
pub fn authorization_code_params(code: &str, verifier: &str, redirect_uri: &str) -> Vec<(String, String)> {
    vec![
        ("grant_type".into(), "authorization_code".into()),
        ("code".into(), code.into()),
        ("code_verifier".into(), verifier.into()),
        ("redirect_uri".into(), redirect_uri.into()),
    ]
}

pub async fn exchange_authorization(
    call: &TokenCall<'_>,
    code: &str,
    iss: Option<&str>,
    verifier: &str,
    redirect_uri: &str,
) -> Result<Value, StepError> {
    validate_authorization_response_issuer(iss, call.metadata)?;
    execute(call, authorization_code_params(code, verifier, redirect_uri)).await
}

/// A refresh; the old refresh token is kept when the server does not rotate it.
pub async fn refresh_authorization(call: &TokenCall<'_>, refresh_token: &str) -> Result<Value, StepError> {
    let params = vec![("grant_type".into(), "refresh_token".into()), ("refresh_token".into(), refresh_token.into())];
    let tokens = execute(call, params).await?;
    let mut merged = Map::new();
    merged.insert("refresh_token".into(), json!(refresh_token));
    if let Value::Object(fresh) = tokens {
        merged.extend(fresh);
    }
    Ok(Value::Object(merged))
}

/// An authorization URL with a fresh PKCE S256 challenge, and its verifier.
pub struct Authorization {
    pub url: url::Url,
    pub code_verifier: String,
}

pub struct AuthorizationParams<'a> {
    pub metadata: Option<&'a Value>,
    pub client_id: &'a str,
    pub redirect_url: &'a str,
    pub scope: Option<&'a str>,
    pub state: Option<&'a str>,
    pub resource: Option<&'a str>,
}

pub fn start_authorization(authorization_server: &url::Url, p: &AuthorizationParams<'_>) -> Result<Authorization, StepError> {
    let mut url = match p.metadata {
        Some(metadata) => {
            let endpoint = str_field(metadata, "authorization_endpoint")
                .ok_or_else(|| StepError::failed("Incompatible auth server: metadata has no authorization_endpoint"))?;
            let url = parse_url(endpoint)?;
            let listed = |key: &str, want: &str| metadata.get(key).and_then(Value::as_array).map(|a| a.iter().any(|v| v.as_str() == Some(want)));
            if listed("response_types_supported", "code") != Some(true) {
                return Err(StepError::failed("Incompatible auth server: does not support response type code"));
            }
            if listed("code_challenge_methods_supported", "S256") == Some(false) {
                return Err(StepError::failed("Incompatible auth server: does not support code challenge method S256"));
            }
            url
        }
        None => join_url(authorization_server, "/authorize")?,
    };
    let (challenge, verifier) = oauth2::PkceCodeChallenge::new_random_sha256();
    let mut pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let mut set = |k: &str, v: &str| {
        pairs.retain(|(key, _)| key != k);
        pairs.push((k.to_string(), v.to_string()));
    };
    set("response_type", "code");
    set("client_id", p.client_id);
    set("code_challenge", challenge.as_str());
    set("code_challenge_method", "S256");
    set("redirect_uri", p.redirect_url);
    if let Some(state) = p.state.filter(|s| !s.is_empty()) {
        set("state", state);
    }
    if let Some(scope) = p.scope.filter(|s| !s.is_empty()) {
        set("scope", scope);
    }
    if p.scope.is_some_and(|s| s.split(' ').any(|x| x == "offline_access")) {
        pairs.push(("prompt".into(), "consent".into()));
    }
    if let Some(resource) = p.resource {
        pairs.retain(|(key, _)| key != "resource");
        pairs.push(("resource".into(), resource.to_string()));
    }
    url.query_pairs_mut().clear().extend_pairs(pairs.iter());
    Ok(Authorization { url, code_verifier: verifier.secret().to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_auth_method_prefers_basic_then_post_then_none() {
        let secret = json!({ "client_id": "c", "client_secret": "s" });
        let public = json!({ "client_id": "c" });
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(select_client_auth_method(&secret, &[]), "client_secret_basic");
        assert_eq!(select_client_auth_method(&public, &[]), "none");
        assert_eq!(select_client_auth_method(&secret, &s(&["client_secret_post", "none"])), "client_secret_post");
        assert_eq!(select_client_auth_method(&public, &s(&["client_secret_basic"])), "none");
        let registered = json!({ "client_id": "c", "client_secret": "s", "token_endpoint_auth_method": "client_secret_post" });
        assert_eq!(select_client_auth_method(&registered, &s(&["client_secret_basic", "client_secret_post"])), "client_secret_post");
    }

    #[test]
    fn error_responses_parse_or_fall_back_to_server_error() {
        match parse_error_response(Some(400), r#"{"error":"invalid_grant","error_description":"bad code"}"#) {
            StepError::OAuth { code, description, .. } => assert_eq!((code.as_str(), description.as_str()), ("invalid_grant", "bad code")),
            e => panic!("{e:?}"),
        }
        match parse_error_response(Some(500), "oops") {
            StepError::OAuth { code, description, .. } => {
                assert_eq!(code, "server_error");
                assert!(description.starts_with("HTTP 500: Invalid OAuth error response"), "{description}");
                assert!(description.ends_with("Raw body: oops"));
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn authorization_urls_carry_pkce_state_scope_and_resource() {
        let metadata = json!({ "authorization_endpoint": "https://as/auth", "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"] });
        let resource = "https://rs/mcp";
        let a = start_authorization(
            &url::Url::parse("https://as/").unwrap(),
            &AuthorizationParams {
                metadata: Some(&metadata),
                client_id: "c",
                redirect_url: "http://127.0.0.1/cb",
                scope: Some("a offline_access"),
                state: Some("st"),
                resource: Some(resource),
            },
        )
        .unwrap();
        let q: std::collections::HashMap<_, _> = a.url.query_pairs().into_owned().collect();
        assert_eq!(q["client_id"], "c");
        assert_eq!(q["state"], "st");
        assert_eq!(q["prompt"], "consent");
        assert_eq!(q["resource"], "https://rs/mcp");
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(a.code_verifier.len(), 43);
        let bad = json!({ "authorization_endpoint": "https://as/auth", "response_types_supported": ["token"] });
        let p = AuthorizationParams { metadata: Some(&bad), client_id: "c", redirect_url: "x", scope: None, state: None, resource: None };
        assert!(start_authorization(&url::Url::parse("https://as/").unwrap(), &p).is_err());
    }

    #[test]
    fn insecure_token_endpoints_are_refused() {
        let as_url = url::Url::parse("http://as.example/").unwrap();
        assert!(matches!(token_endpoint(&as_url, None), Err(StepError::InsecureTokenEndpoint(_))));
        assert!(token_endpoint(&url::Url::parse("http://127.0.0.1:9/").unwrap(), None).is_ok());
    }
}

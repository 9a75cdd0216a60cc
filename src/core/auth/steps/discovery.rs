//! Discovery: protected-resource metadata (RFC 9728) and authorization-server metadata
//! (RFC 8414, OpenID Connect Discovery, and the legacy RFC 8414-only lookup).

use serde_json::Value;

use super::http::{self, Reply};
use super::{StepError, DEFAULT_PROTOCOL_VERSION};
use crate::core::net::NetClient;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryKind {
    OAuth,
    Oidc,
}

impl DiscoveryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiscoveryKind::OAuth => "oauth",
            DiscoveryKind::Oidc => "oidc",
        }
    }
}

/// `url` with its path replaced (query and fragment dropped): `new URL(path, url.origin)`.
fn at_path(url: &url::Url, path: &str) -> url::Url {
    let mut u = url.clone();
    u.set_path(path);
    u.set_query(None);
    u.set_fragment(None);
    u
}

/// The metadata URLs to try for an authorization server, in priority order: RFC 8414 then
/// OIDC at the root for a bare origin; for an issuer with a path, the path-inserted RFC 8414
/// and OIDC forms, then OIDC appended to the path.
pub fn build_discovery_urls(authorization_server: &url::Url) -> Vec<(url::Url, DiscoveryKind)> {
    let path = authorization_server.path();
    if path == "/" || path.is_empty() {
        return vec![
            (at_path(authorization_server, "/.well-known/oauth-authorization-server"), DiscoveryKind::OAuth),
            (at_path(authorization_server, "/.well-known/openid-configuration"), DiscoveryKind::Oidc),
        ];
    }
    let path = path.strip_suffix('/').unwrap_or(path);
    vec![
        (at_path(authorization_server, &format!("/.well-known/oauth-authorization-server{path}")), DiscoveryKind::OAuth),
        (at_path(authorization_server, &format!("/.well-known/openid-configuration{path}")), DiscoveryKind::Oidc),
        (at_path(authorization_server, &format!("{path}/.well-known/openid-configuration")), DiscoveryKind::Oidc),
    ]
}

/// `/.well-known/<kind>` with the resource's path appended (RFC 8414 §3.1 / RFC 9728 §3.1).
fn well_known_url(base: &url::Url, kind: &str) -> url::Url {
    let path = base.path();
    let path = path.strip_suffix('/').unwrap_or(path);
    let mut u = at_path(base, &format!("/.well-known/{kind}{path}"));
    u.set_query(base.query());
    u
}

/// Whether a miss at the path-aware URL should be retried at the root.
fn should_fall_back(reply: &Reply, path: &str) -> bool {
    path != "/" && ((400..500).contains(&reply.status) || reply.status == 502)
}

async fn get_with_fallback(
    net: &NetClient,
    resource: &url::Url,
    kind: &str,
    explicit: Option<url::Url>,
    protocol_version: &str,
) -> Result<Reply, StepError> {
    let headers = [("MCP-Protocol-Version", protocol_version)];
    let explicit_given = explicit.is_some();
    let url = explicit.unwrap_or_else(|| well_known_url(resource, kind));
    let reply = http::get(net, url, &headers).await?;
    if !explicit_given && should_fall_back(&reply, resource.path()) {
        return Ok(http::get(net, at_path(resource, &format!("/.well-known/{kind}")), &headers).await?);
    }
    Ok(reply)
}

fn require_fields(doc: &Value, what: &str, fields: &[&str]) -> Result<(), StepError> {
    if !doc.is_object() {
        return Err(StepError::failed(format!("Invalid {what}: expected a JSON object")));
    }
    let missing: Vec<&str> = fields.iter().copied().filter(|f| doc.get(*f).is_none_or(Value::is_null)).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(StepError::failed(format!("Invalid {what}: missing {}", missing.join(", "))))
    }
}

fn json_of(reply: &Reply, what: &str) -> Result<Value, StepError> {
    reply.json().map_err(|e| StepError::failed(format!("Invalid {what}: {e}")))
}

/// RFC 9728 protected-resource metadata of an MCP server (or at `resource_metadata_url`).
pub async fn protected_resource_metadata(
    net: &NetClient,
    server_url: &url::Url,
    resource_metadata_url: Option<url::Url>,
    protocol_version: Option<&str>,
) -> Result<Value, StepError> {
    let version = protocol_version.unwrap_or(DEFAULT_PROTOCOL_VERSION);
    let reply = get_with_fallback(net, server_url, "oauth-protected-resource", resource_metadata_url, version).await?;
    if reply.status == 404 {
        return Err(StepError::failed("Resource server does not implement OAuth 2.0 Protected Resource Metadata."));
    }
    if !reply.ok() {
        return Err(StepError::failed(format!("HTTP {} trying to load well-known OAuth protected resource metadata.", reply.status)));
    }
    let doc = json_of(&reply, "protected resource metadata")?;
    require_fields(&doc, "protected resource metadata", &["resource"])?;
    Ok(doc)
}

const OAUTH_METADATA_FIELDS: &[&str] = &["issuer", "authorization_endpoint", "token_endpoint", "response_types_supported"];

/// The legacy RFC 8414 lookup (`discoverOAuthMetadata`): `None` on 404.
pub async fn oauth_metadata(net: &NetClient, authorization_server: &url::Url, protocol_version: Option<&str>) -> Result<Option<Value>, StepError> {
    let version = protocol_version.unwrap_or(DEFAULT_PROTOCOL_VERSION);
    let reply = get_with_fallback(net, authorization_server, "oauth-authorization-server", None, version).await?;
    if reply.status == 404 {
        return Ok(None);
    }
    if !reply.ok() {
        return Err(StepError::failed(format!("HTTP {} trying to load well-known OAuth metadata", reply.status)));
    }
    let doc = json_of(&reply, "OAuth metadata")?;
    require_fields(&doc, "OAuth metadata", OAUTH_METADATA_FIELDS)?;
    Ok(Some(doc))
}

/// Authorization-server metadata by RFC 8414 then OIDC Discovery; `None` when no candidate
/// answers. `expected_issuer` is the URL as the caller wrote it (RFC 8414 §3.3 echo check,
/// a trailing slash tolerated), unless `skip_issuer_validation`.
pub async fn authorization_server_metadata(
    net: &NetClient,
    expected_issuer: &str,
    protocol_version: Option<&str>,
    skip_issuer_validation: bool,
) -> Result<Option<Value>, StepError> {
    let authorization_server = super::parse_url(expected_issuer)?;
    let version = protocol_version.unwrap_or(DEFAULT_PROTOCOL_VERSION);
    let headers = [("MCP-Protocol-Version", version), ("Accept", "application/json")];
    for (url, kind) in build_discovery_urls(&authorization_server) {
        let reply = http::get(net, url.clone(), &headers).await?;
        if !reply.ok() {
            if (400..500).contains(&reply.status) || reply.status == 502 {
                continue;
            }
            let what = if kind == DiscoveryKind::OAuth { "OAuth" } else { "OpenID provider" };
            return Err(StepError::failed(format!("HTTP {} trying to load {what} metadata from {url}", reply.status)));
        }
        let what = if kind == DiscoveryKind::OAuth { "OAuth metadata" } else { "OpenID provider metadata" };
        let doc = json_of(&reply, what)?;
        require_fields(&doc, what, OAUTH_METADATA_FIELDS)?;
        if !skip_issuer_validation {
            let issuer = doc.get("issuer").and_then(Value::as_str).unwrap_or_default();
            let trimmed = expected_issuer.strip_suffix('/');
            if issuer != expected_issuer && trimmed != Some(issuer) {
                return Err(StepError::IssuerMismatch {
                    kind: "metadata",
                    expected: expected_issuer.to_string(),
                    received: Some(issuer.to_string()),
                });
            }
        }
        return Ok(Some(doc));
    }
    Ok(None)
}

/// What `auth()` learns before it can authorize: the authorization server (from RFC 9728, or
/// the MCP server's origin), its metadata, and the resource metadata.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub authorization_server_url: String,
    pub authorization_server_metadata: Option<Value>,
    pub resource_metadata: Option<Value>,
}

pub async fn server_info(
    net: &NetClient,
    server_url: &url::Url,
    resource_metadata_url: Option<url::Url>,
    skip_issuer_validation: bool,
) -> Result<ServerInfo, StepError> {
    let resource_metadata = match protected_resource_metadata(net, server_url, resource_metadata_url, None).await {
        Ok(doc) => Some(doc),
        // A failed request (not a missing document) is not a reason to fall back.
        Err(e @ (StepError::Net(_) | StepError::InvalidUrl(_))) => return Err(e),
        Err(e) => {
            tracing::debug!("no protected resource metadata for {server_url}: {e}");
            None
        }
    };
    let from_metadata = resource_metadata.as_ref().and_then(first_authorization_server);
    let authorization_server_url = from_metadata.unwrap_or_else(|| at_path(server_url, "/").to_string());
    let authorization_server_metadata = authorization_server_metadata(net, &authorization_server_url, None, skip_issuer_validation).await?;
    Ok(ServerInfo { authorization_server_url, authorization_server_metadata, resource_metadata })
}

/// The authorization server protected-resource metadata names first.
fn first_authorization_server(resource_metadata: &Value) -> Option<String> {
    resource_metadata.get("authorization_servers")?.as_array()?.first()?.as_str().map(str::to_string)
}

/// A saved discovery state checked against the protected-resource metadata as it is now (read
/// again after the server refused a token, SEP-2352): `None` when the metadata names another
/// authorization server than the state (discovery then runs afresh, and a client registered
/// or tokens issued there are not offered to the new one); the state with the fresh metadata
/// when it names the same; the state as it was when the metadata cannot be read.
pub async fn still_current(net: &NetClient, server_url: &url::Url, resource_metadata_url: Option<url::Url>, state: Option<Value>) -> Option<Value> {
    let mut state = state?;
    let Some(known) = state.get("authorizationServerUrl").and_then(Value::as_str).map(str::to_string) else { return Some(state) };
    let fresh = match protected_resource_metadata(net, server_url, resource_metadata_url, None).await {
        Ok(doc) => doc,
        Err(e) => {
            tracing::debug!("protected resource metadata of {server_url} could not be read again: {e}");
            return Some(state);
        }
    };
    if first_authorization_server(&fresh).is_some_and(|now| now != known) {
        tracing::debug!("the protected resource of {server_url} moved from authorization server {known}: discovering it again");
        return None;
    }
    state["resourceMetadata"] = fresh;
    Some(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(u: &str) -> Vec<(String, &'static str)> {
        build_discovery_urls(&url::Url::parse(u).unwrap()).into_iter().map(|(u, k)| (u.to_string(), k.as_str())).collect()
    }

    #[test]
    fn discovery_urls_follow_rfc8414_and_oidc_order() {
        assert_eq!(
            urls("https://as.example/"),
            vec![
                ("https://as.example/.well-known/oauth-authorization-server".to_string(), "oauth"),
                ("https://as.example/.well-known/openid-configuration".to_string(), "oidc"),
            ]
        );
        assert_eq!(
            urls("https://as.example/tenant/"),
            vec![
                ("https://as.example/.well-known/oauth-authorization-server/tenant".to_string(), "oauth"),
                ("https://as.example/.well-known/openid-configuration/tenant".to_string(), "oidc"),
                ("https://as.example/tenant/.well-known/openid-configuration".to_string(), "oidc"),
            ]
        );
    }

    #[test]
    fn well_known_urls_insert_the_path_and_keep_the_query() {
        let u = url::Url::parse("http://h:1/mcp?x=1").unwrap();
        assert_eq!(well_known_url(&u, "oauth-protected-resource").as_str(), "http://h:1/.well-known/oauth-protected-resource/mcp?x=1");
    }
}

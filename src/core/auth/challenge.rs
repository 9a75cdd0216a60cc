//! `WWW-Authenticate` challenges (RFC 6750 §3, RFC 9728 §5.1): reading their parameters on
//! the client side and writing them on the server side, plus the `Authorization: Bearer`
//! header a protected server reads.

/// A `key="value"` (or bare `key=value`) parameter of a `WWW-Authenticate` challenge.
pub fn challenge_param(challenge: &str, key: &str) -> Option<String> {
    let needle = format!("{key}=");
    let mut rest = challenge;
    while let Some(i) = rest.find(&needle) {
        let boundary = i == 0 || matches!(rest.as_bytes()[i - 1], b' ' | b',');
        let value = &rest[i + needle.len()..];
        if boundary {
            return Some(match value.strip_prefix('"') {
                Some(quoted) => quoted.split('"').next().unwrap_or_default().to_string(),
                None => value.split([',', ' ']).next().unwrap_or_default().to_string(),
            });
        }
        rest = value;
    }
    None
}

/// Whether a 403's challenge asks for more scope (`insufficient_scope`), and the scope it names:
/// how the Streamable HTTP transport tells a scope refusal from another 403 (it is given this,
/// see `transport::streamable::ScopeRefusal`).
pub fn scope_refusal(challenge: &str) -> Option<Option<String>> {
    challenge.contains("insufficient_scope").then(|| challenge_param(challenge, "scope"))
}

/// Response headers a 401's challenge needs beside `WWW-Authenticate`: a resource server's
/// DPoP nonce (RFC 9449 §9), read as the challenge's `dpop-nonce` parameter.
pub const CHALLENGE_HEADERS: &[&str] = &[super::dpop::NONCE_HEADER];

/// Whether the header is a `Bearer` challenge with parameters (`Bearer` alone carries none).
fn is_bearer_with_params(header: &str) -> bool {
    let mut parts = header.split(' ');
    let scheme = parts.next().unwrap_or_default();
    scheme.eq_ignore_ascii_case("bearer") && parts.next().is_some_and(|p| !p.is_empty())
}

/// The `resource_metadata` URL of a Bearer challenge (the quoted form, as the MCP SDK's
/// `extractResourceMetadataUrl` reads it); `None` when absent or not a URL.
pub fn resource_metadata_url(header: &str) -> Option<url::Url> {
    if !is_bearer_with_params(header) {
        return None;
    }
    let start = header.find("resource_metadata=\"")? + "resource_metadata=\"".len();
    let value = header[start..].split('"').next()?;
    if value.is_empty() {
        return None;
    }
    url::Url::parse(value).ok()
}

/// Every parameter the client acts on, from a Bearer challenge.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ChallengeParams {
    pub resource_metadata_url: Option<url::Url>,
    pub scope: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

pub fn challenge_params(header: &str) -> ChallengeParams {
    if !is_bearer_with_params(header) {
        return ChallengeParams::default();
    }
    let param = |k: &str| challenge_param(header, k).filter(|v| !v.is_empty());
    ChallengeParams {
        resource_metadata_url: param("resource_metadata").and_then(|u| url::Url::parse(&u).ok()),
        scope: param("scope"),
        error: param("error"),
        error_description: param("error_description"),
    }
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A `Bearer` challenge for a 401: `resource_metadata` first, then the extra parameters in order.
pub fn www_authenticate_header(resource_metadata_url: Option<&str>, additional: &[(String, String)]) -> String {
    let mut params = Vec::new();
    if let Some(url) = resource_metadata_url.filter(|u| !u.is_empty()) {
        params.push(format!("resource_metadata=\"{}\"", escape(url)));
    }
    for (k, v) in additional {
        params.push(format!("{k}=\"{}\"", escape(v)));
    }
    if params.is_empty() {
        "Bearer".to_string()
    } else {
        format!("Bearer {}", params.join(", "))
    }
}

/// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive).
pub fn bearer_token(header: &str) -> Option<String> {
    let prefix = header.get(..7)?;
    if header.len() <= 7 || !prefix.eq_ignore_ascii_case("bearer ") {
        return None;
    }
    let token = header[7..].trim();
    (!token.is_empty()).then(|| token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_parameters_are_read_quoted_or_bare() {
        let c = r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="http://h/x""#;
        assert_eq!(challenge_param(c, "scope").as_deref(), Some("mcp:read mcp:write"));
        assert_eq!(challenge_param(c, "error").as_deref(), Some("insufficient_scope"));
        assert_eq!(challenge_param("Bearer scope=a", "scope").as_deref(), Some("a"));
        assert_eq!(challenge_param(c, "missing"), None);
        let p = challenge_params(c);
        assert_eq!(p.resource_metadata_url.map(String::from).as_deref(), Some("http://h/x"));
        assert_eq!(p.scope.as_deref(), Some("mcp:read mcp:write"));
    }

    #[test]
    fn a_scope_refusal_is_told_from_another_403() {
        let c = r#"Bearer error="insufficient_scope", scope="mcp:write""#;
        assert_eq!(scope_refusal(c), Some(Some("mcp:write".to_string())));
        assert_eq!(scope_refusal(r#"Bearer error="insufficient_scope""#), Some(None));
        assert_eq!(scope_refusal(r#"Bearer error="invalid_token""#), None);
    }

    #[test]
    fn resource_metadata_needs_a_bearer_challenge_with_a_quoted_url() {
        assert_eq!(resource_metadata_url(r#"Bearer resource_metadata="http://a/b""#).map(String::from).as_deref(), Some("http://a/b"));
        assert_eq!(resource_metadata_url(r#"Basic resource_metadata="http://a/b""#), None);
        assert_eq!(resource_metadata_url("Bearer resource_metadata=http://a/b"), None);
        assert_eq!(resource_metadata_url(r#"Bearer resource_metadata="not a url""#), None);
        assert_eq!(resource_metadata_url("Bearer"), None);
    }

    #[test]
    fn headers_are_written_and_bearer_tokens_read() {
        assert_eq!(www_authenticate_header(None, &[]), "Bearer");
        assert_eq!(
            www_authenticate_header(Some("http://x/.well-known/oauth-protected-resource"), &[("error".into(), "a\"b".into())]),
            r#"Bearer resource_metadata="http://x/.well-known/oauth-protected-resource", error="a\"b""#
        );
        assert_eq!(bearer_token("bEaReR  tok ").as_deref(), Some("tok"));
        assert_eq!(bearer_token("Bearer "), None);
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearé"), None);
    }
}

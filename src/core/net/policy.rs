//! The `allowedHosts` policy and redirect handling in front of any backend.
//!
//! * Hosts are matched exactly and case-insensitively against `host[:port]` (the port only when
//!   it is not the scheme's default); `[]` denies everything; no list allows everything.
//! * With a backend that does not follow redirects (reqwest), we follow 301/302/303/307/308 by
//!   hand, at most 5 hops, checking each hop's host *before* sending it, dropping
//!   `Authorization` when the origin changes, and switching to GET for 303 and POST 301/302.
//! * With a backend that follows redirects itself (a JS `fetch`), the URL is checked before the
//!   call and the final `response.url` after it.

use std::sync::Arc;

use super::{HttpBackend, HttpRequest, HttpResponse, NetError, SharedBackend};

pub const MAX_REDIRECTS: usize = 5;

/// `host[:port]` as the WHATWG `URL.host` renders it.
pub fn url_host(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

fn same_origin(a: &url::Url, b: &url::Url) -> bool {
    a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
}

/// Which hosts requests may reach.
#[derive(Debug, Clone, Default)]
pub struct HostPolicy {
    allowed: Option<Vec<String>>,
}

pub enum BlockedBecause<'a> {
    NotSent,
    RedirectFrom(&'a str),
    CustomFetchRedirect,
}

impl HostPolicy {
    pub fn allow_all() -> Self {
        HostPolicy { allowed: None }
    }

    pub fn allow_only(hosts: Vec<String>) -> Self {
        HostPolicy { allowed: Some(hosts) }
    }

    pub fn is_restricted(&self) -> bool {
        self.allowed.is_some()
    }

    pub fn check(&self, url: &url::Url, because: BlockedBecause<'_>) -> Result<(), NetError> {
        let Some(allowed) = &self.allowed else { return Ok(()) };
        let host = url_host(url);
        if allowed.iter().any(|a| a.eq_ignore_ascii_case(&host)) {
            return Ok(());
        }
        let list = if allowed.is_empty() {
            "(empty list — all hosts are denied)".to_string()
        } else {
            allowed.iter().map(|h| format!("\"{h}\"")).collect::<Vec<_>>().join(", ")
        };
        let detail = match because {
            BlockedBecause::NotSent => "The request was not sent.".to_string(),
            BlockedBecause::RedirectFrom(prev) => {
                format!("A redirect from \"{prev}\" pointed at it; the hop was not followed.")
            }
            BlockedBecause::CustomFetchRedirect => {
                "A custom fetch implementation followed a redirect to this host; the response was discarded.".to_string()
            }
        };
        Err(NetError::Policy {
            id: "MCP_CLIENT_HOST_NOT_ALLOWED",
            message: format!("Host \"{host}\" is blocked by the allowedHosts policy. Allowed hosts: {list}. {detail}"),
        })
    }
}

/// A backend behind the host policy, plus headers every request carries (`requestInit.headers`).
#[derive(Clone)]
pub struct NetClient {
    backend: SharedBackend,
    policy: HostPolicy,
    default_headers: Arc<Vec<(String, String)>>,
}

impl NetClient {
    pub fn new(backend: SharedBackend, policy: HostPolicy, default_headers: Vec<(String, String)>) -> Self {
        NetClient { backend, policy, default_headers: Arc::new(default_headers) }
    }

    /// The HTTP version its backend speaks, when known (`network.protocol.version`).
    pub fn protocol_version(&self) -> Option<&'static str> {
        self.backend.protocol_version()
    }

    /// A copy that also sends `name: value` on every request.
    pub fn with_header(&self, name: &str, value: String) -> NetClient {
        let mut headers: Vec<(String, String)> = self.default_headers.iter().filter(|(k, _)| !k.eq_ignore_ascii_case(name)).cloned().collect();
        headers.push((name.to_string(), value));
        NetClient { backend: self.backend.clone(), policy: self.policy.clone(), default_headers: Arc::new(headers) }
    }

    /// A copy over connections of its own, if the backend shares a pool with other servers (see
    /// `HttpBackend::own_pool`); else the same client.
    pub fn with_own_pool(&self) -> NetClient {
        match self.backend.own_pool() {
            Some(backend) => NetClient { backend, policy: self.policy.clone(), default_headers: self.default_headers.clone() },
            None => self.clone(),
        }
    }

    /// Closes the backend's pooled connections (see `HttpBackend::release`).
    pub fn release(&self) {
        self.backend.release();
    }

    pub fn policy(&self) -> &HostPolicy {
        &self.policy
    }

    /// Sends a request under the policy, following redirects as described above.
    pub async fn send(&self, mut request: HttpRequest) -> Result<HttpResponse, NetError> {
        for (k, v) in self.default_headers.iter() {
            if !request.headers.iter().any(|(name, _)| name.eq_ignore_ascii_case(k)) {
                request.headers.push((k.clone(), v.clone()));
            }
        }
        self.policy.check(&request.url, BlockedBecause::NotSent)?;
        if !request.follow_redirects {
            return self.backend.send(request).await;
        }
        if self.backend.follows_redirects() {
            let response = self.backend.send(request).await?;
            if let Some(final_url) = &response.url {
                // An empty URL (unknown) skips the check, as in the anchor.
                self.policy.check(final_url, BlockedBecause::CustomFetchRedirect)?;
            }
            return Ok(response);
        }
        self.follow_redirects(request).await
    }

    async fn follow_redirects(&self, mut request: HttpRequest) -> Result<HttpResponse, NetError> {
        let first_host = url_host(&request.url);
        let mut hops = 0;
        loop {
            let response = self.backend.send(request.clone()).await?;
            if !matches!(response.status, 301 | 302 | 303 | 307 | 308) {
                return Ok(response);
            }
            let status = response.status;
            let current_host = url_host(&request.url);
            let Some(location) = response.header("location").map(str::to_string) else {
                return Err(NetError::Policy {
                    id: "MCP_CLIENT_REDIRECT_MISSING_LOCATION",
                    message: format!(
                        "Received a {status} redirect with no Location header from \"{current_host}\" while following redirects{}.",
                        self.suffix()
                    ),
                });
            };
            drop(response); // the redirect body is discarded unread
            if hops == MAX_REDIRECTS {
                return Err(NetError::Policy {
                    id: "MCP_CLIENT_TOO_MANY_REDIRECTS",
                    message: format!(
                        "Exceeded the maximum of {MAX_REDIRECTS} redirect hops while requesting host \"{first_host}\"{}.",
                        self.suffix()
                    ),
                });
            }
            hops += 1;
            let next = request
                .url
                .join(&location)
                .map_err(|e| NetError::Connect(format!("invalid redirect Location \"{location}\" from \"{current_host}\": {e}")))?;
            self.policy.check(&next, BlockedBecause::RedirectFrom(&current_host))?;
            if !same_origin(&request.url, &next) {
                request.remove_header("authorization");
            }
            if status == 303 || (matches!(status, 301 | 302) && request.method.eq_ignore_ascii_case("POST")) {
                request.method = "GET".to_string();
                request.body = None;
                request.remove_header("content-type");
                request.remove_header("content-length");
            }
            request.url = next;
        }
    }

    fn suffix(&self) -> &'static str {
        if self.policy.is_restricted() {
            " under the allowedHosts policy"
        } else {
            ""
        }
    }
}

impl std::fmt::Debug for NetClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetClient").field("policy", &self.policy).finish()
    }
}

#[allow(dead_code)]
fn assert_backend_object_safe(_: &dyn HttpBackend) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> url::Url {
        url::Url::parse(s).unwrap()
    }

    #[test]
    fn hosts_match_exactly_and_case_insensitively_with_non_default_ports() {
        let p = HostPolicy::allow_only(vec!["localHost:4101".into(), "example.com".into()]);
        assert!(p.check(&url("http://LOCALHOST:4101/mcp"), BlockedBecause::NotSent).is_ok());
        assert!(p.check(&url("https://example.com/x"), BlockedBecause::NotSent).is_ok());
        assert!(p.check(&url("http://example.com:80/x"), BlockedBecause::NotSent).is_ok(), "default port is not part of host");
        let only_ip = HostPolicy::allow_only(vec!["127.0.0.1".into()]);
        let err = only_ip.check(&url("http://127.0.0.1:4101/"), BlockedBecause::NotSent).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Host \"127.0.0.1:4101\" is blocked by the allowedHosts policy. Allowed hosts: \"127.0.0.1\". The request was not sent."
        );
    }

    #[test]
    fn empty_list_denies_everything_and_says_so() {
        let err = HostPolicy::allow_only(vec![]).check(&url("http://a/"), BlockedBecause::RedirectFrom("b:1")).unwrap_err();
        assert!(err.to_string().contains("(empty list — all hosts are denied)"));
        assert!(err.to_string().ends_with("A redirect from \"b:1\" pointed at it; the hop was not followed."));
        assert!(HostPolicy::allow_all().check(&url("http://anything/"), BlockedBecause::NotSent).is_ok());
    }
}

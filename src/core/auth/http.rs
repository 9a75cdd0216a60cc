//! rmcp's OAuth HTTP port implemented over our net layer, so discovery, registration and token
//! requests obey `allowedHosts`, its redirect rules and a custom `fetch` exactly like MCP traffic.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use rmcp::transport::auth::{OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRedirectPolicy, OAuthHttpRequest};

use crate::core::net::{HttpRequest, NetClient, NetError};

/// Upper bound for one OAuth exchange when rmcp does not suggest one.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// OAuth documents are small; anything larger is refused.
const MAX_BODY: usize = 4 * 1024 * 1024;

pub struct NetOAuthHttp {
    pub net: NetClient,
    /// The last request the host policy refused. rmcp's discovery treats failed candidates as
    /// "try the next one", so the refusal is kept here to explain a failed discovery.
    pub refused: Arc<Mutex<Option<NetError>>>,
}

impl OAuthHttpClient for NetOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        let net = self.net.clone();
        Box::pin(async move {
            let follow = !matches!(request.redirect_policy, OAuthHttpRedirectPolicy::Stop);
            let timeout = request.timeout.unwrap_or(DEFAULT_TIMEOUT);
            let (parts, body) = request.request.into_parts();
            let url = url::Url::parse(&parts.uri.to_string())?;
            let mut req = HttpRequest::new(parts.method.as_str(), url);
            req.follow_redirects = follow;
            for (name, value) in &parts.headers {
                if let Ok(v) = value.to_str() {
                    req.headers.push((name.as_str().to_string(), v.to_string()));
                }
            }
            if !body.is_empty() {
                req.body = Some(Bytes::from(body));
            }
            let refused = self.refused.clone();
            let exchange = async {
                let response = net.send(req).await.inspect_err(|e| {
                    if e.is_policy() {
                        if let Ok(mut r) = refused.lock() {
                            *r = Some(e.clone());
                        }
                    }
                })?;
                let status = response.status;
                let headers = response.headers.clone();
                let body = response.bytes(MAX_BODY).await?;
                Ok::<_, crate::core::net::NetError>((status, headers, body))
            };
            let (status, headers, body) = tokio::time::timeout(timeout, exchange)
                .await
                .map_err(|_| format!("OAuth request timed out after {} ms", timeout.as_millis()))??;
            let mut builder = oauth2::http::Response::builder().status(status);
            for (k, v) in headers {
                builder = builder.header(k, v);
            }
            Ok(builder.body(body.to_vec())?)
        })
    }
}

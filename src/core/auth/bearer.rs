//! The Streamable HTTP client of a protected server: every request carries the provider's
//! access token (`Authorization: Bearer`, or `DPoP` with a proof of the credentials' key when
//! the token is DPoP-bound, RFC 9449), an expired token is renewed first (refresh, or the
//! provider's own grant), and a 401 on a token we sent is answered with one renewal and one
//! retry. Only when no token can be had does the 401 (with its challenge) reach the caller,
//! which then starts an authorization.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::{SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse};
use sse_stream::Sse;

use super::session::OAuthSession;

#[derive(Clone)]
pub struct BearerClient<C> {
    pub inner: C,
    pub session: Arc<OAuthSession>,
}

/// How a token goes out: as `Authorization: Bearer` (through the transport's `auth_header`), or,
/// DPoP-bound, as `Authorization: DPoP` with a fresh proof for this request (RFC 9449 §7).
pub struct Presented {
    pub auth_header: Option<String>,
    pub headers: HashMap<HeaderName, HeaderValue>,
}

impl<C> BearerClient<C> {
    /// Wraps a transport HTTP client so every request carries the session's token.
    pub fn new(inner: C, session: Arc<OAuthSession>) -> Self {
        BearerClient { inner, session }
    }
}

impl<C: StreamableHttpClient + Sync> BearerClient<C> {
    /// The token on a `method` request to `uri`: its DPoP proof (with the server's nonce) when
    /// the token is DPoP-bound; a proof that cannot be made leaves the token as a bearer token.
    async fn present(&self, token: Option<String>, method: &str, uri: &str, custom: &HashMap<HeaderName, HeaderValue>) -> Presented {
        let mut headers = custom.clone();
        let Some(token) = token else { return Presented { auth_header: None, headers } };
        let (key, nonce) = self.session.presentation().await;
        let proof = key.zip(url::Url::parse(uri).ok()).and_then(|(key, url)| key.proof(method, &url, Some(&token), nonce.as_deref()).ok());
        let proven = proof.and_then(|p| Some((HeaderValue::from_str(&p).ok()?, HeaderValue::from_str(&format!("DPoP {token}")).ok()?)));
        match proven {
            Some((proof, authorization)) => {
                headers.insert(HeaderName::from_static("dpop"), proof);
                headers.insert(reqwest::header::AUTHORIZATION, authorization);
                Presented { auth_header: None, headers }
            }
            None => Presented { auth_header: Some(token), headers },
        }
    }

    /// Runs `call` with the current token; on a 401 for that token, renews once and retries (or,
    /// when the server asks for a DPoP nonce, retries once with it).
    async fn with_token<T, F, Fut>(
        &self,
        given: Option<String>,
        method: &str,
        uri: &str,
        custom: &HashMap<HeaderName, HeaderValue>,
        call: F,
    ) -> Result<T, StreamableHttpError<C::Error>>
    where
        F: Fn(Presented) -> Fut,
        Fut: std::future::Future<Output = Result<T, StreamableHttpError<C::Error>>>,
    {
        let token = match given {
            Some(t) => Some(t),
            None => self.session.bearer_checked().await.map_err(|e| StreamableHttpError::Auth(AuthError::CredentialStoreError(e)))?,
        };
        match call(self.present(token.clone(), method, uri, custom).await).await {
            Err(StreamableHttpError::AuthRequired(challenge)) if token.is_some() => {
                let header = &challenge.www_authenticate_header;
                if header.contains(super::dpop::USE_NONCE) {
                    if let Some(nonce) = super::challenge::challenge_param(header, super::dpop::NONCE_HEADER) {
                        self.session.set_rs_nonce(nonce);
                        return call(self.present(token, method, uri, custom).await).await;
                    }
                }
                match self.session.renew_after_rejection(token.as_deref(), Some(header)).await {
                    Some(fresh) => call(self.present(Some(fresh), method, uri, custom).await).await,
                    None => Err(StreamableHttpError::AuthRequired(challenge)),
                }
            }
            other => other,
        }
    }
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for BearerClient<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.with_token(auth_header, "POST", &uri, &custom_headers, |p| {
            self.inner.post_message(uri.clone(), message.clone(), session_id.clone(), p.auth_header, p.headers)
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.with_token(auth_header, "DELETE", &uri, &custom_headers, |p| {
            self.inner.delete_session(uri.clone(), session_id.clone(), p.auth_header, p.headers)
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.with_token(auth_header, "GET", &uri, &custom_headers, |p| {
            self.inner.get_stream(uri.clone(), session_id.clone(), last_event_id.clone(), p.auth_header, p.headers)
        })
        .await
    }
}

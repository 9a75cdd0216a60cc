//! The Streamable HTTP client of a protected server: every request carries the provider's
//! access token (`Authorization: Bearer`), an expired token is renewed first (refresh, or the
//! provider's own grant), and a 401 on a token we sent is answered with one renewal and one
//! retry. Only when no token can be had does the 401 (with its challenge) reach the caller,
//! which then starts an authorization.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse};
use sse_stream::Sse;

use super::session::OAuthSession;

#[derive(Clone)]
pub struct BearerClient<C> {
    pub inner: C,
    pub session: Arc<OAuthSession>,
}

impl<C: StreamableHttpClient + Sync> BearerClient<C> {
    /// Runs `call` with the current token; on a 401 for that token, renews once and retries.
    async fn with_token<T, F, Fut>(&self, given: Option<String>, call: F) -> Result<T, StreamableHttpError<C::Error>>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<T, StreamableHttpError<C::Error>>>,
    {
        let token = match given {
            Some(t) => Some(t),
            None => self.session.bearer().await,
        };
        match call(token.clone()).await {
            Err(StreamableHttpError::AuthRequired(challenge)) if token.is_some() => {
                match self.session.renew_after_rejection(token.as_deref(), Some(&challenge.www_authenticate_header)).await {
                    Some(fresh) => call(Some(fresh)).await,
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
        self.with_token(auth_header, |token| self.inner.post_message(uri.clone(), message.clone(), session_id.clone(), token, custom_headers.clone()))
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.with_token(auth_header, |token| self.inner.delete_session(uri.clone(), session_id.clone(), token, custom_headers.clone())).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.with_token(auth_header, |token| {
            self.inner.get_stream(uri.clone(), session_id.clone(), last_event_id.clone(), token, custom_headers.clone())
        })
        .await
    }
}

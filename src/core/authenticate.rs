//! `authenticate()`: the interactive OAuth flow of one server, on top of its connection.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::auth::callback::{candidates as callback_candidates, CallbackServer};
use super::auth::BeginError;
use super::connection::Connection;
use super::error::{ErrorKind, McpError, Result};

/// How long `authenticate` waits for the user when the caller gives no timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_millis(super::config::DEFAULT_OAUTH_CALLBACK_TIMEOUT_MS);

impl Connection {
    /// Runs the interactive OAuth flow: a loopback callback server on the provider's redirect
    /// URL (or the next free port), a connect that triggers `redirectToAuthorization` when no
    /// valid tokens exist, the wait for the browser's callback (bounded by `timeout`), the token
    /// exchange, and the final connect. Stored valid tokens finish without a browser step.
    pub async fn authenticate(&self, timeout: Option<Duration>, cancel: CancellationToken) -> Result<()> {
        let timeout = timeout.unwrap_or(DEFAULT_TIMEOUT);
        let name = self.name().to_string();
        let session = self.oauth().cloned().ok_or_else(|| {
            McpError::new(
                ErrorKind::InvalidState,
                &name,
                format!("Cannot authenticate MCP server {name}: it is not configured with an MCPOAuthClientProvider."),
            )
        })?;
        let failed = |message: String| McpError::new(ErrorKind::AuthFailed, &name, message);
        let config = session.provider().config().await.map_err(failed)?;
        let redirect = url::Url::parse(&config.redirect_url).ok().filter(|u| u.scheme() == "http" && is_loopback_host(u)).ok_or_else(|| {
            let origin =
                url::Url::parse(&config.redirect_url).map(|u| u.origin().ascii_serialization()).unwrap_or_else(|_| config.redirect_url.clone());
            McpError::new(
                ErrorKind::InvalidState,
                &name,
                format!("Cannot authenticate MCP server {name}: the provider's redirect URL must be a loopback address, got {origin}."),
            )
        })?;
        let cancelled = || McpError::new(ErrorKind::Aborted, &name, format!("Authentication for MCP server {name} was cancelled."));
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        // Set once the callback server listens: a cancellation then closes it.
        let waiting = AtomicBool::new(false);
        let server: OnceLock<CallbackServer> = OnceLock::new();
        let flow = async {
            let provider = session.provider();
            let _pinned = provider.begin_authorization_session(&config).await.map_err(failed)?;
            // A callback for an earlier authorization (a link the user opened before) must not
            // complete this one.
            session.clear_pending();
            let started = CallbackServer::start_with_state_cell(&redirect, session.pending_state_cell()).await.map_err(failed)?;
            let server = server.get_or_init(|| started);
            // From here a cancellation closes the callback server, as `@mastra/mcp`'s does: the
            // flow ends as a wait for the code that the closed server never gives.
            waiting.store(true, Ordering::SeqCst);
            let bound = server.url.to_string();
            let candidates: Vec<String> = callback_candidates(&redirect).iter().map(|u| u.to_string()).collect();
            provider.apply_resolved_redirect_url(&bound, &candidates).await.map_err(failed)?;
            // A stored client registered for another redirect URL cannot be used with this one.
            let stored = provider.client_information().await.map_err(failed)?;
            let registered_here = stored
                .as_ref()
                .and_then(|c| c.get("redirect_uris"))
                .and_then(Value::as_array)
                .is_none_or(|uris| uris.iter().any(|u| u.as_str() == Some(bound.as_str())));
            if !registered_here {
                provider.invalidate_credentials("client").await.map_err(failed)?;
            }
            if let Some(refusal) = session.take_refusal() {
                // A request (not the connect) was refused: authorize again, now that the
                // callback server listens.
                session.retry_refusal(refusal).await.map_err(|e| match e {
                    BeginError::Policy { id, message } => McpError::new(ErrorKind::Policy(id), &name, message),
                    BeginError::Failed(message) => failed(format!("authorization could not start: {message}")),
                })?;
            } else {
                self.disconnect().await;
                match self.ensure_connected().await {
                    Ok(_) => return Ok(()),
                    Err(e) if e.kind == ErrorKind::AuthRequired => {}
                    Err(e) => return Err(e),
                }
            }
            if session.pending_state().is_none() {
                return Err(failed("the server did not start an authorization".into()));
            }
            let callback = server.wait_for_code(timeout).await.map_err(failed)?;
            session.finish(&callback).await.map_err(failed)?;
            self.disconnect().await;
            self.ensure_connected().await.map(|_| ())
        };
        let outcome = tokio::select! {
            r = flow => r,
            _ = cancel.cancelled() => Err(if waiting.load(Ordering::SeqCst) {
                McpError::new(ErrorKind::Aborted, &name, "OAuth callback server closed before receiving an authorization code")
            } else {
                cancelled()
            }),
        };
        if let Some(server) = server.get() {
            server.close().await;
        }
        if let Err(e) = session.provider().end_authorization_session(&config).await {
            tracing::warn!(server = %name, "endAuthorizationSession failed: {e}");
        }
        outcome
    }

    /// `finishAuth(code)`: completes the authorization a connect started, storing the tokens
    /// through the provider; the next connect uses them. Takes the bare code (as `@mastra/mcp`
    /// does) or the whole callback URL, whose `state` and RFC 9207 `iss` are then checked too;
    /// or (2.0's form) the bare code and the callback's `iss` apart.
    pub async fn finish_auth(&self, code_or_callback_url: &str, iss: Option<&str>) -> Result<()> {
        let name = self.name().to_string();
        let pending = || McpError::new(ErrorKind::InvalidState, &name, "No OAuth authorization is pending for this server. Call connect() first.");
        let session = self.oauth().cloned().ok_or_else(pending)?;
        let expected_state = session.pending_state().ok_or_else(pending)?;
        let callback = callback_from(code_or_callback_url, iss, expected_state);
        let bare_code = callback.code == code_or_callback_url;
        session.finish(&callback).await.map_err(|e| {
            let hint = if bare_code && callback.iss.is_none() {
                " If the authorization server sent `iss`, pass the whole callback URL to finishAuth() so it can be checked."
            } else {
                ""
            };
            McpError::new(ErrorKind::AuthFailed, &name, format!("{e}{hint}"))
        })
    }
}

/// The callback of `finishAuth`: a URL's `code`, `state` and `iss`, or a bare code for the pending
/// state; with `iss` given apart (2.0's `finishAuth(code, iss)`), a bare code takes it (a URL keeps
/// its own).
fn callback_from(code_or_callback_url: &str, iss: Option<&str>, pending_state: String) -> super::auth::callback::Callback {
    use super::auth::callback::Callback;
    if let Some(iss) = iss.filter(|_| !has_scheme(code_or_callback_url)) {
        return Callback { code: code_or_callback_url.to_string(), state: pending_state, iss: Some(iss.to_string()) };
    }
    if let Ok(url) = url::Url::parse(code_or_callback_url) {
        let param = |key: &str| url.query_pairs().find(|(k, _)| k == key).map(|(_, v)| v.into_owned());
        if let Some(code) = param("code") {
            return Callback { code, state: param("state").unwrap_or(pending_state), iss: param("iss") };
        }
    }
    Callback { code: code_or_callback_url.to_string(), state: pending_state, iss: None }
}

/// Whether `text` starts as a URL does (`scheme:`, RFC 3986): then it is read as the callback URL.
fn has_scheme(text: &str) -> bool {
    let scheme_len = text.find(':').unwrap_or(0);
    let scheme = &text[..scheme_len];
    scheme.starts_with(|c: char| c.is_ascii_alphabetic()) && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
}

/// `localhost`, `[::1]` / `::1`, or `127.d.d.d`.
fn is_loopback_host(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{callback_from, has_scheme};

    #[test]
    fn a_callback_url_gives_code_state_and_iss() {
        let c = callback_from("http://127.0.0.1:5/cb?code=abc&state=s1&iss=https%3A%2F%2Fas.example", None, "pending".into());
        assert_eq!((c.code.as_str(), c.state.as_str(), c.iss.as_deref()), ("abc", "s1", Some("https://as.example")));
    }

    #[test]
    fn a_bare_code_uses_the_pending_state() {
        let c = callback_from("abc", None, "pending".into());
        assert_eq!((c.code.as_str(), c.state.as_str(), c.iss), ("abc", "pending", None));
    }

    #[test]
    fn a_url_without_code_is_taken_as_a_code() {
        let c = callback_from("urn:x", None, "pending".into());
        assert_eq!(c.code, "urn:x");
    }

    #[test]
    fn an_iss_given_apart_goes_with_a_bare_code() {
        let c = callback_from("a+b/c=", Some("https://as.example"), "pending".into());
        assert_eq!((c.code.as_str(), c.state.as_str(), c.iss.as_deref()), ("a+b/c=", "pending", Some("https://as.example")));
    }

    #[test]
    fn a_callback_url_keeps_its_own_iss() {
        let c = callback_from("http://127.0.0.1:5/cb?code=abc&state=s1&iss=https%3A%2F%2Fmine", Some("https://other"), "pending".into());
        assert_eq!((c.code.as_str(), c.state.as_str(), c.iss.as_deref()), ("abc", "s1", Some("https://mine")));
        let c = callback_from("urn:x", Some("https://other"), "pending".into());
        assert_eq!((c.code.as_str(), c.iss), ("urn:x", None), "a scheme makes it a URL, as the face's check did");
    }

    #[test]
    fn a_scheme_is_a_letter_then_letters_digits_plus_dot_or_dash() {
        for url in ["http://x", "urn:x", "A1+.-:y", "abc:def"] {
            assert!(has_scheme(url), "{url}");
        }
        for code in ["abc", ":x", "1a:x", "a_b:x", "", "a b:c"] {
            assert!(!has_scheme(code), "{code}");
        }
    }
}

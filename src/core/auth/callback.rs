//! The loopback OAuth callback server: binds the redirect URL's host (falling back over the next
//! ten ports when one is taken), accepts exactly one valid callback (the `state` compared in
//! constant time), answers everything else with a clear status, and never echoes the code.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// Ports tried after the preferred one.
pub const EXTRA_PORTS: u16 = 10;
const MAX_REQUEST_HEAD: usize = 16 * 1024;
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Upper bound for `close()` to see the listener and every connection gone.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// What the authorization server sent back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callback {
    pub code: String,
    pub state: String,
    /// RFC 9207 issuer identifier, when the authorization server sent one.
    pub iss: Option<String>,
}

type Outcome = Option<Result<Callback, String>>;

/// The redirect URL with its preferred port (explicit, else the scheme default) and the next
/// ten ports, stopping at 65535.
pub fn candidates(redirect_url: &url::Url) -> Vec<url::Url> {
    let first = redirect_url.port_or_known_default().unwrap_or(80);
    (0..=EXTRA_PORTS)
        .filter_map(|i| first.checked_add(i))
        .map(|port| {
            let mut u = redirect_url.clone();
            let _ = u.set_port(Some(port)); // normalises a default port away
            u
        })
        .collect()
}

fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub struct CallbackServer {
    pub url: url::Url,
    pub port: u16,
    outcome: watch::Receiver<Outcome>,
    shutdown: CancellationToken,
    /// Turns `true` once the listener and every accepted connection are closed.
    closed: watch::Receiver<bool>,
}

impl CallbackServer {
    /// Binds and starts serving; a valid callback must carry `state`.
    pub async fn start(redirect_url: &url::Url, state: Option<String>) -> Result<CallbackServer, String> {
        Self::start_with_state_cell(redirect_url, Arc::new(Mutex::new(state))).await
    }

    /// Like `start`, but the expected `state` is read from `cell` when a callback arrives (the
    /// OAuth session's pending authorization), so a callback delivered while the authorization
    /// is still being started is judged against the right value.
    pub async fn start_with_state_cell(redirect_url: &url::Url, expected_state: Arc<Mutex<Option<String>>>) -> Result<CallbackServer, String> {
        let host = redirect_url.host_str().unwrap_or("127.0.0.1").trim_start_matches('[').trim_end_matches(']').to_string();
        let tries = candidates(redirect_url);
        let mut bound = None;
        for candidate in &tries {
            let port = candidate.port_or_known_default().unwrap_or(80);
            match TcpListener::bind((host.as_str(), port)).await {
                Ok(listener) => {
                    bound = Some((listener, candidate.clone(), port));
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => continue,
                Err(e) => return Err(format!("Failed to start OAuth callback server on {host}:{port}: {e}")),
            }
        }
        let Some((listener, url, port)) = bound else {
            let first = tries.first().and_then(|u| u.port_or_known_default()).unwrap_or(0);
            let last = tries.last().and_then(|u| u.port_or_known_default()).unwrap_or(0);
            return Err(format!("Failed to start OAuth callback server: ports {first}-{last} are all in use"));
        };
        let (tx, rx) = watch::channel(None);
        let (closed_tx, closed) = watch::channel(false);
        let shutdown = CancellationToken::new();
        let path = url.path().to_string();
        let stop = shutdown.clone();
        tokio::spawn(async move {
            serve(listener, path, expected_state, tx, stop).await;
            // The listener and every connection are gone: the port can be bound again.
            closed_tx.send_replace(true);
        });
        Ok(CallbackServer { url, port, outcome: rx, shutdown, closed })
    }

    /// Waits for the callback, at most `timeout`.
    pub async fn wait_for_code(&self, timeout: Duration) -> Result<Callback, String> {
        let mut rx = self.outcome.clone();
        let wait = async {
            loop {
                if let Some(outcome) = rx.borrow_and_update().clone() {
                    return outcome;
                }
                tokio::select! {
                    changed = rx.changed() => if changed.is_err() {
                        return Err("OAuth callback server closed before receiving an authorization code".to_string());
                    },
                    _ = self.shutdown.cancelled() => {
                        return Err("OAuth callback server closed before receiving an authorization code".to_string());
                    }
                }
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .unwrap_or_else(|_| Err(format!("Timed out waiting for OAuth callback after {}ms", timeout.as_millis())))
    }

    /// Stops listening and drops every connection (idle keep-alive ones too); a pending wait
    /// fails. Resolves once the port can be bound again (bounded). Idempotent.
    pub async fn close(&self) {
        self.shutdown.cancel();
        let mut closed = self.closed.clone();
        // An error means the serving task is gone, and with it the listener.
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, closed.wait_for(|c| *c)).await;
    }
}

impl Drop for CallbackServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn serve(
    listener: TcpListener,
    path: String,
    expected_state: Arc<Mutex<Option<String>>>,
    outcome: watch::Sender<Outcome>,
    shutdown: CancellationToken,
) {
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            _ = shutdown.cancelled() => break,
        };
        let Ok((stream, _)) = accepted else { continue };
        let path = path.clone();
        let expected_state = expected_state.clone();
        let outcome = outcome.clone();
        connections.spawn(async move {
            let _ = tokio::time::timeout(READ_TIMEOUT, handle(stream, &path, &expected_state, &outcome)).await;
        });
    }
    drop(listener);
    // Connections still open (a browser's idle keep-alive or pre-connect) end with the server.
    connections.shutdown().await;
}

async fn handle(mut stream: TcpStream, path: &str, expected_state: &Mutex<Option<String>>, outcome: &watch::Sender<Outcome>) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_HEAD {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&head);
    let target = text.lines().next().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("/");
    let Ok(url) = url::Url::parse("http://callback.invalid").and_then(|b| b.join(target)) else {
        return respond(&mut stream, 400, "Bad request").await;
    };
    if url.path() != path {
        return respond(&mut stream, 404, "Not found").await;
    }
    if outcome.borrow().is_some() {
        return respond(&mut stream, 410, "Callback already handled").await;
    }
    let param = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    let expected = expected_state.lock().ok().and_then(|s| s.clone());
    let state_ok = matches!((param("state"), expected), (Some(got), Some(want)) if constant_time_eq(&got, &want));
    if !state_ok {
        return respond(
            &mut stream,
            400,
            &page("Authorization failed", "The response did not match the pending request. You can close this tab and retry from your application."),
        )
        .await;
    }
    let settled = if let Some(error) = param("error") {
        let detail = param("error_description").map(|d| format!(" ({d})")).unwrap_or_default();
        Err(format!("Authorization failed: {error}{detail}"))
    } else if let Some(code) = param("code") {
        Ok(Callback { code, state: param("state").unwrap_or_default(), iss: param("iss") })
    } else {
        Err("Authorization failed: missing authorization code".to_string())
    };
    let ok = settled.is_ok();
    outcome.send_replace(Some(settled));
    if ok {
        respond(&mut stream, 200, &page("Authorization complete", "You can close this tab and return to your application.")).await
    } else {
        respond(
            &mut stream,
            400,
            &page("Authorization failed", "The authorization server reported an error. You can close this tab and retry from your application."),
        )
        .await
    }
}

fn page(title: &str, body: &str) -> String {
    format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p></body></html>")
}

async fn respond(stream: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        410 => "Gone",
        _ => "Error",
    };
    let content_type = if body.starts_with("<!doctype") { "text/html; charset=utf-8" } else { "text/plain; charset=utf-8" };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\ncache-control: no-store\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eleven_candidates_from_the_preferred_port() {
        let c = candidates(&url::Url::parse("http://127.0.0.1:5533/oauth/callback").unwrap());
        assert_eq!(c.len(), 11);
        assert_eq!(c[0].as_str(), "http://127.0.0.1:5533/oauth/callback");
        assert_eq!(c[10].port(), Some(5543));
        let d = candidates(&url::Url::parse("http://localhost/cb").unwrap());
        assert_eq!(d[0].as_str(), "http://localhost/cb");
        assert_eq!(d[1].as_str(), "http://localhost:81/cb");
        assert_eq!(candidates(&url::Url::parse("http://h:65530/").unwrap()).len(), 6);
    }

    #[test]
    fn state_comparison_is_exact() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "abcd"));
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    }

    async fn get(port: u16, path: &str) -> u16 {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        response.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[tokio::test]
    async fn serves_one_valid_callback_and_rejects_the_rest() {
        let port = free_port();
        let url = url::Url::parse(&format!("http://127.0.0.1:{port}/cb")).unwrap();
        let server = CallbackServer::start(&url, Some("s1".into())).await.unwrap();
        assert_eq!(server.port, port);
        assert_eq!(get(port, "/other").await, 404);
        assert_eq!(get(port, "/cb?code=c&state=wrong").await, 400, "wrong state");
        assert_eq!(get(port, "/cb?code=c").await, 400, "missing state");
        assert_eq!(get(port, "/cb?code=c&state=s1&iss=http%3A%2F%2Fas").await, 200);
        assert_eq!(get(port, "/cb?code=c&state=s1").await, 410, "replayed");
        let cb = server.wait_for_code(Duration::from_secs(1)).await.unwrap();
        assert_eq!(cb, Callback { code: "c".into(), state: "s1".into(), iss: Some("http://as".into()) });
    }

    #[tokio::test]
    async fn falls_back_to_the_next_port_and_reports_errors_and_timeouts() {
        let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = busy.local_addr().unwrap().port();
        let url = url::Url::parse(&format!("http://127.0.0.1:{port}/cb")).unwrap();
        let server = CallbackServer::start(&url, Some("s".into())).await.unwrap();
        assert_ne!(server.port, port, "a busy preferred port is skipped");
        assert_eq!(get(server.port, "/cb?state=s&error=access_denied&error_description=nope").await, 400);
        assert_eq!(server.wait_for_code(Duration::from_secs(1)).await.unwrap_err(), "Authorization failed: access_denied (nope)");
        let quiet = CallbackServer::start(&url::Url::parse(&format!("http://127.0.0.1:{}/cb", free_port())).unwrap(), None).await.unwrap();
        assert_eq!(quiet.wait_for_code(Duration::from_millis(50)).await.unwrap_err(), "Timed out waiting for OAuth callback after 50ms");
        quiet.close().await;
        assert!(quiet.wait_for_code(Duration::from_secs(1)).await.unwrap_err().contains("closed before receiving"));
    }

    #[tokio::test]
    async fn close_frees_the_port_even_with_an_idle_connection_open() {
        let port = free_port();
        let url = url::Url::parse(&format!("http://127.0.0.1:{port}/cb")).unwrap();
        let server = CallbackServer::start(&url, Some("s".into())).await.unwrap();
        // A browser's pre-connect: connected, nothing sent.
        let idle = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        server.close().await;
        let again = TcpListener::bind(("127.0.0.1", port)).await;
        assert!(again.is_ok(), "the port is free once close() returned: {again:?}");
        drop(idle);
        server.close().await; // idempotent
    }
}

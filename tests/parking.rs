//! Idle Streamable HTTP sessions park and resume (`connection::park`), against a loopback
//! server of the handshake era that has no GET stream (405) and records every request: a parked
//! session resumes with nothing sent but the request itself, under the same session id;
//! requests that race the moment of parking each reach the server exactly once; `disconnect()`
//! ends a parked session on the server; a stateless server's session (no id) parks too.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mastra_mcp_native::core::connection::RequestOptions;
use mastra_mcp_native::core::events::{EventKind, EventSink, ServerEvent};
use mastra_mcp_native::core::registry::HostPorts;
use mastra_mcp_native::core::Registry;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// One request the server received: HTTP method, JSON-RPC method, session id.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    http: String,
    rpc: Option<String>,
    session: Option<String>,
}

#[derive(Default)]
struct Server {
    /// A stateless server: no session id, none checked.
    stateless: bool,
    seen: Mutex<Vec<Seen>>,
    /// Sessions ended by a DELETE: a request in one is answered 404, as real servers do.
    ended: Mutex<Vec<String>>,
}

impl Server {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("server log").clone()
    }
}

/// Answers one HTTP/1.1 request; `None` when the connection ended.
async fn answer(reader: &mut BufReader<tokio::net::TcpStream>, server: &Server) -> Option<Vec<u8>> {
    let (mut method, mut length, mut session) = (String::new(), 0usize, None);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let text = line.trim_end();
        if text.is_empty() {
            break;
        }
        if method.is_empty() {
            method = text.split(' ').next().unwrap_or_default().to_string();
        } else if let Some((name, value)) = text.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().ok()?,
                "mcp-session-id" => session = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.ok()?;
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let rpc = message.get("method").and_then(Value::as_str).map(str::to_string);
    server.seen.lock().ok()?.push(Seen { http: method.clone(), rpc: rpc.clone(), session: session.clone() });
    let reply = |status: &str, headers: &str, body: String| {
        format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\n{headers}\r\n{body}", body.len()).into_bytes()
    };
    let ended = session.as_ref().is_some_and(|id| server.ended.lock().is_ok_and(|e| e.contains(id)));
    Some(match (method.as_str(), rpc.as_deref()) {
        _ if ended => reply("404 Not Found", "", String::new()),
        ("DELETE", _) => {
            server.ended.lock().ok()?.extend(session);
            reply("200 OK", "", String::new())
        }
        ("GET", _) => reply("405 Method Not Allowed", "allow: POST, DELETE\r\n", String::new()),
        (_, Some("initialize")) => {
            let result =
                json!({ "protocolVersion": "2025-11-25", "capabilities": { "tools": {} }, "serverInfo": { "name": "parking", "version": "1" } });
            let body = json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }).to_string();
            let number = server.seen.lock().ok()?.iter().filter(|s| s.rpc.as_deref() == Some("initialize")).count();
            let session = if server.stateless { String::new() } else { format!("mcp-session-id: s-{number}\r\n") };
            reply("200 OK", &format!("content-type: application/json\r\n{session}"), body)
        }
        _ if message.get("id").is_none() => reply("202 Accepted", "", String::new()),
        _ => {
            let text = message["params"]["arguments"]["n"].to_string();
            let body = json!({ "jsonrpc": "2.0", "id": message["id"], "result": { "content": [{ "type": "text", "text": text }] } }).to_string();
            reply("200 OK", "content-type: application/json\r\n", body)
        }
    })
}

async fn serve() -> (u16, Arc<Server>) {
    serve_as(Server::default()).await
}

async fn serve_as(server: Server) -> (u16, Arc<Server>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    let server = Arc::new(server);
    let state = server.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let state = state.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::new(socket);
                while let Some(bytes) = answer(&mut reader, &state).await {
                    if reader.get_mut().write_all(&bytes).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, server)
}

/// Keeps the diagnostics a user's logger would see, and the ended sessions' durations (the
/// face's `mcp.client.session.duration`).
#[derive(Default)]
struct Diagnostics(Mutex<Vec<String>>, Mutex<Vec<f64>>);

impl EventSink for Diagnostics {
    fn emit(&self, event: ServerEvent) {
        if event.kind == EventKind::SessionEnded {
            if let (Ok(mut ended), Some(seconds)) = (self.1.lock(), event.payload["durationS"].as_f64()) {
                ended.push(seconds);
            }
        }
        if event.kind == EventKind::Diagnostic {
            if let (Ok(mut lines), Some(message)) = (self.0.lock(), event.payload["message"].as_str()) {
                lines.push(message.to_string());
            }
        }
    }
    fn stderr(&self, _server: &str, _chunk: Vec<u8>) {}
}

impl Diagnostics {
    fn count(&self, part: &str) -> usize {
        self.0.lock().map(|lines| lines.iter().filter(|l| l.contains(part)).count()).unwrap_or(0)
    }

    /// Waits (bounded) until the session parked `n` times.
    async fn parked(&self, n: usize) {
        let until = Instant::now() + Duration::from_secs(8);
        while self.count("parked until the next request") < n {
            assert!(Instant::now() < until, "the session did not park {n} times: {:?}", self.0.lock().map(|l| l.clone()));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn registry(port: u16, sink: Arc<Diagnostics>) -> Registry {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ports = HostPorts::reqwest().expect("reqwest backend");
    let servers = json!({ "p": { "url": format!("http://127.0.0.1:{port}/mcp") } });
    Registry::new(&servers, None, sink, None, &ports).expect("registry")
}

async fn call(reg: &Registry, n: u64) -> String {
    let conn = reg.get("p").expect("server");
    let params = json!({ "name": "echo", "arguments": { "n": n } });
    let result = conn.request_raw("tools/call", params, RequestOptions::default()).await.expect("the call succeeds");
    let result: Value = serde_json::from_str(&result).expect("JSON");
    result["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

fn calls(seen: &[Seen]) -> usize {
    seen.iter().filter(|s| s.rpc.as_deref() == Some("tools/call")).count()
}

#[tokio::test]
async fn a_parked_session_resumes_with_only_the_request_and_ends_on_disconnect() {
    let (port, server) = serve().await;
    let sink = Arc::new(Diagnostics::default());
    let reg = registry(port, sink.clone());
    assert_eq!(call(&reg, 1).await, "1");
    sink.parked(1).await;
    let conn = reg.get("p").expect("server");
    assert_eq!(conn.session_id_now().as_deref(), Some("s-1"), "parked, still the session");
    let before = server.seen().len();
    assert_eq!(call(&reg, 2).await, "2");
    let after: Vec<Seen> = server.seen()[before..].to_vec();
    assert_eq!(after, vec![Seen { http: "POST".into(), rpc: Some("tools/call".into()), session: Some("s-1".into()) }]);
    sink.parked(2).await;
    assert!(!server.seen().iter().any(|s| s.http == "DELETE"), "parking never ends the session on the server");
    conn.disconnect().await;
    let deletes: Vec<Seen> = server.seen().into_iter().filter(|s| s.http == "DELETE").collect();
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].session.as_deref(), Some("s-1"));
    assert_eq!(server.seen().iter().filter(|s| s.rpc.as_deref() == Some("initialize")).count(), 1, "one handshake in all");
    let ended = sink.1.lock().expect("durations").clone();
    assert_eq!(ended.len(), 1, "one session, ended once: {ended:?}");
    assert!(ended[0] > 2.0, "its duration spans its parked spells: {ended:?}");
}

#[tokio::test]
async fn requests_racing_the_moment_of_parking_each_reach_the_server_once() {
    let (port, server) = serve().await;
    let sink = Arc::new(Diagnostics::default());
    let reg = Arc::new(registry(port, sink.clone()));
    let mut sent = 0u64;
    call(&reg, 0).await;
    sent += 1;
    // Quiet spells around the moment the session parks (a second, polled every second), then
    // four requests at once, a few milliseconds apart.
    for round in 0..12u64 {
        tokio::time::sleep(Duration::from_millis(900 + round * 50)).await;
        let batch: Vec<_> = (0..4u64)
            .map(|i| {
                let reg = reg.clone();
                let n = round * 10 + i;
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(i * 3)).await;
                    (n, call(&reg, n).await)
                })
            })
            .collect();
        for task in batch {
            let (n, text) = task.await.expect("joined");
            assert_eq!(text, n.to_string());
        }
        sent += 4;
    }
    let seen = server.seen();
    assert_eq!(calls(&seen) as u64, sent, "each request reached the server once");
    assert_eq!(seen.iter().filter(|s| s.rpc.as_deref() == Some("initialize")).count(), 1, "the session was only ever resumed");
    assert!(seen.iter().all(|s| s.rpc.as_deref() == Some("initialize") || s.session.as_deref() == Some("s-1")));
    assert!(sink.count("parked until the next request") >= 1, "some quiet spells were long enough to park");
    reg.get("p").expect("server").disconnect().await;
}

#[tokio::test]
async fn a_session_without_an_id_parks_and_resumes_with_only_the_request() {
    let (port, server) = serve_as(Server { stateless: true, ..Default::default() }).await;
    let sink = Arc::new(Diagnostics::default());
    let reg = registry(port, sink.clone());
    assert_eq!(call(&reg, 1).await, "1");
    sink.parked(1).await;
    let before = server.seen().len();
    assert_eq!(call(&reg, 2).await, "2");
    let after: Vec<Seen> = server.seen()[before..].to_vec();
    assert_eq!(after, vec![Seen { http: "POST".into(), rpc: Some("tools/call".into()), session: None }]);
    let conn = reg.get("p").expect("server");
    conn.disconnect().await;
    assert!(!server.seen().iter().any(|s| s.http == "GET" || s.http == "DELETE"), "no stream asked for, no session to end: {:?}", server.seen());
    assert_eq!(server.seen().iter().filter(|s| s.rpc.as_deref() == Some("initialize")).count(), 1);
}

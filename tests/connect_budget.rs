//! A `url` server that accepts TCP and never answers: the whole connect — the Streamable HTTP
//! attempt and the SSE fallback — shares one budget of max(timeout, connectTimeout), so the
//! fallback is not given a second budget of its own.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mastra_mcp_native::core::events::NullSink;
use mastra_mcp_native::core::registry::HostPorts;
use mastra_mcp_native::core::{ErrorKind, Registry};
use serde_json::json;

/// Accepts connections and keeps them open without ever answering.
async fn black_hole() -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let port = listener.local_addr().expect("local addr").port();
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    (port, task)
}

fn registry(servers: serde_json::Value) -> Registry {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ports = HostPorts::reqwest().expect("reqwest backend");
    Registry::new(&servers, None, Arc::new(NullSink), None, &ports).expect("registry")
}

#[tokio::test]
async fn a_black_hole_settles_within_one_connect_budget() {
    let (port, hole) = black_hole().await;
    let reg = registry(json!({ "bh": { "url": format!("http://127.0.0.1:{port}/mcp"), "timeout": 1500, "connectTimeout": 1000 } }));
    let started = Instant::now();
    let err = match reg.get("bh").expect("server").ensure_connected().await {
        Ok(_) => panic!("a black hole cannot connect"),
        Err(e) => e,
    };
    // Budget: max(1500, 1000) = 1500 ms. Streamable HTTP gives up after its 1000 ms, the SSE
    // fallback gets what is left of the budget (not a fresh 1500 ms).
    assert_eq!(err.server, "bh");
    assert!(err.during_connect);
    assert!(err.message.contains("Streamable HTTP: Request timed out after 1000 ms"), "{}", err.message);
    assert!(err.message.contains("SSE: Request timed out after 1500 ms (SSE connect"), "{}", err.message);
    assert!(started.elapsed() < Duration::from_millis(1500 * 3), "settled within a multiple of the budget");
    hole.abort();
}

#[tokio::test]
async fn a_used_up_budget_leaves_no_time_for_the_fallback() {
    let (port, hole) = black_hole().await;
    let reg = registry(json!({ "bh": { "url": format!("http://127.0.0.1:{port}/mcp"), "timeout": 1500 } }));
    let err = match reg.get("bh").expect("server").ensure_connected().await {
        Ok(_) => panic!("a black hole cannot connect"),
        Err(e) => e,
    };
    // Budget: max(1500, 3000 default connectTimeout): Streamable HTTP uses all of it.
    assert_eq!(err.kind, ErrorKind::ConnectFailed);
    assert!(err.message.contains("SSE: not tried: the connect budget of 3000 ms was used up"), "{}", err.message);
    hole.abort();
}

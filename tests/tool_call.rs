//! The face's `tools/call` paths through the core (`tool_call`, `calls`) against a real stdio
//! server (`__test__/fixtures/stdio-server.mjs` under `node`): a direct call written on the lane
//! settles through its completion, is cancelled by id and on disconnect, an invalid argument
//! text is the core's error, and the async path registers and settles its call.

use std::sync::Arc;
use std::time::Duration;

use mastra_mcp_native::core::calls::{CallTable, DISCONNECTED};
use mastra_mcp_native::core::events::NullSink;
use mastra_mcp_native::core::registry::HostPorts;
use mastra_mcp_native::core::tool_call::{self, CallOptions, DirectCall, Settled, Settlement};
use mastra_mcp_native::core::{Connection, ErrorKind, Registry};
use serde_json::{json, Value};

fn registry() -> Registry {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/__test__/fixtures/stdio-server.mjs");
    let ports = HostPorts::reqwest().expect("reqwest backend");
    Registry::new(&json!({ "fx": { "command": "node", "args": [fixture] } }), None, Arc::new(NullSink), None, &ports).expect("registry")
}

async fn connected(registry: &Registry) -> Arc<Connection> {
    let conn = registry.get("fx").expect("configured");
    conn.ensure_connected().await.expect("the fixture connects");
    for _ in 0..100 {
        if conn.ready_lane().is_some() {
            return conn;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the stdio lane is never ready");
}

fn direct(name: &str, args: Value, id: u32) -> DirectCall {
    DirectCall { server: "fx".into(), name: name.into(), args_json: args.to_string(), meta: Default::default(), observed: false, id }
}

/// Starts a direct call; its settlement (a follow-up awaited) arrives on the receiver.
fn start(conn: &Arc<Connection>, calls: &Arc<CallTable>, call: DirectCall) -> tokio::sync::oneshot::Receiver<Settlement> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let settled = move |settled: Settled| match settled {
        Settled::Done(s) => drop(tx.send(s)),
        Settled::FollowUp(f) => drop(tokio::spawn(async move { drop(tx.send(f.await)) })),
    };
    assert!(tool_call::start(conn, calls, call, settled).expect("valid arguments"), "written on the lane");
    rx
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).expect("the face parses JSON")
}

#[tokio::test]
async fn a_direct_call_settles_through_its_completion_and_leaves_the_table() {
    let registry = registry();
    let conn = connected(&registry).await;
    let calls = Arc::new(CallTable::default());
    let done = start(&conn, &calls, direct("slow", json!({ "ms": 1 }), 1));
    let result = parsed(&done.await.expect("settled").expect("succeeds"));
    assert!(result["kind"].is_string(), "a shaped result: {result}");
    assert!(result.to_string().contains("slept"), "{result}");
    assert_eq!(calls.len(), (0, 0));
    registry.disconnect_all().await;
}

#[tokio::test]
async fn a_direct_call_is_cancelled_by_id_and_on_disconnect() {
    let registry = registry();
    let conn = connected(&registry).await;
    let calls = Arc::new(CallTable::default());
    let cancelled = start(&conn, &calls, direct("slow", json!({ "ms": 5000 }), 1));
    let drained = start(&conn, &calls, direct("slow", json!({ "ms": 5000 }), 2));
    assert_eq!(calls.len(), (0, 2));
    calls.cancel(1, "user pressed stop");
    let error = parsed(&cancelled.await.expect("settled").expect_err("cancelled"));
    assert_eq!(error["code"], "ABORTED");
    assert!(error["message"].as_str().unwrap().starts_with("user pressed stop"), "{error}");
    calls.cancel(1, "again");
    calls.drain(DISCONNECTED);
    let error = parsed(&drained.await.expect("settled").expect_err("drained"));
    assert!(error["message"].as_str().unwrap().starts_with(DISCONNECTED), "{error}");
    assert_eq!(calls.len(), (0, 0));
    registry.disconnect_all().await;
}

#[tokio::test]
async fn invalid_argument_text_is_the_cores_error_and_nothing_is_sent() {
    let registry = registry();
    let conn = connected(&registry).await;
    let calls = Arc::new(CallTable::default());
    let e = tool_call::start(&conn, &calls, direct("slow", json!(null), 1).with_args("{not json"), |_| panic!("never settles")).expect_err("refused");
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
    assert!(e.to_json()["message"].as_str().unwrap().starts_with("Invalid arguments for tool slow on server fx"), "{}", e.to_json());
    assert_eq!(calls.len(), (0, 0));
    registry.disconnect_all().await;
}

#[tokio::test]
async fn the_async_path_registers_its_call_until_it_settles() {
    let registry = registry();
    let conn = registry.get("fx").expect("configured");
    let calls = Arc::new(CallTable::default());
    let options = CallOptions { call_id: Some(9), ..CallOptions::default() };
    let call = tool_call::call(&conn, &calls, "slow".into(), Some(json!({ "ms": 5000 })), options, false);
    let canceller = async {
        while calls.len().0 == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        calls.cancel(9, "enough");
    };
    let (settled, ()) = tokio::join!(call, canceller);
    let error = parsed(&settled.expect_err("cancelled"));
    assert_eq!(error["code"], "ABORTED");
    assert_eq!(calls.len(), (0, 0));
    registry.disconnect_all().await;
}

trait WithArgs {
    fn with_args(self, text: &str) -> Self;
}

impl WithArgs for DirectCall {
    fn with_args(mut self, text: &str) -> Self {
        self.args_json = text.into();
        self
    }
}

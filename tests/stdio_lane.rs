//! The stdio pipe transport's request lane against a real child process (a small Python
//! JSON-RPC responder): answers, server errors, timeouts, cancellation, a server that closes
//! its stdout while alive, and the process group ended on shutdown. And against a 2026-07-28
//! server on the official Python SDK: requests carry the session's `_meta` envelope.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mastra_mcp_native::core::config::{ServerConfig, StderrMode, StdioSpec};
use mastra_mcp_native::core::events::{EventKind, NullSink};
use mastra_mcp_native::core::handler::HandlerShared;
use mastra_mcp_native::core::transport::envelope::Envelope;
use mastra_mcp_native::core::transport::lane::{Lane, LaneError, LaneOutcome};
use mastra_mcp_native::core::transport::pipe::PipeTransport;
use mastra_mcp_native::core::transport::pipe_writer::PipeWriter;
use mastra_mcp_native::core::transport::stdio;
use rmcp::transport::Transport;

/// Answers `echo` with its params, `fail` with a JSON-RPC error, ignores `hang`, and on
/// `close_stdout` closes its stdout but stays alive. `spawn_grandchild` starts a sleeping child
/// and reports its pid.
const RESPONDER: &str = r#"
import json, os, subprocess, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue
    if method == "echo":
        out = {"jsonrpc": "2.0", "id": mid, "result": msg.get("params")}
    elif method == "fail":
        out = {"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": "bad params"}}
    elif method == "hang":
        continue
    elif method == "spawn_grandchild":
        child = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        out = {"jsonrpc": "2.0", "id": mid, "result": {"pid": child.pid}}
    elif method == "close_stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(30)
        sys.exit(0)
    else:
        continue
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

fn shared() -> Arc<HandlerShared> {
    Arc::new(HandlerShared::from_config(&ServerConfig::from_json("py", &serde_json::json!({ "command": "unused" })), Arc::new(NullSink), None))
}

/// Starts the responder and a task that keeps reading (as rmcp's service loop would).
fn start() -> (Arc<Lane>, Arc<PipeWriter>, tokio::task::JoinHandle<PipeTransport<tokio::process::ChildStdout>>) {
    let spec = StdioSpec {
        command: "python3".into(),
        args: vec!["-u".into(), "-c".into(), RESPONDER.into()],
        env: BTreeMap::new(),
        inherit_default_env: true,
        cwd: None,
        stderr: StderrMode::Inherit,
    };
    let spawned = stdio::spawn("py", &spec).expect("python3 starts");
    let mut transport = PipeTransport::over_spawned(spawned, shared());
    let writer = transport.writer();
    let lane = transport.lane();
    let reader = tokio::spawn(async move {
        while transport.receive().await.is_some() {}
        transport
    });
    (lane, writer, reader)
}

async fn request(lane: &Lane, method: &str, params: &str, timeout_ms: u64) -> LaneOutcome {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let id = lane.reserve_id();
    lane.send(
        id,
        method,
        params,
        timeout_ms,
        Box::new(move |o| {
            let _ = tx.send(o);
        }),
    )
    .expect("sent");
    tokio::time::timeout(Duration::from_secs(20), rx).await.expect("settles").expect("completed once")
}

#[tokio::test]
async fn answers_errors_and_timeouts_come_back_to_the_caller() {
    let (lane, writer, reader) = start();
    let answer = request(&lane, "echo", r#"{"message":"hi ☃"}"#, 10_000).await;
    assert_eq!(answer, Ok(r#"{"message": "hi \u2603"}"#.to_string()));

    match request(&lane, "fail", "{}", 10_000).await {
        Err(LaneError::Rpc { code, message, .. }) => assert_eq!((code, message.as_str()), (-32602, "bad params")),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }

    let started = Instant::now();
    assert_eq!(request(&lane, "hang", "{}", 300).await, Err(LaneError::Timeout { after_ms: 300 }));
    assert!(started.elapsed() < Duration::from_secs(5), "the timeout fired (took {:?})", started.elapsed());

    // A message larger than the pipe's buffer goes out partly from the caller's thread and
    // partly from the drain task, in order, with messages sent meanwhile queued behind it.
    let big = "x".repeat(1 << 20);
    let big_params = format!(r#"{{"big":"{big}"}}"#);
    let (big_answer, small_answer) = tokio::join!(request(&lane, "echo", &big_params, 20_000), request(&lane, "echo", r#"{"small":1}"#, 20_000));
    assert_eq!(big_answer, Ok(format!(r#"{{"big": "{big}"}}"#)));
    assert_eq!(small_answer, Ok(r#"{"small": 1}"#.to_string()));

    // Many requests in flight at once each get their own answer.
    let many = futures::future::join_all((0..50).map(|i| {
        let lane = lane.clone();
        async move { request(&lane, "echo", &format!(r#"{{"i":{i}}}"#), 10_000).await }
    }))
    .await;
    for (i, answer) in many.into_iter().enumerate() {
        assert_eq!(answer, Ok(format!(r#"{{"i": {i}}}"#)));
    }

    writer.close().await; // stdin EOF: the responder exits, its stdout ends
    let mut transport = reader.await.expect("reader ends");
    let _ = transport.close().await;
}

#[tokio::test]
async fn cancelling_settles_the_request_once_with_the_reason() {
    let (lane, writer, reader) = start();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let id = lane.reserve_id();
    lane.send(
        id,
        "hang",
        "{}",
        60_000,
        Box::new(move |o| {
            let _ = tx.send(o);
        }),
    )
    .expect("sent");
    assert!(lane.cancel(id, "user aborted"));
    assert!(!lane.cancel(id, "again"), "a settled request cannot be cancelled twice");
    assert_eq!(rx.await.expect("completed"), Err(LaneError::Cancelled { reason: "user aborted".into() }));
    // The lane still works after a cancellation.
    assert!(request(&lane, "echo", "{}", 10_000).await.is_ok());
    writer.close().await; // stdin EOF: the responder exits, its stdout ends
    let mut transport = reader.await.expect("reader ends");
    let _ = transport.close().await;
}

#[tokio::test]
async fn a_server_closing_its_stdout_fails_pending_requests_at_once() {
    let (lane, _writer, reader) = start();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let id = lane.reserve_id();
    lane.send(
        id,
        "hang",
        "{}",
        60_000,
        Box::new(move |o| {
            let _ = tx.send(o);
        }),
    )
    .expect("sent");
    let started = Instant::now();
    let (tx2, _rx2) = tokio::sync::oneshot::channel();
    let id2 = lane.reserve_id();
    lane.send(
        id2,
        "close_stdout",
        "{}",
        60_000,
        Box::new(move |o| {
            let _ = tx2.send(o);
        }),
    )
    .expect("sent");
    let outcome = tokio::time::timeout(Duration::from_secs(10), rx).await.expect("settles").expect("completed");
    assert!(matches!(outcome, Err(LaneError::Closed { ref detail }) if detail.contains("stdout")), "{outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "failed fast, not at the 60 s timeout");
    assert!(lane.is_closed());
    let mut transport = reader.await.expect("reader ends");
    let _ = transport.close().await;
}

#[cfg(unix)]
#[tokio::test]
async fn shutdown_ends_the_servers_grandchildren_too() {
    let (lane, writer, reader) = start();
    let answer = request(&lane, "spawn_grandchild", "{}", 10_000).await.expect("answered");
    let pid: i32 = serde_json::from_str::<serde_json::Value>(&answer).expect("json")["pid"].as_i64().expect("pid") as i32;
    // SAFETY: signal 0 only checks that the process exists.
    assert_eq!(unsafe { libc::kill(pid, 0) }, 0, "grandchild running");
    writer.close().await; // stdin EOF: the responder exits, its stdout ends
    let mut transport = reader.await.expect("reader ends");
    transport.close().await.expect("closed");
    let gone = |pid: i32| {
        // A reaped or zombie process: kill(0) fails, or /proc shows state Z.
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        !alive || status.contains("State:\tZ")
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !gone(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone(pid), "grandchild {pid} survived the shutdown");
}

/// Collects the events a transport routes (server logs, progress).
#[derive(Default)]
struct Collect(std::sync::Mutex<Vec<mastra_mcp_native::core::events::ServerEvent>>);

impl mastra_mcp_native::core::events::EventSink for Collect {
    fn emit(&self, event: mastra_mcp_native::core::events::ServerEvent) {
        if let Ok(mut events) = self.0.lock() {
            events.push(event);
        }
    }
    fn stderr(&self, _server: &str, _chunk: Vec<u8>) {}
}

/// The Python SDK fixture server (2026-07-28) over a pipe transport, with the lane's envelope
/// set or not. The venv comes from `node scripts/python-venv.mjs` (npm test provides it first).
fn start_python_sdk(envelope: Option<Envelope>) -> (Arc<Lane>, Arc<Collect>, PipeTransport<tokio::process::ChildStdout>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/py-venv/bin/python");
    assert!(python.exists(), "{} is missing: run `node scripts/python-venv.mjs` first", python.display());
    let spec = StdioSpec {
        command: python.display().to_string(),
        args: vec![root.join("__test__/fixtures/python/server.py").display().to_string(), "stdio".into()],
        env: BTreeMap::new(),
        inherit_default_env: true,
        cwd: None,
        stderr: StderrMode::Inherit,
    };
    let sink = Arc::new(Collect::default());
    let config = ServerConfig::from_json("py", &serde_json::json!({ "command": "unused" }));
    let shared = Arc::new(HandlerShared::from_config(&config, sink.clone(), None));
    let spawned = stdio::spawn("py", &spec).expect("the python SDK server starts");
    let transport = PipeTransport::over_spawned(spawned, shared);
    let lane = transport.lane();
    if let Some(envelope) = envelope {
        assert!(lane.set_envelope(envelope));
    }
    (lane, sink, transport)
}

fn modern_envelope(log_level: Option<&str>) -> Envelope {
    Envelope::new("2026-07-28", &serde_json::json!({ "name": "lane-test", "version": "1.0.0" }), &serde_json::json!({}), log_level).expect("envelope")
}

async fn request_with_meta(lane: &Lane, method: &str, params: &str, meta: Option<&str>) -> LaneOutcome {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let id = lane.reserve_id();
    lane.send_with_meta(
        id,
        method,
        params,
        meta,
        20_000,
        Box::new(move |o| {
            let _ = tx.send(o);
        }),
    )
    .expect("sent");
    tokio::time::timeout(Duration::from_secs(30), rx).await.expect("settles").expect("completed once")
}

/// Keeps reading the transport (as rmcp's service loop would) until `work` is done.
async fn while_reading<T>(transport: &mut PipeTransport<tokio::process::ChildStdout>, work: impl std::future::Future<Output = T>) -> T {
    tokio::pin!(work);
    loop {
        tokio::select! {
            out = &mut work => return out,
            message = transport.receive() => if message.is_none() { panic!("the server closed its output") },
        }
    }
}

#[tokio::test]
async fn a_2026_07_28_server_answers_lane_requests_that_carry_the_envelope() {
    let (lane, sink, mut transport) = start_python_sdk(Some(modern_envelope(Some("warning"))));
    let echo = while_reading(&mut transport, request_with_meta(&lane, "tools/call", r#"{"name":"echo","arguments":{"message":"hi"}}"#, None)).await;
    assert!(echo.as_ref().is_ok_and(|r| r.contains("Echo: hi")), "{echo:?}");

    // The caller's `_meta` rides along: progress comes back with the caller's token.
    let counted = while_reading(
        &mut transport,
        request_with_meta(&lane, "tools/call", r#"{"name":"count","arguments":{"steps":2}}"#, Some(r#"{"progressToken":"tok-1"}"#)),
    )
    .await;
    assert!(counted.as_ref().is_ok_and(|r| r.contains("counted to 2")), "{counted:?}");

    // Server logs come at and above the level the envelope asks for, and only those.
    let chatter = while_reading(&mut transport, request_with_meta(&lane, "tools/call", r#"{"name":"chatter","arguments":{}}"#, None)).await;
    assert!(chatter.as_ref().is_ok_and(|r| r.contains("chattered")), "{chatter:?}");
    let events = sink.0.lock().map(|e| e.clone()).unwrap_or_default();
    let progress: Vec<_> = events.iter().filter(|e| e.kind == EventKind::Progress).map(|e| e.payload["progressToken"].clone()).collect();
    assert_eq!(progress, vec![serde_json::json!("tok-1"); 2]);
    let levels: Vec<_> = events.iter().filter(|e| e.kind == EventKind::ServerLog).map(|e| e.payload["level"].clone()).collect();
    assert_eq!(levels, vec![serde_json::json!("warning"), serde_json::json!("error")]);
    let _ = transport.close().await;
}

#[tokio::test]
async fn without_the_envelope_a_2026_07_28_server_does_not_run_the_call() {
    let (lane, _sink, mut transport) = start_python_sdk(None);
    let outcome =
        while_reading(&mut transport, request_with_meta(&lane, "tools/call", r#"{"name":"echo","arguments":{"message":"hi"}}"#, None)).await;
    // The server refuses the request itself (no envelope: no protocol version, no client info);
    // an answer of any other kind, a crash or a timeout is a failure of this test.
    assert!(matches!(outcome, Err(LaneError::Rpc { code: -32602, .. })), "the server refused the request unrun: {outcome:?}");
    let _ = transport.close().await;
}

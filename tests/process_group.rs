//! A stdio server runs as the leader of its own process group, and ending it ends the whole
//! group: a grandchild started by `sh -c` is gone after a graceful close (even when the leader
//! exits first and leaves it behind), and at once when the transport is dropped unclosed.
#![cfg(unix)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mastra_mcp_native::core::config::{ServerConfig, ServerSpec};
use std::sync::Arc;

use mastra_mcp_native::core::events::NullSink;
use mastra_mcp_native::core::handler::HandlerShared;
use mastra_mcp_native::core::transport::pipe::PipeTransport;
use mastra_mcp_native::core::transport::stdio;
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use serde_json::json;

fn tmp(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    std::env::temp_dir().join(format!("pg-{name}-{}-{nanos}", std::process::id()))
}

/// Alive and not a zombie.
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(stat.rsplit(") ").next().and_then(|r| r.chars().next()), Some('Z') | Some('X')),
        Err(_) => !cfg!(target_os = "linux"),
    }
}

async fn wait_until(what: &str, bound: Duration, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < bound, "timed out after {bound:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn read_pid(file: &PathBuf) -> i32 {
    wait_until("the grandchild's pid file", Duration::from_secs(10), || std::fs::read_to_string(file).is_ok_and(|s| s.trim().parse::<i32>().is_ok()))
        .await;
    std::fs::read_to_string(file).unwrap_or_default().trim().parse().unwrap_or(0)
}

/// `sh -c script` as a stdio server definition.
fn sh_server(script: &str) -> ServerConfig {
    ServerConfig::from_json("grp", &json!({ "command": "sh", "args": ["-c", script] }))
}

fn spawn(config: &ServerConfig) -> PipeTransport<tokio::process::ChildStdout> {
    let Ok(ServerSpec::Stdio(spec)) = config.spec() else { panic!("a stdio spec") };
    let spawned = match stdio::spawn("grp", spec) {
        Ok(spawned) => spawned,
        Err(e) => panic!("spawn failed: {e}"),
    };
    PipeTransport::over_spawned(spawned, Arc::new(HandlerShared::from_config(config, Arc::new(NullSink), None)))
}

#[tokio::test]
async fn graceful_close_ends_a_grandchild_the_leader_left_behind() {
    let file = tmp("leftover");
    // The leader exits on stdin EOF; its background child would live on for minutes.
    let config = sh_server(&format!("sleep 300 & echo $! > {}; read _", file.display()));
    let mut transport = spawn(&config);
    let leader = transport.pid().map(|p| p as i32).unwrap_or(0);
    let grandchild = read_pid(&file).await;
    assert!(alive(leader) && alive(grandchild));
    Transport::<RoleClient>::close(&mut transport).await.ok();
    assert!(!alive(leader), "the leader is gone after close");
    wait_until("the grandchild to end", Duration::from_secs(5), || !alive(grandchild)).await;
    let _ = std::fs::remove_file(&file);
}

#[tokio::test]
async fn a_group_that_ignores_eof_and_sigterm_is_killed() {
    let file = tmp("stubborn");
    let config = sh_server(&format!("trap '' TERM; sh -c 'trap \"\" TERM; sleep 300' & echo $! > {}; while :; do sleep 1; done", file.display()));
    let mut transport = spawn(&config);
    let leader = transport.pid().map(|p| p as i32).unwrap_or(0);
    let grandchild = read_pid(&file).await;
    Transport::<RoleClient>::close(&mut transport).await.ok();
    assert!(!alive(leader));
    wait_until("the grandchild to end", Duration::from_secs(5), || !alive(grandchild)).await;
    let _ = std::fs::remove_file(&file);
}

#[tokio::test]
async fn dropping_an_unclosed_transport_kills_the_group() {
    let file = tmp("dropped");
    let config = sh_server(&format!("sleep 300 & echo $! > {}; read _", file.display()));
    let transport = spawn(&config);
    let leader = transport.pid().map(|p| p as i32).unwrap_or(0);
    let grandchild = read_pid(&file).await;
    drop(transport);
    wait_until("the group to end", Duration::from_secs(5), || !alive(leader) && !alive(grandchild)).await;
    let _ = std::fs::remove_file(&file);
}

#[tokio::test]
async fn a_missing_command_is_enoent_naming_it() {
    let config = ServerConfig::from_json("grp", &json!({ "command": "no-such-command-xyz" }));
    let Ok(ServerSpec::Stdio(spec)) = config.spec() else { panic!("a stdio spec") };
    let Err(e) = stdio::spawn("grp", spec) else { panic!("spawn must fail") };
    assert_eq!(e.message, "spawn no-such-command-xyz ENOENT");
    assert_eq!(e.server, "grp");
}

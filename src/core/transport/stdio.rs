//! stdio transport: spawns the server as the leader of its own process group, with a
//! whitelisted environment, and speaks newline-delimited JSON-RPC over its stdin/stdout.
//!
//! Spawning uses `posix_spawn` (no `pre_exec` hook, and the program is resolved against the
//! child's own `PATH` here, both of which would make std fall back to a full `fork()` of the
//! host). Shutdown ends the whole group (see `process_group`); a host that dies is covered by
//! the watchdog. We never install signal handlers in the host process.
//!
//! When the server closes its stdout, the session is over: rmcp fails the in-flight requests
//! only once `close()` has returned, so a server that can no longer answer gets no grace
//! period (SIGTERM at once, SIGKILL shortly after) and callers learn of it promptly.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

use super::process_group::{Grace, ProcessGroup};
use crate::core::config::{StderrMode, StdioSpec};
use crate::core::env::{child_environment, inherited_names};
use crate::core::error::{ErrorKind, McpError, Result};

/// Longest JSON-RPC line accepted from a server (the same cap as HTTP JSON bodies). A longer
/// line is dropped and logged by rmcp.
pub const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

/// Bound on closing our end of stdin (a write stuck on a server that does not read holds it).
const STDIN_CLOSE_BOUND: Duration = Duration::from_millis(500);

/// A running stdio server: rmcp's line transport over its pipes, plus its process group.
pub struct ChildTransport {
    io: AsyncRwTransport<RoleClient, ChildStdout, ChildStdin>,
    group: ProcessGroup,
    /// Set when the server's stdout reached EOF (or failed).
    stdout_closed: Arc<AtomicBool>,
}

impl ChildTransport {
    /// The server's pid (its process group id).
    pub fn pid(&self) -> Option<u32> {
        self.group.pid()
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = std::result::Result<(), Self::Error>> + Send + 'static {
        self.io.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.io.receive().await;
        if message.is_none() {
            self.stdout_closed.store(true, Ordering::SeqCst);
        }
        message
    }

    async fn close(&mut self) -> std::result::Result<(), Self::Error> {
        let _ = tokio::time::timeout(STDIN_CLOSE_BOUND, self.io.close()).await;
        let grace = if self.stdout_closed.load(Ordering::SeqCst) { Grace::BROKEN } else { Grace::NORMAL };
        self.group.shutdown(grace).await;
        Ok(())
    }
}

/// Spawns the child. Returns the transport and its stderr when `stderr: 'pipe'`.
pub fn spawn(server: &str, spec: &StdioSpec) -> Result<(ChildTransport, Option<ChildStderr>)> {
    let env = child_environment(inherited_names(), |k| std::env::var(k).ok(), &spec.env, spec.inherit_default_env);
    let spawn_error = |kind: std::io::ErrorKind, e: &dyn std::fmt::Display| {
        let detail = match kind {
            std::io::ErrorKind::NotFound => format!("spawn {} ENOENT", spec.command),
            std::io::ErrorKind::PermissionDenied => format!("spawn {} EACCES", spec.command),
            _ => format!("spawn {}: {e}", spec.command),
        };
        McpError::new(ErrorKind::SpawnFailed, server, detail)
    };
    let child_path = env.iter().find(|(k, _)| k.as_str() == "PATH").map(|(_, v)| v.clone()).or_else(|| std::env::var("PATH").ok());
    let program = resolve_program(&spec.command, child_path.as_deref(), spec.cwd.as_deref().map(Path::new))
        .ok_or_else(|| spawn_error(std::io::ErrorKind::NotFound, &"not found"))?;

    let mut cmd = Command::new(&program);
    #[cfg(unix)]
    cmd.arg0(&spec.command);
    cmd.args(&spec.args);
    cmd.env_clear();
    cmd.envs(env);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    cmd.kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(match spec.stderr {
        StderrMode::Inherit => Stdio::inherit(),
        StderrMode::Pipe => Stdio::piped(),
        StderrMode::Ignore => Stdio::null(),
    });
    let mut child = cmd.spawn().map_err(|e| spawn_error(e.kind(), &e))?;
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let group = ProcessGroup::new(child);
    let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
        return Err(McpError::new(ErrorKind::SpawnFailed, server, format!("spawn {}: no stdio pipes", spec.command)));
    };
    let io = AsyncRwTransport::new(stdout, stdin).with_max_line_length(MAX_LINE_BYTES);
    Ok((ChildTransport { io, group, stdout_closed: Arc::new(AtomicBool::new(false)) }, stderr))
}

/// The executable `command` names: itself when it contains a path separator, else the first
/// executable file called so in the child's `PATH` (relative entries against `cwd`), as
/// `execvp` would find it in the child. `None` when there is none.
fn resolve_program(command: &str, path: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    if command.is_empty() {
        return None;
    }
    if command.contains('/') || cfg!(windows) {
        return Some(PathBuf::from(command));
    }
    let path = path.unwrap_or("/usr/local/bin:/usr/bin:/bin");
    std::env::split_paths(path).find_map(|dir| {
        let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
        let dir = match cwd {
            Some(cwd) if dir.is_relative() => cwd.join(dir),
            _ => dir,
        };
        let candidate = dir.join(command);
        is_executable(&candidate).then_some(candidate)
    })
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_against_the_child_path() {
        let sh = resolve_program("sh", Some("/nonexistent:/bin:/usr/bin"), None).expect("sh is found");
        assert!(sh.ends_with("sh") && sh.is_absolute());
        assert_eq!(resolve_program("sh", Some("/nonexistent"), None), None);
        assert_eq!(resolve_program("./x", Some("/bin"), None), Some(PathBuf::from("./x")));
        assert_eq!(resolve_program("", Some("/bin"), None), None);
    }
}

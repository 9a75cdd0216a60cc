//! stdio transport: spawns the server as a child process with a whitelisted environment.
//!
//! Shutdown (via rmcp's `graceful_shutdown` when the service closes): close stdin, wait, SIGTERM,
//! wait, SIGKILL. On Linux the child also gets a parent-death signal so that a killed Node process
//! leaves no orphan servers; we never install signal handlers in the host process.

use std::process::Stdio;

use rmcp::transport::TokioChildProcess;
use tokio::process::{ChildStderr, Command};

use crate::core::config::{StderrMode, StdioSpec};
use crate::core::env::{child_environment, inherited_names};
use crate::core::error::{ErrorKind, McpError, Result};

/// Spawns the child. Returns the transport and its stderr when `stderr: 'pipe'`.
pub fn spawn(server: &str, spec: &StdioSpec) -> Result<(TokioChildProcess, Option<ChildStderr>)> {
    let mut cmd = Command::new(&spec.command);
    cmd.args(&spec.args);
    cmd.env_clear();
    cmd.envs(child_environment(
        inherited_names(),
        |k| std::env::var(k).ok(),
        &spec.env,
        spec.inherit_default_env,
    ));
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    cmd.kill_on_drop(true);
    set_parent_death_signal(&mut cmd);

    let stderr = match spec.stderr {
        StderrMode::Inherit => Stdio::inherit(),
        StderrMode::Pipe => Stdio::piped(),
        StderrMode::Ignore => Stdio::null(),
    };
    TokioChildProcess::builder(cmd)
        .stderr(stderr)
        .spawn()
        .map_err(|e| {
            let detail = match e.kind() {
                std::io::ErrorKind::NotFound => format!("spawn {} ENOENT", spec.command),
                std::io::ErrorKind::PermissionDenied => format!("spawn {} EACCES", spec.command),
                _ => format!("spawn {}: {e}", spec.command),
            };
            McpError::new(ErrorKind::SpawnFailed, server, detail)
        })
}

#[cfg(target_os = "linux")]
fn set_parent_death_signal(cmd: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec and only calls the
    // async-signal-safe `prctl` and `getppid`.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may already be gone between fork and prctl.
            if libc::getppid() == 1 {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_parent_death_signal(_cmd: &mut Command) {}

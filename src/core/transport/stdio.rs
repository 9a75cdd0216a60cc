//! stdio transport: spawns the server as a child process with a whitelisted environment.
//!
//! Each server leads its own process group. Shutdown (when the session closes): close stdin,
//! wait, SIGTERM to the group, wait, SIGKILL to the group. On Linux the child also gets a
//! parent-death signal so that a killed Node process leaves no orphan servers; we never install signal handlers in the host process.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::core::config::{StderrMode, StdioSpec};
use crate::core::env::{child_environment, inherited_names};
use crate::core::error::{ErrorKind, McpError, Result};

/// How long each shutdown step (stdin EOF, SIGTERM) may take before the next one.
const SHUTDOWN_STEP: Duration = Duration::from_secs(2);

/// A spawned server: its process and its pipes.
pub struct Spawned {
    pub process: ServerProcess,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: Option<ChildStderr>,
}

/// The server process (leader of its own process group on unix). Dropping it kills the group.
pub struct ServerProcess {
    child: Child,
    exited: bool,
    /// The process group (the leader's pid), kept after the leader is reaped.
    #[cfg(unix)]
    group: Option<libc::pid_t>,
}

/// Spawns the child in its own process group, with piped stdin/stdout.
pub fn spawn(server: &str, spec: &StdioSpec) -> Result<Spawned> {
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
    #[cfg(unix)]
    cmd.process_group(0);
    set_parent_death_signal(&mut cmd);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(match spec.stderr {
        StderrMode::Inherit => Stdio::inherit(),
        StderrMode::Pipe => Stdio::piped(),
        StderrMode::Ignore => Stdio::null(),
    });
    let mut child = cmd.spawn().map_err(|e| {
        let detail = match e.kind() {
            std::io::ErrorKind::NotFound => format!("spawn {} ENOENT", spec.command),
            std::io::ErrorKind::PermissionDenied => format!("spawn {} EACCES", spec.command),
            _ => format!("spawn {}: {e}", spec.command),
        };
        McpError::new(ErrorKind::SpawnFailed, server, detail)
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(McpError::new(ErrorKind::SpawnFailed, server, format!("spawn {}: no stdio pipes", spec.command)));
    };
    let stderr = child.stderr.take();
    let process = ServerProcess {
        #[cfg(unix)]
        group: child.id().map(|id| id as libc::pid_t),
        child,
        exited: false,
    };
    Ok(Spawned { process, stdin, stdout, stderr })
}

impl ServerProcess {
    /// Ends the server after its stdin was closed: wait for it to exit, then SIGTERM its group,
    /// then SIGKILL the group. Whatever of the group is left after the leader exits gets the
    /// same treatment, so grandchildren do not survive.
    pub async fn shutdown(&mut self) {
        if !self.exited && self.wait_for(SHUTDOWN_STEP).await {
            self.exited = true;
        }
        if self.exited && !self.group_alive() {
            return;
        }
        self.signal_group(Signal::Term);
        if !self.exited && self.wait_for(SHUTDOWN_STEP).await {
            self.exited = true;
        }
        let deadline = tokio::time::Instant::now() + SHUTDOWN_STEP;
        while self.group_alive() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if self.group_alive() || !self.exited {
            self.signal_group(Signal::Kill);
            let _ = self.child.start_kill();
            if self.wait_for(SHUTDOWN_STEP).await {
                self.exited = true;
            }
        }
    }

    async fn wait_for(&mut self, limit: Duration) -> bool {
        matches!(tokio::time::timeout(limit, self.child.wait()).await, Ok(Ok(_)))
    }

    #[cfg(unix)]
    fn pgid(&self) -> Option<libc::pid_t> {
        self.group
    }

    /// Whether any process of the server's group is still running.
    fn group_alive(&self) -> bool {
        #[cfg(unix)]
        {
            // SAFETY: kill with signal 0 only checks for existence.
            self.pgid().is_some_and(|pgid| unsafe { libc::kill(-pgid, 0) } == 0)
        }
        #[cfg(not(unix))]
        {
            !self.exited
        }
    }

    fn signal_group(&self, signal: Signal) {
        #[cfg(unix)]
        if let Some(pgid) = self.pgid() {
            let sig = match signal {
                Signal::Term => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // SAFETY: signals the process group we created for this server.
            unsafe {
                libc::kill(-pgid, sig);
            }
        }
        #[cfg(not(unix))]
        let _ = signal;
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.exited && !self.group_alive() {
            return;
        }
        self.signal_group(Signal::Kill);
        // `kill_on_drop` kills and reaps the leader.
    }
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

//! stdio servers: spawns the server as the leader of its own process group, with a whitelisted
//! environment and piped stdin/stdout (the line transport over them is `pipe`).
//!
//! Spawning uses `posix_spawn` (no `pre_exec` hook, and the program is resolved against the
//! child's own `PATH` here, both of which would make std fall back to a full `fork()` of the
//! host). Shutdown ends the whole group (see `process_group`); a host that dies is covered by
//! the watchdog. We never install signal handlers in the host process.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

use super::process_group::ProcessGroup;
use crate::core::config::{StderrMode, StdioSpec};
use crate::core::env::{child_environment, inherited_names};
use crate::core::error::{ErrorKind, McpError, Result};

/// A spawned server: its process group and its pipes.
pub struct Spawned {
    pub group: ProcessGroup,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: Option<ChildStderr>,
}

/// Spawns the child, leader of its own process group, with piped stdin and stdout (and stderr
/// when `stderr: 'pipe'`).
pub fn spawn(server: &str, spec: &StdioSpec) -> Result<Spawned> {
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
    Ok(Spawned { group, stdin, stdout, stderr })
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

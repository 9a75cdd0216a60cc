//! stdio servers: spawns the server as the leader of its own process group, with a whitelisted
//! environment (the MCP SDK's inherited whitelist plus the user's `env`: secrets in our own
//! environment reach a server only when passed explicitly) and piped stdin/stdout (the line
//! transport over them is `pipe`).
//!
//! Spawning uses `posix_spawn` (no `pre_exec` hook, and the program is resolved against the
//! child's own `PATH` here, both of which would make std fall back to a full `fork()` of the
//! host). Shutdown ends the whole group (see `process_group`); a host that dies is covered by
//! the watchdog. We never install signal handlers in the host process.
//!
//! On Windows the program is found the way `cmd.exe` (and Node's `cross-spawn`) would: in the
//! child's `PATH`, trying each `PATHEXT` extension, so `npx` is `npx.cmd`. A `.cmd`/`.bat` is
//! run by std through `cmd.exe /d /c` with its arguments quoted for `cmd.exe` (an argument that
//! cannot be passed safely is refused: `SpawnFailed`). The server and everything it starts run
//! in a Job Object (see `job`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

use super::process_group::ProcessGroup;
use crate::core::config::{StderrMode, StdioSpec};
use crate::core::error::{ErrorKind, McpError, Result};
use crate::core::handler::HandlerShared;

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
    // Windows variable names are case-insensitive (`Path` is common there).
    let is_path = |k: &str| if cfg!(windows) { k.eq_ignore_ascii_case("PATH") } else { k == "PATH" };
    let child_path = env.iter().find(|(k, _)| is_path(k.as_str())).map(|(_, v)| v.clone()).or_else(|| std::env::var("PATH").ok());
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

/// Pumps a child's stderr (`stderr: 'pipe'`) into the server's event sink until EOF.
pub fn forward_stderr(shared: Arc<HandlerShared>, mut stderr: ChildStderr) {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        loop {
            match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    shared.note_stderr(&buf[..n]);
                    shared.sink.stderr(&shared.server, buf[..n].to_vec());
                }
            }
        }
    });
}

// The child's environment: a short whitelist inherited from our process (the MCP SDK's
// `DEFAULT_INHERITED_ENV_VARS`), then the user's `env` on top. Secrets in the parent's
// environment never reach an MCP server unless the user passes them explicitly.
/// Variables inherited on POSIX systems.
pub const POSIX_INHERITED: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// Variables inherited on Windows.
pub const WINDOWS_INHERITED: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// The whitelist for the platform we run on.
pub fn inherited_names() -> &'static [&'static str] {
    if cfg!(windows) {
        WINDOWS_INHERITED
    } else {
        POSIX_INHERITED
    }
}

/// Computes the child's complete environment.
///
/// * `parent` looks a variable up in our own environment;
/// * whitelisted variables that are unset, or whose value starts with `()` (exported shell
///   functions), are skipped;
/// * `explicit` (the user's `env`) always wins;
/// * with `inherit_default_env == false`, only `explicit` reaches the child.
pub fn child_environment(
    names: &[&str],
    parent: impl Fn(&str) -> Option<String>,
    explicit: &BTreeMap<String, String>,
    inherit_default_env: bool,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if inherit_default_env {
        for name in names {
            if let Some(value) = parent(name) {
                if !value.starts_with("()") {
                    out.insert((*name).to_string(), value);
                }
            }
        }
    }
    for (k, v) in explicit {
        out.insert(k.clone(), v.clone());
    }
    out
}

/// The executable `command` names: itself when it contains a path separator, else the first
/// executable file called so in the child's `PATH` (relative entries against `cwd`), as
/// `execvp` would find it in the child. `None` when there is none.
#[cfg(not(windows))]
fn resolve_program(command: &str, path: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    if command.is_empty() {
        return None;
    }
    if command.contains('/') {
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

/// Windows: the file `command` names, found as `cmd.exe` finds it: a name with a directory part
/// is looked up there (relative to `cwd`), a bare name in each `PATH` entry; a name without one
/// of the `PATHEXT` extensions gets each of them in turn (`npx` → `npx.cmd`). When nothing is
/// found the command is passed on as it is, for `CreateProcess`'s own search (system
/// directories) to have its say; it fails with `NotFound` (ENOENT) there too.
#[cfg(windows)]
fn resolve_program(command: &str, path: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    if command.is_empty() {
        return None;
    }
    let pathext = std::env::var("PATHEXT").ok();
    let found = windows_candidates(command, path, pathext.as_deref())
        .into_iter()
        .map(|c| match cwd {
            Some(cwd) if c.is_relative() => cwd.join(c),
            _ => c,
        })
        .find(|c| c.is_file());
    Some(found.unwrap_or_else(|| PathBuf::from(command)))
}

/// The files `command` may be on Windows, in the order `cmd.exe` tries them (see
/// `resolve_program`). Pure, so that it is tested on every platform.
#[cfg_attr(not(windows), allow(dead_code))]
fn windows_candidates(command: &str, path: Option<&str>, pathext: Option<&str>) -> Vec<PathBuf> {
    let exts: Vec<String> = pathext
        .unwrap_or(".COM;.EXE;.BAT;.CMD")
        .split(';')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| e.starts_with('.') && e.len() > 1)
        .collect();
    let exts = if exts.is_empty() { vec![".com".into(), ".exe".into(), ".bat".into(), ".cmd".into()] } else { exts };
    let lower = command.to_ascii_lowercase();
    let names: Vec<String> = if exts.iter().any(|e| lower.ends_with(e.as_str())) {
        vec![command.to_string()]
    } else {
        exts.iter().map(|e| format!("{command}{e}")).collect()
    };
    let bytes = command.as_bytes();
    let has_dir = command.contains(['/', '\\']) || (bytes.len() >= 2 && bytes[1] == b':');
    if has_dir {
        return names.into_iter().map(PathBuf::from).collect();
    }
    let dirs = path.unwrap_or("").split(';').map(|d| d.trim().trim_matches('"')).filter(|d| !d.is_empty());
    dirs.flat_map(|d| {
        let sep = if d.ends_with(['\\', '/']) { "" } else { "\\" };
        names.iter().map(move |n| PathBuf::from(format!("{d}{sep}{n}")))
    })
    .collect()
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(all(not(unix), not(windows)))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_programs_are_found_with_pathext_like_cmd() {
        let found = windows_candidates("npx", Some(r#"C:\nodejs;;"C:\Program Files\x\""#), Some(".EXE;.CMD"));
        let found: Vec<String> = found.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        assert_eq!(found, [r"C:\nodejs\npx.exe", r"C:\nodejs\npx.cmd", r"C:\Program Files\x\npx.exe", r"C:\Program Files\x\npx.cmd"]);
        // A name that already has one of the extensions is tried as it is; PATHEXT's case does not matter.
        let found = windows_candidates("NPX.Cmd", Some(r"C:\n\"), Some(".exe;.cmd"));
        assert_eq!(found, [PathBuf::from(r"C:\n\NPX.Cmd")]);
        // A directory part: looked up there only, not in PATH.
        assert_eq!(windows_candidates(r".\run", Some(r"C:\n"), Some(".BAT")), [PathBuf::from(r".\run.bat")]);
        assert_eq!(windows_candidates("C:run", Some(r"C:\n"), Some(".EXE")), [PathBuf::from("C:run.exe")]);
        // No PATHEXT: cmd.exe's default list.
        assert_eq!(windows_candidates("x", Some("D:"), None).len(), 4);
    }

    #[cfg(unix)]
    #[test]
    fn programs_resolve_against_the_child_path() {
        let sh = resolve_program("sh", Some("/nonexistent:/bin:/usr/bin"), None).expect("sh is found");
        assert!(sh.ends_with("sh") && sh.is_absolute());
        assert_eq!(resolve_program("sh", Some("/nonexistent"), None), None);
        assert_eq!(resolve_program("./x", Some("/bin"), None), Some(PathBuf::from("./x")));
        assert_eq!(resolve_program("", Some("/bin"), None), None);
    }

    fn parent(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "PATH" => Some("/usr/bin".into()),
            "SHELL" => Some("() { evil; }".into()),
            "SECRET_KEY" => Some("hunter2".into()),
            _ => None,
        }
    }

    #[test]
    fn only_whitelisted_variables_are_inherited() {
        let env = child_environment(POSIX_INHERITED, parent, &BTreeMap::new(), true);
        assert_eq!(env.keys().collect::<Vec<_>>(), vec!["HOME", "PATH"]);
        assert!(!env.contains_key("SECRET_KEY"));
    }

    #[test]
    fn shell_functions_are_skipped() {
        let env = child_environment(POSIX_INHERITED, parent, &BTreeMap::new(), true);
        assert!(!env.contains_key("SHELL"));
    }

    #[test]
    fn explicit_env_overrides_and_extends() {
        let explicit = BTreeMap::from([("PATH".to_string(), "/opt/bin".to_string()), ("API_KEY".to_string(), "k".to_string())]);
        let env = child_environment(POSIX_INHERITED, parent, &explicit, true);
        assert_eq!(env["PATH"], "/opt/bin");
        assert_eq!(env["API_KEY"], "k");
        assert_eq!(env["HOME"], "/home/u");
    }

    #[test]
    fn without_inheritance_only_explicit_env_reaches_the_child() {
        let explicit = BTreeMap::from([("ONLY".to_string(), "1".to_string())]);
        let env = child_environment(POSIX_INHERITED, parent, &explicit, false);
        assert_eq!(env.keys().collect::<Vec<_>>(), vec!["ONLY"]);
    }

    #[test]
    fn windows_list_has_twelve_names_including_programfiles() {
        assert_eq!(WINDOWS_INHERITED.len(), 12);
        assert!(WINDOWS_INHERITED.contains(&"PROGRAMFILES"));
    }
}

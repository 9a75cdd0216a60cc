//! Ends our servers' process groups when the host process dies, however it dies (SIGKILL too).
//!
//! One small helper per host process: a `/bin/sh` loop that reads `+<pgid>` / `-<pgid>` lines
//! from a pipe whose only writer is this process. When the host dies the kernel closes the
//! pipe; the helper sees EOF and sends SIGTERM, then SIGKILL, to every group still registered.
//! Unlike a parent-death signal (`PR_SET_PDEATHSIG`, which needs a `pre_exec` hook, so a full
//! `fork()` of the host instead of `posix_spawn`, fires when the spawning *thread* ends and
//! reaches only the direct child), this keeps spawns on `posix_spawn` and reaches the whole
//! group, grandchildren included.
//!
//! The helper detaches from us (its launcher shell exits at once and is reaped here), so it is
//! not our child: it installs nothing in the host process and ignores terminal signals, so a
//! Ctrl-C to the host's group does not take it down before it has done its job. A group is
//! unregistered as soon as it is known to be empty, so a recycled group id is never signalled.

use std::collections::HashSet;
use std::io::Write;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The helper's program. Ignores INT/TERM/HUP; keeps the registered groups in `$g`.
const SCRIPT: &str = r#"exec 3<&0
{
trap '' INT TERM HUP PIPE
g=' '
while IFS= read -r l; do
  case "$l" in
    +*) g="$g${l#+} " ;;
    -*) n=' '; for p in $g; do [ "$p" = "${l#-}" ] || n="$n$p "; done; g=$n ;;
  esac
done
[ "$g" = ' ' ] && exit 0
for p in $g; do kill -s TERM -- "-$p" 2>/dev/null; done
i=0
while [ $i -lt 20 ]; do
  a=0
  for p in $g; do kill -s 0 -- "-$p" 2>/dev/null && a=1; done
  [ $a = 0 ] && exit 0
  sleep 0.1 2>/dev/null || sleep 1
  i=$((i+1))
done
for p in $g; do kill -s KILL -- "-$p" 2>/dev/null; done
} <&3 3<&- >/dev/null 2>&1 &
"#;

struct Watchdog {
    pipe: Option<ChildStdin>,
    groups: HashSet<i32>,
}

fn state() -> &'static Mutex<Watchdog> {
    static STATE: OnceLock<Mutex<Watchdog>> = OnceLock::new();
    STATE.get_or_init(|| Mutex::new(Watchdog { pipe: None, groups: HashSet::new() }))
}

fn launch() -> std::io::Result<ChildStdin> {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(SCRIPT)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let pipe = child.stdin.take().ok_or_else(|| std::io::Error::other("watchdog stdin missing"))?;
    // The launcher only starts the background loop and exits: reap it now.
    child.wait()?;
    Ok(pipe)
}

fn send(w: &mut Watchdog, line: &str) -> bool {
    match w.pipe.as_mut() {
        Some(pipe) => {
            if pipe.write_all(line.as_bytes()).is_ok() {
                return true;
            }
            w.pipe = None;
            false
        }
        None => false,
    }
}

/// Registers a process group to be ended if the host dies.
pub fn register(pgid: i32) {
    let Ok(mut w) = state().lock() else { return };
    w.groups.insert(pgid);
    if send(&mut w, &format!("+{pgid}\n")) {
        return;
    }
    // No helper yet, or it died: start one and hand it every live group.
    match launch() {
        Ok(pipe) => {
            w.pipe = Some(pipe);
            let all: String = w.groups.iter().map(|g| format!("+{g}\n")).collect();
            if !send(&mut w, &all) {
                tracing::warn!("the process-group watchdog exited at once");
            }
        }
        Err(e) => tracing::warn!("could not start the process-group watchdog: {e}"),
    }
}

/// Forgets a process group once it is empty.
pub fn unregister(pgid: i32) {
    let Ok(mut w) = state().lock() else { return };
    if w.groups.remove(&pgid) {
        send(&mut w, &format!("-{pgid}\n"));
    }
}

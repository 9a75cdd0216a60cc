//! A server process running as the leader of its own process group, and the ending of that
//! whole group: stdin EOF, a grace period, SIGTERM to the group, another, SIGKILL to the group.
//! Whatever the server started (`sh -c …`, `npx …` → node) is in the group and ends with it,
//! also when the leader itself exits first. Dropping a `ProcessGroup` that was not shut down
//! kills the group at once. While it lives, the group is registered with the watchdog, which
//! ends it if the host process dies.
//!
//! On Windows the "group" is a Job Object (see `job`): the server is assigned to a job of its
//! own right after it is spawned, everything it starts (`npx.cmd` → `cmd.exe` → `node` → …)
//! is in the job too, and the job is created with `KILL_ON_JOB_CLOSE`, so when its only handle
//! (ours) closes, on `Drop` or because the host process died however it died, Windows ends every
//! process in it. There is no SIGTERM: after stdin EOF and the grace periods the job is
//! terminated.

use std::time::Duration;

use tokio::process::Child;

#[cfg(unix)]
use super::watchdog;

/// How long each step of a graceful shutdown waits before the next, harder one.
#[derive(Debug, Clone, Copy)]
pub struct Grace {
    /// After stdin EOF, before SIGTERM.
    pub after_eof: Duration,
    /// After SIGTERM, before SIGKILL.
    pub after_term: Duration,
}

impl Grace {
    /// A server we are leaving on purpose (disconnect).
    pub const NORMAL: Grace = Grace { after_eof: Duration::from_secs(2), after_term: Duration::from_secs(2) };
    /// A server that already closed its stdout: it cannot answer any more, so do not wait on it.
    pub const BROKEN: Grace = Grace { after_eof: Duration::ZERO, after_term: Duration::from_millis(500) };
}

pub struct ProcessGroup {
    child: Child,
    /// The group id (the leader's pid), `None` once the group is known to be gone.
    pgid: Option<i32>,
    /// The Job Object the server and its descendants run in (`None` when one could not be made:
    /// then only the leader is ended).
    #[cfg(windows)]
    job: Option<super::job::Job>,
}

/// Sends `signal` to every process of group `pgid`; false when the group is empty.
#[cfg(unix)]
fn signal_group(pgid: i32, signal: libc::c_int) -> bool {
    // SAFETY: plain syscall; a negative pid addresses the process group.
    unsafe { libc::kill(-pgid, signal) == 0 }
}

#[cfg(unix)]
fn group_alive(pgid: i32) -> bool {
    signal_group(pgid, 0)
}

impl ProcessGroup {
    /// Takes ownership of a child spawned with `process_group(0)`.
    pub fn new(child: Child) -> Self {
        let pgid = child.id().and_then(|id| i32::try_from(id).ok());
        #[cfg(unix)]
        if let Some(pgid) = pgid {
            watchdog::register(pgid);
        }
        #[cfg(windows)]
        let job = match super::job::Job::containing(&child) {
            Ok(job) => Some(job),
            Err(e) => {
                tracing::warn!("stdio server {pgid:?}: no Job Object ({e}); only the server process itself will be ended");
                None
            }
        };
        ProcessGroup {
            child,
            pgid,
            #[cfg(windows)]
            job,
        }
    }

    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    pub fn pid(&self) -> Option<u32> {
        self.pgid.map(|p| p as u32)
    }

    /// Ends the group (stdin must already be closed by the caller): waits `grace.after_eof` for
    /// the leader, then SIGTERMs what is left of the group, waits `grace.after_term`, SIGKILLs.
    pub async fn shutdown(&mut self, grace: Grace) {
        let Some(pgid) = self.pgid else { return };
        // The leader first: a well-behaved server exits on stdin EOF.
        let leader_done = tokio::time::timeout(grace.after_eof, self.child.wait()).await.is_ok();
        #[cfg(unix)]
        {
            if !leader_done || group_alive(pgid) {
                signal_group(pgid, libc::SIGTERM);
                let deadline = tokio::time::Instant::now() + grace.after_term;
                // Wait for the leader (an event), then poll the rest of the group briefly.
                let _ = tokio::time::timeout_at(deadline, self.child.wait()).await;
                while group_alive(pgid) && tokio::time::Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                if group_alive(pgid) {
                    signal_group(pgid, libc::SIGKILL);
                }
            }
        }
        #[cfg(windows)]
        {
            let _ = pgid;
            match &self.job {
                Some(job) => {
                    // No SIGTERM on Windows: give what is left of the tree `after_term` to go
                    // (the server's own children see the same stdin EOF), then end the job.
                    let deadline = tokio::time::Instant::now() + grace.after_term;
                    while job.active_processes().is_some_and(|n| n > 0) && tokio::time::Instant::now() < deadline {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    if !leader_done || job.active_processes() != Some(0) {
                        job.terminate();
                    }
                }
                None if !leader_done => {
                    let _ = self.child.kill().await;
                }
                None => {}
            }
        }
        #[cfg(not(any(unix, windows)))]
        if !leader_done {
            let _ = pgid;
            let _ = self.child.kill().await;
        }
        // Reap the leader (it is dead or dying from SIGKILL).
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        self.forget();
    }

    fn forget(&mut self) {
        if let Some(_pgid) = self.pgid.take() {
            #[cfg(unix)]
            watchdog::unregister(_pgid);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if let Some(_pgid) = self.pgid {
            // Not shut down: end the whole group now. The leader is reaped by tokio
            // (`kill_on_drop` child handed to its orphan queue).
            #[cfg(unix)]
            signal_group(_pgid, libc::SIGKILL);
            #[cfg(windows)]
            if let Some(job) = &self.job {
                job.terminate();
            }
            let _ = self.child.start_kill();
            self.forget();
        }
    }
}

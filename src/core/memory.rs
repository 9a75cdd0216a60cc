//! Giving freed memory back to the system. glibc's allocator keeps the pages a freed object
//! leaves in its arenas, resident, for the next allocation; when many sessions park at once (a
//! burst of per-user clients gone quiet, `connection::park`), what their rmcp machinery held
//! stays in the process's RSS unless the allocator is asked to trim. `released` asks it, once a
//! wave of releases has settled, at most once per [`SETTLE`], on tokio's blocking pool (a trim
//! walks the arenas). Elsewhere than glibc it does nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long after the first release of a wave the trim runs (the rest of the wave joins it).
const SETTLE: Duration = Duration::from_millis(200);

static SCHEDULED: AtomicBool = AtomicBool::new(false);

/// Something large was freed (a parked session's machinery): trim the allocator once the wave settles.
pub fn released() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) || std::env::var_os("MCP_NATIVE_NO_TRIM").is_some() {
        return;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    if SCHEDULED.swap(true, Ordering::AcqRel) {
        return;
    }
    runtime.spawn(async {
        tokio::time::sleep(SETTLE).await;
        SCHEDULED.store(false, Ordering::Release);
        let _ = tokio::task::spawn_blocking(trim).await;
    });
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim only gives free pages back; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

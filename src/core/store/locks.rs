//! Locks across processes and machines, per row: one task of this process at a time (a local
//! mutex), then the database's own lock (a lease row with the holder's pid in SQLite, a
//! session advisory lock in PostgreSQL). Every wait is bounded; a holder that dies releases
//! the lock (its pid is gone, or its connection closed).

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, OwnedMutexGuard};

use super::seal::random_bytes;
use super::{hex, row_name, Backend, Inner, StoreError};

/// One mutex per row name, for the tasks of this process.
#[derive(Default)]
pub(crate) struct LocalLocks {
    cells: StdMutex<HashMap<String, Arc<Mutex<()>>>>,
}

impl LocalLocks {
    fn cell(&self, id: &str) -> Arc<Mutex<()>> {
        let mut cells = self.cells.lock().unwrap_or_else(|p| p.into_inner());
        cells.entry(id.to_string()).or_default().clone()
    }
}

/// A held lock. `release` lets it go; dropping it does too, in the background.
pub struct StoreLock {
    inner: Arc<Inner>,
    scope: String,
    key: String,
    holder: String,
    local: Option<OwnedMutexGuard<()>>,
}

/// Longest a SQLite lease lasts without its holder renewing or releasing it (a holder that is
/// alive but stuck; a dead one is seen by its pid at once).
const LEASE: Duration = Duration::from_secs(60);

pub(crate) async fn acquire(inner: Arc<Inner>, scope: &str, key: &str, wait: Duration) -> Result<StoreLock, StoreError> {
    let started = Instant::now();
    let timeout = || StoreError::LockTimeout { store: inner.name.clone(), key: row_name(scope, key), waited_ms: wait.as_millis() as u64 };
    let cell = inner.locks.cell(&format!("{scope}\u{0}{key}"));
    let local = tokio::time::timeout(wait, cell.lock_owned()).await.map_err(|_| timeout())?;
    let holder = hex(&random_bytes::<12>());
    loop {
        let held = match &inner.backend {
            Backend::Sqlite(db) => db.try_lock(scope, key, &holder, LEASE).await?,
            Backend::Postgres(db) => db.try_lock(inner.timeout, scope, key).await?,
        };
        if held {
            tracing::debug!(store = %inner.name, key, scope, "store lock taken");
            return Ok(StoreLock { inner: inner.clone(), scope: scope.into(), key: key.into(), holder, local: Some(local) });
        }
        let left = wait.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(timeout());
        }
        let jitter = u64::from(random_bytes::<1>()[0] % 40);
        tokio::time::sleep(left.min(Duration::from_millis(30 + jitter))).await;
    }
}

async fn unlock(inner: &Inner, scope: &str, key: &str, holder: &str) -> Result<(), StoreError> {
    match &inner.backend {
        Backend::Sqlite(db) => db.unlock(scope, key, holder).await,
        Backend::Postgres(db) => db.unlock(inner.timeout, scope, key).await,
    }
}

impl StoreLock {
    /// Lets the lock go (the database's first, then this process's).
    pub async fn release(mut self) -> Result<(), StoreError> {
        let result = unlock(&self.inner, &self.scope, &self.key, &self.holder).await;
        self.local.take();
        result
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let Some(local) = self.local.take() else {
            return;
        };
        let (inner, scope, key, holder) =
            (self.inner.clone(), std::mem::take(&mut self.scope), std::mem::take(&mut self.key), std::mem::take(&mut self.holder));
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = unlock(&inner, &scope, &key, &holder).await {
                    tracing::warn!("releasing a dropped store lock failed: {e}");
                }
                drop(local);
            });
        }
    }
}

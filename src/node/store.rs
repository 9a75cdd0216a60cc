//! The store for JavaScript (`createMCPStore`): a handle on the core's store, its rows as
//! strings, and its row locks as numbered handles that JavaScript releases.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::store::{Store, StoreError, StoreLock, StoreOptions};

fn to_napi(e: StoreError) -> Error {
    Error::new(Status::GenericFailure, format!("[{}] {e}", e.code()))
}

#[napi(object)]
pub struct StoreOpenOptions {
    pub secret: Option<String>,
    pub timeout_ms: Option<f64>,
}

/// An open store.
#[napi]
pub struct NativeStore {
    store: Store,
    locks: Arc<Mutex<HashMap<u32, StoreLock>>>,
    next_lock: AtomicU32,
}

impl NativeStore {
    /// The core's store (for a client that keeps what outlives the process in it).
    pub(crate) fn core(&self) -> Store {
        self.store.clone()
    }
}

#[napi]
impl NativeStore {
    /// Opens (creating or migrating) the store at `url`.
    #[napi(factory)]
    pub async fn open(url: String, options: Option<StoreOpenOptions>) -> Result<NativeStore> {
        let options = options.unwrap_or(StoreOpenOptions { secret: None, timeout_ms: None });
        let timeout = options.timeout_ms.filter(|ms| ms.is_finite() && *ms > 0.0).map(|ms| Duration::from_millis(ms as u64));
        let store = Store::open(&url, StoreOptions { secret: options.secret, timeout }).await.map_err(to_napi)?;
        Ok(NativeStore { store, locks: Default::default(), next_lock: AtomicU32::new(1) })
    }

    /// The store as errors name it (no password).
    #[napi(getter)]
    pub fn name(&self) -> String {
        self.store.name().to_string()
    }

    #[napi]
    pub async fn get(&self, scope: String, key: String) -> Result<Option<String>> {
        self.store.get(&scope, &key).await.map_err(to_napi)
    }

    #[napi]
    pub async fn set(&self, scope: String, key: String, value: String) -> Result<()> {
        self.store.set(&scope, &key, &value).await.map_err(to_napi)
    }

    #[napi]
    pub async fn delete(&self, scope: String, key: String) -> Result<()> {
        self.store.delete(&scope, &key).await.map_err(to_napi)
    }

    /// Takes the row's lock (waiting at most `waitMs`, else the store's timeout): a handle for
    /// `unlock`.
    #[napi]
    pub async fn lock(&self, scope: String, key: String, wait_ms: Option<f64>) -> Result<u32> {
        let wait = wait_ms.filter(|ms| ms.is_finite() && *ms >= 0.0).map(|ms| Duration::from_millis(ms as u64));
        let lock = self.store.lock(&scope, &key, wait).await.map_err(to_napi)?;
        let id = self.next_lock.fetch_add(1, Ordering::Relaxed);
        self.locks.lock().unwrap_or_else(|p| p.into_inner()).insert(id, lock);
        Ok(id)
    }

    /// Releases a lock `lock` returned (once; an unknown handle is ignored).
    #[napi]
    pub async fn unlock(&self, id: u32) -> Result<()> {
        let lock = self.locks.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        match lock {
            Some(lock) => lock.release().await.map_err(to_napi),
            None => Ok(()),
        }
    }
}

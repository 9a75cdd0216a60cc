//! The store: what outlives a process (OAuth credentials and the client's registration), in a
//! real database shared by every process of an app. `file:PATH` is SQLite (one machine, nothing
//! to run), `postgres://…` is PostgreSQL (many machines). Values are sealed at rest
//! (`seal`); keys are partitioned by scope (a user or tenant id), so one scope's rows are never
//! read through another's. `lock` is a per-key lock across processes and machines, for work
//! that must happen once (a refresh with rotating refresh tokens, a client registration).

mod error;
mod locks;
mod postgres;
mod seal;
mod sqlite;

use std::sync::Arc;
use std::time::Duration;

pub use error::StoreError;
pub use locks::StoreLock;
use seal::{random_bytes, Sealer, CHECK_PLAINTEXT};

/// The schema this build writes and reads. A store of a later one is refused, never changed.
pub const SCHEMA_VERSION: i64 = 1;
/// The scope of the check value that tells a wrong secret.
const META_SCOPE: &str = "\u{0}meta";
/// How long a store operation retries an unreachable database, unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the rows live.
pub(crate) enum Backend {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// How to open a store.
#[derive(Debug, Clone, Default)]
pub struct StoreOptions {
    /// The secret the encryption key is derived from. Required for a network store; a file
    /// store without one keeps a random key in `PATH.key` (0600).
    pub secret: Option<String>,
    /// Bound on retrying an unreachable database and on waiting for a lock.
    pub timeout: Option<Duration>,
}

pub struct Store {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// The store as errors name it (a database URL without its password).
    pub(crate) name: String,
    pub(crate) backend: Backend,
    sealer: Sealer,
    pub(crate) timeout: Duration,
    pub(crate) locks: locks::LocalLocks,
}

impl Clone for Store {
    fn clone(&self) -> Self {
        Store { inner: self.inner.clone() }
    }
}

impl Store {
    /// Opens (and creates or migrates) the store at `url`.
    pub async fn open(url: &str, options: StoreOptions) -> Result<Store, StoreError> {
        let timeout = options.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let (name, backend, secret) = if let Some(path) = url.strip_prefix("file:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(StoreError::InvalidUrl { url: url.into(), reason: "file: needs a path (file:./mcp.db)".into() });
            }
            let name = format!("file:{path}");
            let secret = match options.secret {
                Some(s) => s.into_bytes(),
                None => sqlite::key_beside(&name, path)?,
            };
            (name, Backend::Sqlite(sqlite::Sqlite::open(path, &format!("file:{path}"), timeout).await?), secret)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let name = postgres::redacted(url);
            let Some(secret) = options.secret else {
                return Err(StoreError::SecretRequired { store: name });
            };
            (name.clone(), Backend::Postgres(postgres::Postgres::open(url, &name, timeout).await?), secret.into_bytes())
        } else {
            return Err(StoreError::InvalidUrl {
                url: postgres::redacted(url),
                reason: "use file:PATH (SQLite) or postgres://… (PostgreSQL)".into(),
            });
        };
        if secret.is_empty() {
            return Err(StoreError::SecretRequired { store: name });
        }
        let version = backend.schema_version(&name).await?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema { store: name, found: version, supported: SCHEMA_VERSION });
        }
        let salt_hex = backend.meta_init(&name, "kdf_salt", &hex(&random_bytes::<16>())).await?;
        let salt = unhex(&salt_hex).ok_or_else(|| StoreError::Corrupt { store: name.clone(), key: "kdf_salt".into() })?;
        let sealer = Sealer::new(&secret, &salt);
        let check = hex(&sealer.seal(META_SCOPE, "key_check", CHECK_PLAINTEXT));
        let stored = backend.meta_init(&name, "key_check", &check).await?;
        let opens = unhex(&stored).and_then(|b| sealer.open(META_SCOPE, "key_check", &b).ok());
        if opens.as_deref() != Some(CHECK_PLAINTEXT) {
            return Err(StoreError::WrongSecret { store: name });
        }
        Ok(Store { inner: Arc::new(Inner { name, backend, sealer, timeout, locks: Default::default() }) })
    }

    /// The store as errors name it.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The value at `key` in `scope`, opened.
    pub async fn get(&self, scope: &str, key: &str) -> Result<Option<String>, StoreError> {
        let inner = &self.inner;
        let Some(sealed) = inner.backend.get(inner, scope, key).await? else {
            return Ok(None);
        };
        let plain = inner.sealer.open(scope, key, &sealed).map_err(|_| inner.unreadable(scope, key))?;
        String::from_utf8(plain).map(Some).map_err(|_| inner.unreadable(scope, key))
    }

    /// Writes `value` at `key` in `scope` (one transaction: a process killed meanwhile leaves
    /// the previous value).
    pub async fn set(&self, scope: &str, key: &str, value: &str) -> Result<(), StoreError> {
        let sealed = self.inner.sealer.seal(scope, key, value.as_bytes());
        self.inner.backend.put(&self.inner, scope, key, sealed).await
    }

    pub async fn delete(&self, scope: &str, key: &str) -> Result<(), StoreError> {
        self.inner.backend.delete(&self.inner, scope, key).await
    }

    /// Takes the lock on `key` in `scope`, waiting at most `wait` (the store's timeout when
    /// `None`). Held until `StoreLock::release`; a process that dies holding it releases it.
    pub async fn lock(&self, scope: &str, key: &str, wait: Option<Duration>) -> Result<StoreLock, StoreError> {
        locks::acquire(self.inner.clone(), scope, key, wait.unwrap_or(self.inner.timeout)).await
    }
}

impl Inner {
    fn unreadable(&self, scope: &str, key: &str) -> StoreError {
        StoreError::Unreadable { store: self.name.clone(), key: row_name(scope, key) }
    }
}

/// A row as errors name it.
pub(crate) fn row_name(scope: &str, key: &str) -> String {
    if scope.is_empty() {
        key.to_string()
    } else {
        format!("{key} (scope {scope})")
    }
}

impl Backend {
    async fn schema_version(&self, name: &str) -> Result<i64, StoreError> {
        let found = self.meta_init(name, "schema_version", &SCHEMA_VERSION.to_string()).await?;
        found.parse().map_err(|_| StoreError::Corrupt { store: name.into(), key: "schema_version".into() })
    }

    /// Writes `value` under `name` unless one is there; returns the one that is.
    async fn meta_init(&self, _store: &str, name: &str, value: &str) -> Result<String, StoreError> {
        match self {
            Backend::Sqlite(db) => db.meta_init(name, value).await,
            Backend::Postgres(db) => db.meta_init(name, value).await,
        }
    }

    async fn get(&self, inner: &Inner, scope: &str, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self {
            Backend::Sqlite(db) => db.get(scope, key).await,
            Backend::Postgres(db) => db.get(inner.timeout, scope, key).await,
        }
    }

    async fn put(&self, inner: &Inner, scope: &str, key: &str, value: Vec<u8>) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(db) => db.put(scope, key, value).await,
            Backend::Postgres(db) => db.put(inner.timeout, scope, key, value).await,
        }
    }

    async fn delete(&self, inner: &Inner, scope: &str, key: &str) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(db) => db.delete(scope, key).await,
            Backend::Postgres(db) => db.delete(inner.timeout, scope, key).await,
        }
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

#[cfg(test)]
mod tests;

//! The store in a SQLite file (WAL): one machine, nothing to run. Every statement runs on a
//! blocking thread, never on the runtime's; writers wait for each other at most the store's
//! timeout. The file and its key file are created 0600.

use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::seal::random_bytes;
use super::{hex, StoreError};

pub(crate) struct Sqlite {
    name: String,
    conn: Arc<StdMutex<Connection>>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mcp_store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mcp_store_entries (
  scope TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, updated_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key));
CREATE TABLE IF NOT EXISTS mcp_store_locks (
  scope TEXT NOT NULL, key TEXT NOT NULL, holder TEXT NOT NULL, host TEXT NOT NULL,
  pid INTEGER NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (scope, key));
";

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Creates `path` readable by its owner only, unless it exists.
fn create_private(path: &str) -> std::io::Result<()> {
    if let Some(dir) = std::path::Path::new(path).parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).map(drop)
}

/// The key of a file store opened without a secret: random, in `PATH.key` (0600), made by the
/// first process that needs it (atomically: a second one reads the first one's).
pub(crate) fn key_beside(name: &str, path: &str) -> Result<Vec<u8>, StoreError> {
    let key_path = format!("{path}.key");
    let io = |e: std::io::Error| StoreError::Database { store: name.into(), detail: format!("its key file {key_path}: {e}") };
    if let Ok(text) = std::fs::read_to_string(&key_path) {
        let key = text.trim();
        if key.len() < 32 {
            return Err(StoreError::Corrupt { store: name.into(), key: key_path.clone() });
        }
        return Ok(key.as_bytes().to_vec());
    }
    let fresh = hex(&random_bytes::<32>());
    let tmp = format!("{key_path}.{}.tmp", std::process::id());
    create_private(&tmp).map_err(io)?;
    std::fs::write(&tmp, &fresh).map_err(io)?;
    let linked = std::fs::hard_link(&tmp, &key_path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(fresh.into_bytes()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => key_beside(name, path),
        Err(e) => Err(io(e)),
    }
}

/// This machine's name, to tell our lock holders' pids from another machine's.
fn host() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer outlives the call and its length is passed.
        if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0 {
            let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
            return String::from_utf8_lossy(&buf[..end]).into_owned();
        }
    }
    String::new()
}

/// Whether process `pid` of this machine is alive.
fn alive(pid: i64) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists.
        if unsafe { libc::kill(pid, 0) } == 0 {
            return true;
        }
        std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

impl Sqlite {
    pub(crate) async fn open(path: &str, name: &str, timeout: Duration) -> Result<Sqlite, StoreError> {
        let (path, owned_name) = (path.to_string(), name.to_string());
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection, StoreError> {
            let db = |e: rusqlite::Error| StoreError::Database { store: owned_name.clone(), detail: e.to_string() };
            create_private(&path).map_err(|e| StoreError::Database { store: owned_name.clone(), detail: format!("cannot create {path}: {e}") })?;
            let conn = Connection::open(&path).map_err(db)?;
            conn.busy_timeout(timeout).map_err(db)?;
            let _mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(db)?;
            conn.execute_batch("PRAGMA synchronous=NORMAL;").map_err(db)?;
            conn.execute_batch(SCHEMA).map_err(db)?;
            Ok(conn)
        })
        .await
        .map_err(|e| StoreError::Database { store: name.into(), detail: e.to_string() })??;
        Ok(Sqlite { name: name.into(), conn: Arc::new(StdMutex::new(conn)) })
    }

    /// Runs `f` on the connection, on a blocking thread.
    async fn run<T: Send + 'static>(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static) -> Result<T, StoreError> {
        let (conn, name) = (self.conn.clone(), self.name.clone());
        let fail = |detail: String| StoreError::Database { store: name.clone(), detail };
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut conn)
        })
        .await
        .map_err(|e| fail(e.to_string()))?
        .map_err(|e| fail(e.to_string()))
    }

    pub(crate) async fn meta_init(&self, name: &str, value: &str) -> Result<String, StoreError> {
        let (name, value) = (name.to_string(), value.to_string());
        self.run(move |c| {
            c.execute("INSERT OR IGNORE INTO mcp_store_meta (name, value) VALUES (?1, ?2)", params![name, value])?;
            c.query_row("SELECT value FROM mcp_store_meta WHERE name = ?1", params![name], |r| r.get(0))
        })
        .await
    }

    pub(crate) async fn get(&self, scope: &str, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let (scope, key) = (scope.to_string(), key.to_string());
        self.run(move |c| {
            c.query_row("SELECT value FROM mcp_store_entries WHERE scope = ?1 AND key = ?2", params![scope, key], |r| r.get(0)).optional()
        })
        .await
    }

    pub(crate) async fn put(&self, scope: &str, key: &str, value: Vec<u8>) -> Result<(), StoreError> {
        let (scope, key) = (scope.to_string(), key.to_string());
        self.run(move |c| {
            c.execute(
                "INSERT INTO mcp_store_entries (scope, key, value, updated_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                params![scope, key, value, now_ms()],
            )
            .map(drop)
        })
        .await
    }

    pub(crate) async fn delete(&self, scope: &str, key: &str) -> Result<(), StoreError> {
        let (scope, key) = (scope.to_string(), key.to_string());
        self.run(move |c| c.execute("DELETE FROM mcp_store_entries WHERE scope = ?1 AND key = ?2", params![scope, key]).map(drop)).await
    }

    /// Takes the lease on a row unless a live holder has it (an expired lease, or one whose
    /// holder's process on this machine is gone, is taken over).
    pub(crate) async fn try_lock(&self, scope: &str, key: &str, holder: &str, lease: Duration) -> Result<bool, StoreError> {
        let (scope, key, holder) = (scope.to_string(), key.to_string(), holder.to_string());
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let current: Option<(String, i64, i64)> = tx
                .query_row("SELECT host, pid, expires_at FROM mcp_store_locks WHERE scope = ?1 AND key = ?2", params![scope, key], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .optional()?;
            let me = host();
            let free = match current {
                None => true,
                Some((their_host, pid, expires_at)) => expires_at <= now_ms() || (their_host == me && !alive(pid)),
            };
            if free {
                tx.execute(
                    "INSERT OR REPLACE INTO mcp_store_locks (scope, key, holder, host, pid, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![scope, key, holder, me, i64::from(std::process::id()), now_ms() + lease.as_millis() as i64],
                )?;
            }
            tx.commit()?;
            Ok(free)
        })
        .await
    }

    pub(crate) async fn unlock(&self, scope: &str, key: &str, holder: &str) -> Result<(), StoreError> {
        let (scope, key, holder) = (scope.to_string(), key.to_string(), holder.to_string());
        self.run(move |c| {
            c.execute("DELETE FROM mcp_store_locks WHERE scope = ?1 AND key = ?2 AND holder = ?3", params![scope, key, holder]).map(drop)
        })
        .await
    }
}

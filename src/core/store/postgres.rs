//! The store in PostgreSQL: many processes on many machines. One connection per store (TLS when
//! the server offers it or the URL asks for it, verified against the platform's roots),
//! reconnected when it breaks: an operation retries an unreachable database until the store's
//! timeout. The row lock is a session advisory lock, so a process that dies releases it when
//! its connection closes.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::Mutex;
use tokio_postgres::{Client, Config};

use super::StoreError;

pub(crate) struct Postgres {
    name: String,
    config: Config,
    client: Mutex<Option<Arc<Client>>>,
}

/// Serialises the schema's creation between processes starting together.
const SCHEMA_LOCK: i64 = 0x6d63_7073_746f_7265;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mcp_store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mcp_store_entries (
  scope TEXT NOT NULL, key TEXT NOT NULL, value BYTEA NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (scope, key));
";

/// The URL as errors name it: without its password.
pub(crate) fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            u.to_string()
        }
        Err(_) => url.split('@').next_back().map(|host| format!("postgres://…@{host}")).unwrap_or_default(),
    }
}

/// The advisory lock id of a row.
fn lock_id(scope: &str, key: &str) -> i64 {
    let digest = Sha256::new().chain_update(b"mastra-mcp-native\0").chain_update(scope).chain_update([0]).chain_update(key).finalize();
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(id)
}

fn tls() -> Result<tokio_postgres_rustls::MakeRustlsConnect, String> {
    use rustls_platform_verifier::ConfigVerifierExt;
    let config = rustls::ClientConfig::with_platform_verifier().map_err(|e| format!("TLS set-up: {e}"))?;
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

impl Postgres {
    pub(crate) async fn open(url: &str, name: &str, timeout: Duration) -> Result<Postgres, StoreError> {
        let config: Config = url.parse().map_err(|e| StoreError::InvalidUrl { url: name.into(), reason: format!("{e}") })?;
        let db = Postgres { name: name.into(), config, client: Mutex::new(None) };
        db.retrying(
            timeout,
            |c| async move { c.batch_execute(&format!("BEGIN; SELECT pg_advisory_xact_lock({SCHEMA_LOCK}); {SCHEMA} COMMIT;")).await },
        )
        .await?;
        Ok(db)
    }

    async fn connect(&self) -> Result<Arc<Client>, String> {
        let mut slot = self.client.lock().await;
        if let Some(c) = slot.as_ref().filter(|c| !c.is_closed()) {
            return Ok(c.clone());
        }
        let (client, connection) = self.config.connect(tls()?).await.map_err(|e| e.to_string())?;
        let name = self.name.clone();
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(store = %name, "store connection ended: {e}");
            }
        });
        let client = Arc::new(client);
        *slot = Some(client.clone());
        Ok(client)
    }

    /// Runs `op`, reconnecting and trying again while the database is unreachable, for at most
    /// `timeout`. An error the database answered is returned at once.
    async fn retrying<T, F, Fut>(&self, timeout: Duration, op: F) -> Result<T, StoreError>
    where
        F: Fn(Arc<Client>) -> Fut,
        Fut: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        let started = Instant::now();
        let mut pause = Duration::from_millis(50);
        loop {
            let failure = match tokio::time::timeout(timeout, self.connect()).await {
                Ok(Ok(client)) => match op(client.clone()).await {
                    Ok(v) => return Ok(v),
                    Err(e) if e.is_closed() || e.as_db_error().is_none() && client.is_closed() => e.to_string(),
                    Err(e) => return Err(StoreError::Database { store: self.name.clone(), detail: e.to_string() }),
                },
                Ok(Err(e)) => e,
                Err(_) => format!("no connection within {} ms", timeout.as_millis()),
            };
            *self.client.lock().await = None;
            if started.elapsed() + pause >= timeout {
                return Err(StoreError::Unreachable { store: self.name.clone(), detail: failure });
            }
            tracing::debug!(store = %self.name, "store unreachable, trying again: {failure}");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    pub(crate) async fn meta_init(&self, name: &str, value: &str) -> Result<String, StoreError> {
        self.retrying(Duration::from_secs(10), |c| async move {
            c.execute("INSERT INTO mcp_store_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", &[&name, &value]).await?;
            c.query_one("SELECT value FROM mcp_store_meta WHERE name = $1", &[&name]).await?.try_get(0)
        })
        .await
    }

    pub(crate) async fn get(&self, timeout: Duration, scope: &str, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.retrying(timeout, |c| async move {
            match c.query_opt("SELECT value FROM mcp_store_entries WHERE scope = $1 AND key = $2", &[&scope, &key]).await? {
                Some(row) => row.try_get(0).map(Some),
                None => Ok(None),
            }
        })
        .await
    }

    pub(crate) async fn put(&self, timeout: Duration, scope: &str, key: &str, value: Vec<u8>) -> Result<(), StoreError> {
        let value = &value;
        self.retrying(timeout, |c| async move {
            c.execute(
                "INSERT INTO mcp_store_entries (scope, key, value, updated_at) VALUES ($1, $2, $3, now())
                 ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                &[&scope, &key, value],
            )
            .await
            .map(drop)
        })
        .await
    }

    pub(crate) async fn delete(&self, timeout: Duration, scope: &str, key: &str) -> Result<(), StoreError> {
        self.retrying(timeout, |c| async move {
            c.execute("DELETE FROM mcp_store_entries WHERE scope = $1 AND key = $2", &[&scope, &key]).await.map(drop)
        })
        .await
    }

    pub(crate) async fn try_lock(&self, timeout: Duration, scope: &str, key: &str) -> Result<bool, StoreError> {
        let id = lock_id(scope, key);
        self.retrying(timeout, |c| async move { c.query_one("SELECT pg_try_advisory_lock($1)", &[&id]).await?.try_get(0) }).await
    }

    pub(crate) async fn unlock(&self, timeout: Duration, scope: &str, key: &str) -> Result<(), StoreError> {
        let id = lock_id(scope, key);
        self.retrying(timeout, |c| async move { c.query_one("SELECT pg_advisory_unlock($1)", &[&id]).await.map(drop) }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_never_show_the_password() {
        assert_eq!(redacted("postgres://app:hunter2@db.example.com:5432/mcp"), "postgres://app:***@db.example.com:5432/mcp");
        assert_eq!(redacted("postgres://db.example.com/mcp"), "postgres://db.example.com/mcp");
    }

    #[test]
    fn each_row_has_its_own_lock_id() {
        assert_ne!(lock_id("a", "oauth:x:tokens"), lock_id("b", "oauth:x:tokens"));
        assert_ne!(lock_id("", "a\u{0}b"), lock_id("a", "b"), "the scope and key are separated");
        assert_eq!(lock_id("a", "k"), lock_id("a", "k"));
    }
}

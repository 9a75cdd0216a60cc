//! The SQLite store against real files in a temporary folder (PostgreSQL is driven by the node
//! suites, against a real server they start).

use super::*;
use std::path::PathBuf;

fn temp_db(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("mcp-store-{}-{name}-{}", std::process::id(), hex(&random_bytes::<4>())));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("store.db");
    let url = format!("file:{}", path.display());
    (dir, url)
}

fn with_secret(secret: &str) -> StoreOptions {
    StoreOptions { secret: Some(secret.into()), timeout: Some(Duration::from_secs(2)) }
}

#[tokio::test]
async fn values_round_trip_sealed_and_scopes_never_meet() {
    let (dir, url) = temp_db("roundtrip");
    let store = Store::open(&url, with_secret("s3cret")).await.unwrap();
    store.set("alice", "oauth:github:tokens", r#"{"access_token":"alice-token"}"#).await.unwrap();
    store.set("bob", "oauth:github:tokens", r#"{"access_token":"bob-token"}"#).await.unwrap();
    assert_eq!(store.get("alice", "oauth:github:tokens").await.unwrap().as_deref(), Some(r#"{"access_token":"alice-token"}"#));
    assert_eq!(store.get("bob", "oauth:github:tokens").await.unwrap().as_deref(), Some(r#"{"access_token":"bob-token"}"#));
    assert_eq!(store.get("carol", "oauth:github:tokens").await.unwrap(), None);
    let bytes = std::fs::read(dir.join("store.db")).unwrap();
    let wal = std::fs::read(dir.join("store.db-wal")).unwrap_or_default();
    for file in [&bytes, &wal] {
        assert!(!file.windows(11).any(|w| w == b"alice-token"), "tokens are not in the file in the clear");
    }
    store.delete("alice", "oauth:github:tokens").await.unwrap();
    assert_eq!(store.get("alice", "oauth:github:tokens").await.unwrap(), None);
    assert!(store.get("bob", "oauth:github:tokens").await.unwrap().is_some(), "another scope's row stays");
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(unix)]
#[tokio::test]
async fn a_file_store_without_a_secret_keeps_its_own_key_and_both_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, url) = temp_db("keyfile");
    let store = Store::open(&url, StoreOptions::default()).await.unwrap();
    store.set("", "k", "v").await.unwrap();
    drop(store);
    for file in ["store.db", "store.db.key"] {
        let mode = std::fs::metadata(dir.join(file)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{file} is 0600");
    }
    let again = Store::open(&url, StoreOptions::default()).await.unwrap();
    assert_eq!(again.get("", "k").await.unwrap().as_deref(), Some("v"), "a second process reads with the same key");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_wrong_secret_is_refused_and_changes_nothing() {
    let (dir, url) = temp_db("wrong");
    let store = Store::open(&url, with_secret("right")).await.unwrap();
    store.set("", "oauth:tokens", "kept").await.unwrap();
    let err = Store::open(&url, with_secret("wrong")).await.err().expect("a wrong secret fails");
    assert!(matches!(err, StoreError::WrongSecret { .. }), "{err}");
    assert!(err.to_string().contains(&url), "the error names the store: {err}");
    let again = Store::open(&url, with_secret("right")).await.unwrap();
    assert_eq!(again.get("", "oauth:tokens").await.unwrap().as_deref(), Some("kept"));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_corrupt_row_is_an_error_naming_it_and_is_left_as_it_is() {
    let (dir, url) = temp_db("corrupt");
    let store = Store::open(&url, with_secret("s")).await.unwrap();
    store.set("u1", "oauth:tokens", "good").await.unwrap();
    let raw = rusqlite::Connection::open(dir.join("store.db")).unwrap();
    raw.execute("UPDATE mcp_store_entries SET value = x'0102030405' WHERE key = 'oauth:tokens'", []).unwrap();
    let err = store.get("u1", "oauth:tokens").await.err().expect("a corrupt row fails");
    let text = err.to_string();
    assert!(text.contains("oauth:tokens") && text.contains("u1") && text.contains(&url), "{text}");
    let left: Vec<u8> = raw.query_row("SELECT value FROM mcp_store_entries WHERE key = 'oauth:tokens'", [], |r| r.get(0)).unwrap();
    assert_eq!(left, vec![1, 2, 3, 4, 5], "nothing was overwritten or dropped");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_store_of_a_newer_schema_is_refused_untouched() {
    let (dir, url) = temp_db("newer");
    drop(Store::open(&url, with_secret("s")).await.unwrap());
    let raw = rusqlite::Connection::open(dir.join("store.db")).unwrap();
    raw.execute("UPDATE mcp_store_meta SET value = '7' WHERE name = 'schema_version'", []).unwrap();
    let err = Store::open(&url, with_secret("s")).await.err().expect("a newer schema fails");
    assert!(matches!(err, StoreError::NewerSchema { found: 7, .. }), "{err}");
    let version: String = raw.query_row("SELECT value FROM mcp_store_meta WHERE name = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, "7");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_lock_is_held_against_another_opener_until_released_and_waits_are_bounded() {
    let (dir, url) = temp_db("lock");
    let (a, b) = (Store::open(&url, with_secret("s")).await.unwrap(), Store::open(&url, with_secret("s")).await.unwrap());
    let held = a.lock("u", "oauth:github:tokens", None).await.unwrap();
    let err = b.lock("u", "oauth:github:tokens", Some(Duration::from_millis(200))).await.err().expect("held elsewhere");
    assert!(matches!(err, StoreError::LockTimeout { .. }), "{err}");
    let other_scope = b.lock("v", "oauth:github:tokens", Some(Duration::from_millis(200))).await.expect("another scope's row is free");
    other_scope.release().await.unwrap();
    let waiting = tokio::spawn({
        let b = b.clone();
        async move { b.lock("u", "oauth:github:tokens", Some(Duration::from_secs(5))).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    held.release().await.unwrap();
    waiting.await.unwrap().expect("taken once released").release().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_lock_whose_holder_process_is_gone_is_taken_over_at_once() {
    let (dir, url) = temp_db("dead");
    let store = Store::open(&url, with_secret("s")).await.unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = child.id();
    child.wait().unwrap();
    let raw = rusqlite::Connection::open(dir.join("store.db")).unwrap();
    raw.execute(
        "INSERT INTO mcp_store_locks (scope, key, holder, host, pid, expires_at) VALUES ('u', 'k', 'gone', ?1, ?2, ?3)",
        rusqlite::params![sqlite_host(), dead_pid, i64::MAX],
    )
    .unwrap();
    store.lock("u", "k", Some(Duration::from_millis(500))).await.expect("a dead holder's lease is taken over").release().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

fn sqlite_host() -> String {
    let out = std::process::Command::new("hostname").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test]
async fn urls_other_than_file_and_postgres_and_network_stores_without_a_secret_are_refused() {
    let err = Store::open("redis://localhost", StoreOptions::default()).await.err().unwrap();
    assert!(matches!(err, StoreError::InvalidUrl { .. }), "{err}");
    let err = Store::open("postgres://app:pw@127.0.0.1:1/db", StoreOptions::default()).await.err().unwrap();
    assert!(matches!(err, StoreError::SecretRequired { .. }), "{err}");
    assert!(!err.to_string().contains("pw@"), "the password is not shown: {err}");
}

//! What a process learned about a server, kept in the client's store for the next process (a
//! serverless invocation, a worker started per job): the handshake-era session a parked session
//! would keep (`connection::carry`); a 2026-07-28 server's era and its `server/discover` answer
//! (the answer while its `ttlMs` allows); and the tool catalog while the user allows it
//! (`toolsCacheTtlMs`) or its 2026-07-28 cache hint does (the list's `ttlMs`). With no store
//! configured nothing is kept and nothing changes.
//!
//! Entries are per store scope (the `MCPStore`'s: a user or tenant), per server URL and per
//! credentials' identity (a SHA-256 of the configured headers, never the headers): an entry
//! written for one bearer token is never read with another. A server whose credentials are not
//! all in its headers (OAuth, a custom `fetch`) keeps nothing here. The store seals every value.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::{BoxFuture, FutureExt};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::watch;

use super::config::{ServerConfig, ServerSpec};
use super::connection::{carry_error, server_has, Carry, Connection, Live};
use super::era::{self, known};
use super::error::Result;
use super::handler::{HandlerShared, MODERN_PROTOCOL_VERSION};
use super::lists::list_all_hinted;
use super::store::Store;

/// The entry of a server's kept tool catalog.
pub const TOOLS_ENTRY: &str = "tools";
/// The entry of a server's era (a 2026-07-28 server) and its `server/discover` answer.
pub const ERA_ENTRY: &str = "era";
/// How long a request waits for the face to open the store.
const STORE_WAIT: Duration = Duration::from_secs(30);

#[derive(Clone)]
enum Decision {
    /// No store: nothing is kept.
    Unset,
    /// The face is opening one.
    Pending,
    Ready(Store, String),
    Failed(String),
}

/// The client's store and scope, once the face has opened it (shared by its servers).
pub struct WarmSlot(watch::Sender<Decision>);

impl Default for WarmSlot {
    fn default() -> Self {
        WarmSlot(watch::channel(Decision::Unset).0)
    }
}

impl WarmSlot {
    /// A store is being opened: requests wait for it (bounded) before they connect.
    pub fn expect(&self) {
        self.0.send_if_modified(|d| {
            let unset = matches!(d, Decision::Unset);
            if unset {
                *d = Decision::Pending;
            }
            unset
        });
    }

    /// The store is open; entries go in `scope`.
    pub fn ready(&self, store: Store, scope: String) {
        self.0.send_replace(Decision::Ready(store, scope));
    }

    /// The store could not be opened: requests that need it fail with `message`.
    pub fn failed(&self, message: String) {
        self.0.send_replace(Decision::Failed(message));
    }

    fn in_use(&self) -> bool {
        !matches!(&*self.0.borrow(), Decision::Unset)
    }

    async fn store(&self, server: &str) -> Result<Option<(Store, String)>> {
        let mut rx = self.0.subscribe();
        let decided = match tokio::time::timeout(STORE_WAIT, rx.wait_for(|d| !matches!(d, Decision::Pending))).await {
            Err(_) => return Err(carry_error(server, format!("the MCP store did not open within {} s", STORE_WAIT.as_secs()))),
            Ok(Err(_)) => return Ok(None),
            Ok(Ok(d)) => d.clone(),
        };
        match decided {
            Decision::Ready(store, scope) => Ok(Some((store, scope))),
            Decision::Failed(message) => Err(carry_error(server, message)),
            Decision::Unset | Decision::Pending => Ok(None),
        }
    }
}

/// One server's entries in the store (see the module).
struct StoreCarry {
    slot: Arc<WarmSlot>,
    server: String,
    prefix: String,
    /// This process's session started from the era entry the store holds: nothing to write.
    era_seeded: Arc<AtomicBool>,
}

/// The carry of a server that may keep entries: a Streamable HTTP server whose credentials are
/// all in its configured headers.
pub fn carry_for(config: &ServerConfig, slot: &Arc<WarmSlot>) -> Option<Arc<dyn Carry>> {
    let Ok(ServerSpec::Http(spec)) = &config.spec else { return None };
    if spec.oauth || spec.custom_fetch {
        return None;
    }
    let prefix = format!("mcp:{}:{}:", spec.url.as_str(), credentials_key(&spec.headers));
    Some(Arc::new(StoreCarry { slot: slot.clone(), server: config.name.clone(), prefix, era_seeded: Default::default() }))
}

/// The identity of the credentials a server's requests carry: a SHA-256 of its headers (names
/// in lower case, sorted), never the headers themselves.
fn credentials_key(headers: &[(String, String)]) -> String {
    let mut sorted: Vec<(String, &str)> = headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.as_str())).collect();
    sorted.sort();
    let digest = Sha256::digest(serde_json::to_string(&sorted).unwrap_or_default().as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

impl StoreCarry {
    fn op<T: Send + 'static>(
        &self,
        entry: &'static str,
        f: impl FnOnce(Store, String, String) -> BoxFuture<'static, std::result::Result<T, super::store::StoreError>> + Send + 'static,
        absent: T,
    ) -> BoxFuture<'static, Result<T>> {
        let (slot, server, key) = (self.slot.clone(), self.server.clone(), format!("{}{entry}", self.prefix));
        async move {
            let Some((store, scope)) = slot.store(&server).await? else { return Ok(absent) };
            f(store, scope, key).await.map_err(|e| carry_error(&server, format!("[{}] {e}", e.code())))
        }
        .boxed()
    }
}

impl Carry for StoreCarry {
    fn get(&self, entry: &'static str) -> BoxFuture<'static, Result<Option<String>>> {
        self.op(entry, |store, scope, key| async move { store.get(&scope, &key).await }.boxed(), None)
    }

    fn set(&self, entry: &'static str, value: String) -> BoxFuture<'static, Result<()>> {
        self.op(entry, move |store, scope, key| async move { store.set(&scope, &key, &value).await }.boxed(), ())
    }

    fn delete(&self, entry: &'static str) -> BoxFuture<'static, Result<()>> {
        self.op(entry, |store, scope, key| async move { store.delete(&scope, &key).await }.boxed(), ())
    }

    fn session_replaced(&self) -> BoxFuture<'static, Result<()>> {
        self.delete(TOOLS_ENTRY)
    }

    fn in_use(&self) -> bool {
        self.slot.in_use()
    }

    fn opening(&self, shared: Arc<HandlerShared>) -> BoxFuture<'static, Result<()>> {
        let read = self.get(ERA_ENTRY);
        let seeded = self.era_seeded.clone();
        async move {
            let Some(text) = read.await? else { return Ok(()) };
            let Ok(kept) = serde_json::from_str::<Value>(&text) else {
                return Err(carry_error(&shared.server, format!("the kept era of {} is not JSON", shared.server)));
            };
            if kept.get("era").and_then(Value::as_str) != Some(MODERN_PROTOCOL_VERSION) {
                return Ok(());
            }
            era::remember(&shared, true);
            let fresh = kept.get("freshUntil").and_then(Value::as_u64).is_some_and(|until| now_ms() < until);
            let answer = kept.get("discover").filter(|_| fresh);
            let taken = answer.is_some_and(|answer| known::seed_answer(&shared, answer));
            seeded.store(taken || answer.is_none() && kept.get("discover").is_none_or(Value::is_null), Ordering::SeqCst);
            Ok(())
        }
        .boxed()
    }

    fn opened_modern(&self, shared: Arc<HandlerShared>) -> BoxFuture<'static, Result<()>> {
        if self.era_seeded.swap(true, Ordering::SeqCst) {
            // What the store holds is what this session started from.
            return futures::future::ready(Ok(())).boxed();
        }
        let (answer, ttl) = known::answer_of(&shared).map_or((Value::Null, 0), |(a, ttl)| (a, ttl));
        let value = if ttl > 0 {
            json!({ "era": MODERN_PROTOCOL_VERSION, "discover": answer, "freshUntil": now_ms().saturating_add(ttl) })
        } else {
            json!({ "era": MODERN_PROTOCOL_VERSION, "discover": null })
        };
        self.set(ERA_ENTRY, value.to_string())
    }
}

/// Installs the store's side of a connection: a `list_changed` it hears drops the kept catalog
/// for every process.
pub fn watch_tool_changes(conn: &Connection) {
    let Some(carry) = conn.carry_installed().cloned() else { return };
    let server = conn.name().to_string();
    let _ = conn.shared().on_tools_changed.set(Arc::new(move || {
        if !carry.in_use() {
            return;
        }
        let (carry, server) = (carry.clone(), server.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = carry.delete(TOOLS_ENTRY).await {
                    tracing::warn!(server = %server, "the kept tool catalog could not be dropped: {}", e.message);
                }
            });
        }
    }));
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The server a catalog was listed from: its URL's session answer (`serverInfo`, revision).
fn identity(live: &Live) -> Value {
    let info = live.peer().peer_info();
    json!({
        "serverInfo": info.as_ref().and_then(|i| i.server_info.as_ref()).and_then(|s| serde_json::to_value(s).ok()),
        "protocolVersion": live.protocol_version,
    })
}

/// The server's tool catalog (its raw tool texts): the kept one while the user allows its reuse
/// and it is of this server (same `serverInfo` and revision); else listed (`tools/list`, every
/// page; nothing when the server has no tools) and kept for as long as the user allows
/// (`toolsCacheTtlMs`) or else its 2026-07-28 cache hint does (the list's `ttlMs`).
pub async fn tool_catalog(conn: &Connection, live: &Live, meta: Option<&Value>) -> Result<Vec<String>> {
    let server = identity(live);
    // Nothing but the user's word keeps a handshake-era catalog fresh across processes.
    let carry = conn.carry().filter(|_| conn.config().tools_cache_ttl_ms.is_some() || live.is_modern());
    if let Some(text) = match &carry {
        Some(carry) => carry.get(TOOLS_ENTRY).await?,
        None => None,
    } {
        let Ok(kept) = serde_json::from_str::<Value>(&text) else {
            return Err(carry_error(conn.name(), format!("the kept tool catalog of {} is not JSON", conn.name())));
        };
        let fresh = kept.get("freshUntil").and_then(Value::as_u64).is_some_and(|until| now_ms() < until);
        if let Some(tools) = kept.get("tools").and_then(Value::as_array).filter(|_| fresh && kept.get("server") == Some(&server)) {
            conn.shared().diagnostic("debug", "Tool list from the store (toolsCacheTtlMs)");
            return Ok(tools.iter().map(Value::to_string).collect());
        }
    }
    if !server_has(live, "tools") {
        return Ok(Vec::new());
    }
    let (raw, hint) = list_all_hinted(conn, "tools/list", "tools", meta).await?;
    let ttl = conn.config().tools_cache_ttl_ms.or(hint).filter(|ttl| *ttl > 0);
    if let (Some(carry), Some(ttl)) = (carry, ttl) {
        let tools: Vec<Value> = raw.iter().filter_map(|t| serde_json::from_str(t).ok()).collect();
        let value = json!({ "server": server, "freshUntil": now_ms().saturating_add(ttl), "tools": tools });
        if let Err(e) = carry.set(TOOLS_ENTRY, value.to_string()).await {
            conn.shared().diagnostic("warn", format!("The tool list could not be kept in the store: {}", e.message));
        }
    }
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_keyed_by_a_hash_that_differs_per_token_and_not_per_order_or_case() {
        let alice = credentials_key(&[("Authorization".into(), "Bearer alice".into()), ("X-A".into(), "1".into())]);
        let same = credentials_key(&[("x-a".into(), "1".into()), ("authorization".into(), "Bearer alice".into())]);
        let bob = credentials_key(&[("Authorization".into(), "Bearer bob".into()), ("X-A".into(), "1".into())]);
        assert_eq!(alice, same);
        assert_ne!(alice, bob);
        assert!(!alice.contains("alice"));
    }
}

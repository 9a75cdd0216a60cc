//! Many servers at once: lookup by name, fan-out in parallel with per-server results and
//! durations, and shutdown of everything.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::auth::{AuthProvider, OAuthSession};
use super::config::{ServerConfig, ServerSpec, DEFAULT_REQUEST_TIMEOUT_MS};
use super::connection::Connection;
use super::error::{ErrorKind, McpError, Result};
use super::events::{ElicitationResponder, EventSink};
use super::features;
use super::net::reqwest_backend::ReqwestBackend;
use super::net::{HostPolicy, NetClient, SharedBackend};
use super::open::Remote;
use super::warm::{self, WarmSlot};

/// Builds one server's HTTP backend.
pub type BackendFactory = Arc<dyn Fn() -> SharedBackend + Send + Sync>;

/// What the host (the node layer) plugs into the core: how HTTP is sent (reqwest, or a custom
/// `fetch` per server) and the OAuth provider of servers that have one.
pub struct HostPorts {
    /// Builds the HTTP backend of one `url` server (by default over the process's shared
    /// connection pool: credentials ride each request, never the connection).
    pub http: BackendFactory,
    pub custom_fetch: Option<Arc<dyn Fn(&str) -> SharedBackend + Send + Sync>>,
    pub auth_provider: Option<Arc<dyn Fn(&str) -> Arc<dyn AuthProvider> + Send + Sync>>,
}

impl HostPorts {
    /// reqwest only, no OAuth.
    pub fn reqwest() -> Result<Self> {
        // The shared reqwest client itself is built on the process's first request.
        let http: BackendFactory = Arc::new(|| Arc::new(ReqwestBackend::shared()) as SharedBackend);
        Ok(HostPorts { http, custom_fetch: None, auth_provider: None })
    }

    /// `config`, or one whose server fails on first use, naming what the host did not plug in: a
    /// server with a custom `fetch` or an OAuth provider never goes out over the built-in client
    /// instead (the host makes those bridges only for clients that need them).
    fn checked(&self, mut config: ServerConfig) -> ServerConfig {
        let missing = match &config.spec {
            Ok(ServerSpec::Http(spec)) if spec.custom_fetch && self.custom_fetch.is_none() => "fetch",
            Ok(ServerSpec::Http(spec)) if spec.oauth && self.auth_provider.is_none() => "authProvider",
            _ => return config,
        };
        config.spec = Err(McpError::invalid_config(&config.name, format!("internal: the host gave no {missing} bridge for server {}", config.name)));
        config
    }

    /// The HTTP client (and OAuth session) of a `url` server.
    fn remote_for(&self, config: &ServerConfig) -> Option<Remote> {
        let Ok(ServerSpec::Http(spec)) = &config.spec else { return None };
        let backend = match (&self.custom_fetch, spec.custom_fetch) {
            (Some(make), true) => make(&config.name),
            _ => (self.http)(),
        };
        let policy = match &spec.allowed_hosts {
            Some(hosts) => HostPolicy::allow_only(hosts.clone()),
            None => HostPolicy::allow_all(),
        };
        let net = NetClient::new(backend, policy, spec.headers.clone());
        let oauth = match (&self.auth_provider, spec.oauth) {
            (Some(make), true) => Some(Arc::new(OAuthSession::new(&config.name, spec.url.clone(), make(&config.name), net.clone()))),
            _ => None,
        };
        Some(Remote { net, oauth })
    }
}

/// One server's outcome in a fan-out.
pub struct ServerOutcome<T> {
    pub server: String,
    pub result: Result<T>,
    pub duration_ms: f64,
}

pub struct Registry {
    /// Config order, which results are folded in.
    order: Vec<String>,
    servers: HashMap<String, Arc<Connection>>,
    /// The store the servers keep what outlives the process in, once the face opened it.
    warm: Arc<WarmSlot>,
}

impl Registry {
    /// Builds connections for every server definition. Only a non-object `servers` fails here;
    /// individual bad definitions fail when that server is used.
    pub fn new(
        servers: &Value,
        default_timeout_ms: Option<u64>,
        sink: Arc<dyn EventSink>,
        responder: Option<Arc<dyn ElicitationResponder>>,
        ports: &HostPorts,
    ) -> Result<Self> {
        let Some(defs) = servers.as_object() else {
            return Err(McpError::invalid_config("", "MCPClient options must include \"servers\": an object mapping server names to definitions."));
        };
        let timeout = default_timeout_ms.unwrap_or(DEFAULT_REQUEST_TIMEOUT_MS);
        let mut order = Vec::with_capacity(defs.len());
        let mut map = HashMap::with_capacity(defs.len());
        let slot = Arc::new(WarmSlot::default());
        for (name, def) in defs {
            let config = ports.checked(ServerConfig::from_json(name, def));
            let remote = ports.remote_for(&config);
            let carry = warm::carry_for(&config, &slot);
            order.push(name.clone());
            let conn = Connection::new(config, timeout, sink.clone(), responder.clone(), remote).with_layers(features::layers()).with_carry(carry);
            warm::watch_tool_changes(&conn);
            map.insert(name.clone(), Arc::new(conn));
        }
        Ok(Registry { order, servers: map, warm: slot })
    }

    /// Where the servers keep what outlives the process (see `warm`).
    pub fn warm(&self) -> &Arc<WarmSlot> {
        &self.warm
    }

    pub fn names(&self) -> &[String] {
        &self.order
    }

    pub fn get(&self, name: &str) -> Result<Arc<Connection>> {
        self.servers.get(name).cloned().ok_or_else(|| McpError::unknown_server(name))
    }

    /// Runs `op` on every server in parallel; results come back in config order. With
    /// `per_server_timeout_ms`, a server that takes longer is reported as timed out and its work
    /// is cancelled (dropped), unlike the anchor which leaves it running.
    pub async fn fan_out<T, F, Fut>(&self, per_server_timeout_ms: Option<u64>, op: F) -> Vec<ServerOutcome<T>>
    where
        F: Fn(Arc<Connection>) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let tasks = self.order.iter().map(|name| {
            let conn = self.servers[name].clone();
            let fut = op(conn);
            async move {
                let started = Instant::now();
                let result = match per_server_timeout_ms {
                    Some(ms) => match tokio::time::timeout(Duration::from_millis(ms), fut).await {
                        Ok(r) => r,
                        Err(_) => Err(McpError::new(ErrorKind::Timeout, name.as_str(), format!("Discovery timed out after {ms}ms"))),
                    },
                    None => fut.await,
                };
                ServerOutcome { server: name.clone(), result, duration_ms: started.elapsed().as_secs_f64() * 1000.0 }
            }
        });
        futures::future::join_all(tasks).await
    }

    /// Closes every session in parallel.
    pub async fn disconnect_all(&self) {
        futures::future::join_all(self.servers.values().map(|c| {
            let c = c.clone();
            async move { c.disconnect().await }
        }))
        .await;
    }

    /// `{ server: sessionId }` for connected Streamable HTTP servers (a server that is busy
    /// connecting right now is left out).
    pub fn session_ids(&self) -> Value {
        let mut out = Map::new();
        for name in &self.order {
            if let Some(id) = self.servers[name].session_id_now() {
                out.insert(name.clone(), Value::String(id));
            }
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_needing_a_bridge_the_host_did_not_give_fails_on_use_and_never_goes_out_unasked() {
        let ports = HostPorts::reqwest().expect("ports");
        for (key, named) in [("customFetch", "fetch"), ("oauth", "authProvider")] {
            let def = serde_json::json!({ "url": "http://127.0.0.1:1/mcp", key: true });
            let config = ports.checked(ServerConfig::from_json("s", &def));
            let error = config.spec.expect_err("refused");
            assert_eq!(error.kind, ErrorKind::InvalidConfig);
            assert!(error.message.contains(named), "{}", error.message);
        }
        let plain = ports.checked(ServerConfig::from_json("s", &serde_json::json!({ "url": "http://127.0.0.1:1/mcp" })));
        assert!(plain.spec.is_ok());
    }
}

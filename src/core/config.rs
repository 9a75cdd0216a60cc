//! Server definitions: the JSON a user (through the JS face) hands us, validated into a
//! `ServerSpec`. Validation never fails the whole client: a bad definition is kept as an error
//! and reported the first time that server is used, naming the server and the field.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::error::{McpError, Result};
use super::tool_names::ToolFilter;

/// Where a stdio child's stderr goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StderrMode {
    Inherit,
    Pipe,
    Ignore,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub inherit_default_env: bool,
    pub cwd: Option<PathBuf>,
    pub stderr: StderrMode,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpSpec {
    pub url: url::Url,
    pub headers: Vec<(String, String)>,
    pub connect_timeout_ms: u64,
    /// `allowedHosts`: `None` allows every host.
    pub allowed_hosts: Option<Vec<String>>,
    /// Requests go through the user's JS `fetch`.
    pub custom_fetch: bool,
    /// The server has an OAuth client provider (`authProvider`).
    pub oauth: bool,
}

/// The transport a server definition selects.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSpec {
    Stdio(StdioSpec),
    Http(HttpSpec),
}

/// Default wait for the Streamable HTTP handshake, as in `@mastra/mcp`.
pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 3_000;
/// Default per-request timeout (the MCP SDK's `DEFAULT_REQUEST_TIMEOUT_MSEC`).
pub const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 60_000;
/// Default wait for the OAuth redirect to reach the loopback callback server (5 minutes): an
/// `authenticate()` without a `timeout`, and the callback server's `waitForCode`.
pub const DEFAULT_OAUTH_CALLBACK_TIMEOUT_MS: u64 = 300_000;
/// What a cancelled request reports when its canceller gave no reason (the DOM's `AbortError`).
pub const DEFAULT_ABORT_REASON: &str = "This operation was aborted";
/// Whether a tool call carries a progress token when the server's `enableProgressTracking` is
/// not given.
pub const DEFAULT_PROGRESS_TRACKING: bool = true;

/// One configured server: its validated transport (or why it is unusable) plus the
/// transport-independent options.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub name: String,
    pub spec: std::result::Result<ServerSpec, McpError>,
    /// Per-server request timeout; falls back to the client's global timeout.
    pub timeout_ms: Option<u64>,
    pub enable_server_logs: bool,
    /// `preferTasks`: tools whose `execution.taskSupport` is `optional` run as tasks too
    /// (2025-11-25 tasks; in 2026-07-28 the server decides).
    pub prefer_tasks: bool,
    /// `serverLogLevel`: the lowest server log level a 2026-07-28 request asks for.
    pub server_log_level: Option<String>,
    /// The `version` our `clientInfo` reports (set by InternalMastraMCPClient).
    pub client_version: Option<String>,
    /// Advertise the elicitation capability at connect time.
    pub elicitation: bool,
    /// Extra client capabilities from the user (`capabilities` option), spread into ours.
    pub capabilities: Map<String, Value>,
    /// Roots answered to `roots/list`.
    pub roots: Vec<Value>,
    /// `protocolVersion`: unset or `'auto'`, 2026-07-28 where the server supports it and the
    /// handshake otherwise; `'2026-07-28'` pins it; `'legacy'` or a handshake revision pins the
    /// `initialize` handshake.
    pub protocol_version: Option<String>,
    /// `tools: { include, exclude }`: which of the server's tools the client offers.
    pub tool_filter: ToolFilter,
    /// `resetTimeoutOnProgress`: whether a progress notification for a request moves its deadline
    /// (unset: whenever the request tracks progress).
    pub reset_timeout_on_progress: Option<bool>,
    /// `maxTotalTimeout`: the longest a request may live however much progress it reports (unset:
    /// `MAX_TOTAL_TIMEOUT_FACTOR` times its timeout).
    pub max_total_timeout_ms: Option<u64>,
    /// `toolsCacheTtlMs`: the user allows a listed catalog to be reused for this long without
    /// asking the server (across processes, with a store).
    pub tools_cache_ttl_ms: Option<u64>,
}

/// `maxTotalTimeout`, when not given, is this many times the request's timeout.
pub const MAX_TOTAL_TIMEOUT_FACTOR: u64 = 10;

impl ServerConfig {
    /// Parses one server definition. Never fails: problems end up in `spec`.
    pub fn from_json(name: &str, def: &Value) -> ServerConfig {
        let empty = Map::new();
        let obj = def.as_object().unwrap_or(&empty);
        let spec = if def.is_object() {
            parse_spec(name, obj)
        } else {
            Err(McpError::invalid_config(name, format!("Server definition for \"{name}\" must be an object.")))
        };
        let timeout_ms = obj.get("timeout").and_then(positive_ms);
        let protocol_version = obj.get("protocolVersion").filter(|v| !v.is_null());
        let spec = match protocol_version {
            Some(v) if !v.as_str().is_some_and(valid_protocol_version) => Err(McpError::invalid_config(
                name,
                format!(
                    "Server \"{name}\": protocolVersion must be 'auto', '2026-07-28', 'legacy' or a handshake \
                     revision ('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'); got {v}"
                ),
            )),
            _ => spec,
        };
        let spec = match obj.get("serverLogLevel").filter(|v| !v.is_null()) {
            Some(v) if !v.as_str().is_some_and(|l| LOG_LEVELS.contains(&l)) => {
                Err(McpError::invalid_config(name, format!("Server \"{name}\": serverLogLevel must be one of {}; got {v}", LOG_LEVELS.join(", "))))
            }
            _ => spec,
        };
        let (tool_filter, spec) = match tool_filter_of(name, obj.get("tools")) {
            Ok(filter) => (filter, spec),
            Err(e) => (ToolFilter::default(), spec.and(Err(e))),
        };
        ServerConfig {
            name: name.to_string(),
            spec,
            timeout_ms,
            enable_server_logs: obj.get("enableServerLogs").and_then(Value::as_bool).unwrap_or(true),
            prefer_tasks: obj.get("preferTasks").and_then(Value::as_bool).unwrap_or(false),
            server_log_level: obj.get("serverLogLevel").and_then(Value::as_str).map(str::to_string),
            client_version: obj.get("clientVersion").and_then(Value::as_str).filter(|v| !v.is_empty()).map(str::to_string),
            elicitation: obj.get("elicitation").and_then(Value::as_bool).unwrap_or(false)
                || obj.get("capabilities").and_then(|c| c.get("elicitation")).is_some_and(|e| !e.is_null()),
            capabilities: obj.get("capabilities").and_then(Value::as_object).cloned().unwrap_or_default(),
            roots: obj.get("roots").and_then(Value::as_array).cloned().unwrap_or_default(),
            protocol_version: obj.get("protocolVersion").and_then(Value::as_str).map(str::to_string),
            tool_filter,
            reset_timeout_on_progress: obj.get("resetTimeoutOnProgress").and_then(Value::as_bool),
            max_total_timeout_ms: obj.get("maxTotalTimeout").and_then(positive_ms),
            tools_cache_ttl_ms: obj.get("toolsCacheTtlMs").and_then(positive_ms),
        }
    }

    /// How long a request of `timeout_ms` that tracks progress (`tracks_progress`) may live when
    /// it reports progress: `Some(maxTotalTimeout)` when each progress notification for it moves
    /// its deadline to now + `timeout_ms` (`resetTimeoutOnProgress`, on by default whenever progress
    /// is tracked), never past that from its start; `None` when progress moves nothing.
    /// `call_max_total_ms`: a bound given for this one call, over the server's.
    pub fn progress_bound(&self, timeout_ms: u64, tracks_progress: bool, call_max_total_ms: Option<u64>) -> Option<u64> {
        if !tracks_progress || !self.reset_timeout_on_progress.unwrap_or(true) {
            return None;
        }
        let max = call_max_total_ms.or(self.max_total_timeout_ms).unwrap_or_else(|| timeout_ms.saturating_mul(MAX_TOTAL_TIMEOUT_FACTOR));
        // Never shorter than the timeout: a call without progress keeps that bound.
        Some(max.max(timeout_ms).min(MAX_TIMEOUT_MS))
    }

    /// The validated transport, or the stored validation error.
    pub fn spec(&self) -> Result<&ServerSpec> {
        self.spec.as_ref().map_err(Clone::clone)
    }
}

/// `tools: { include?: string[], exclude?: string[] }` of a server definition.
fn tool_filter_of(name: &str, tools: Option<&Value>) -> Result<ToolFilter> {
    let Some(tools) = tools.filter(|v| !v.is_null()) else { return Ok(ToolFilter::default()) };
    let bad = |field: &str| {
        McpError::invalid_config(
            name,
            format!("Server \"{name}\": tools.{field} must be an array of strings (tool names, `*` matching any run of characters)"),
        )
    };
    let Some(obj) = tools.as_object() else {
        return Err(McpError::invalid_config(
            name,
            format!("Server \"{name}\": tools must be an object {{ include?: string[], exclude?: string[] }}"),
        ));
    };
    let list = |field: &str| -> Result<Option<Vec<String>>> {
        match obj.get(field).filter(|v| !v.is_null()) {
            None => Ok(None),
            Some(Value::Array(items)) => {
                items.iter().map(|i| i.as_str().map(str::to_string).ok_or_else(|| bad(field))).collect::<Result<Vec<_>>>().map(Some)
            }
            Some(_) => Err(bad(field)),
        }
    };
    Ok(ToolFilter { include: list("include")?, exclude: list("exclude")?.unwrap_or_default() })
}

/// The MCP log levels, lowest first.
const LOG_LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// `protocolVersion`: `'auto'`, the stateless revision, `'legacy'` (the handshake, as
/// `@mastra/mcp` 2.0 spells it) or a revision of the handshake.
fn valid_protocol_version(v: &str) -> bool {
    matches!(v, "auto" | "2026-07-28" | "legacy" | "2025-11-25" | "2025-06-18" | "2025-03-26" | "2024-11-05")
}

/// Longest wait we represent (about 34 years): larger timeouts are clamped, so that deadlines
/// computed from them never overflow.
pub const MAX_TIMEOUT_MS: u64 = 1 << 40;

/// A positive, finite number of milliseconds, clamped to `MAX_TIMEOUT_MS`.
pub fn positive_ms_f64(n: f64) -> Option<u64> {
    (n.is_finite() && n > 0.0).then(|| (n as u64).min(MAX_TIMEOUT_MS))
}

fn positive_ms(v: &Value) -> Option<u64> {
    v.as_f64().and_then(positive_ms_f64)
}

fn parse_spec(name: &str, obj: &Map<String, Value>) -> Result<ServerSpec> {
    if let Some(options) = obj.get("unsupported").and_then(Value::as_array).filter(|a| !a.is_empty()) {
        let names: Vec<&str> = options.iter().filter_map(Value::as_str).collect();
        return Err(McpError::invalid_config(
            name,
            format!(
                "Server \"{name}\" uses options this version of mastra-mcp-native does not support yet: {}. \
                 They are refused rather than ignored so that no policy or credential is silently dropped.",
                names.join(", ")
            ),
        ));
    }
    let has = |k: &str| obj.get(k).is_some_and(|v| !v.is_null());
    match (has("command"), has("url")) {
        (false, false) => Err(McpError::invalid_config(name, "Server configuration must include either a command or a url.")),
        (true, true) => {
            Err(McpError::invalid_config(name, format!("Server \"{name}\" has both \"command\" and \"url\"; configure exactly one transport.")))
        }
        (true, false) => parse_stdio(name, obj).map(ServerSpec::Stdio),
        (false, true) => parse_http(name, obj).map(ServerSpec::Http),
    }
}

fn field_error(name: &str, field: &str, expected: &str) -> McpError {
    McpError::invalid_config(name, format!("Invalid configuration for server \"{name}\": \"{field}\" must be {expected}."))
}

fn parse_stdio(name: &str, obj: &Map<String, Value>) -> Result<StdioSpec> {
    let command = match obj.get("command") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => return Err(field_error(name, "command", "a non-empty string")),
    };
    let args = match obj.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|a| match a {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(field_error(name, "args", "an array of strings")),
            })
            .collect::<Result<_>>()?,
        Some(_) => return Err(field_error(name, "args", "an array of strings")),
    };
    let env = match obj.get("env") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(m)) => m
            .iter()
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some(Ok((k.clone(), s.clone()))),
                Value::Number(n) => Some(Ok((k.clone(), n.to_string()))),
                Value::Bool(b) => Some(Ok((k.clone(), b.to_string()))),
                // `undefined` values vanish in JSON; an explicit null is skipped like Node does.
                Value::Null => None,
                _ => Some(Err(field_error(name, "env", "an object of string values"))),
            })
            .collect::<Result<_>>()?,
        Some(_) => return Err(field_error(name, "env", "an object of string values")),
    };
    let inherit_default_env = match obj.get("inheritDefaultEnv") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(field_error(name, "inheritDefaultEnv", "a boolean")),
    };
    let cwd = match obj.get("cwd") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(PathBuf::from(s)),
        Some(_) => return Err(field_error(name, "cwd", "a string")),
    };
    let stderr = match obj.get("stderr") {
        None | Some(Value::Null) => StderrMode::Inherit,
        Some(Value::String(s)) => match s.as_str() {
            "inherit" => StderrMode::Inherit,
            "pipe" | "overlapped" => StderrMode::Pipe,
            "ignore" => StderrMode::Ignore,
            _ => return Err(field_error(name, "stderr", "\"inherit\", \"pipe\" or \"ignore\"")),
        },
        Some(_) => return Err(field_error(name, "stderr", "\"inherit\", \"pipe\" or \"ignore\"")),
    };
    Ok(StdioSpec { command, args, env, inherit_default_env, cwd, stderr })
}

fn parse_http(name: &str, obj: &Map<String, Value>) -> Result<HttpSpec> {
    let raw = match obj.get("url") {
        Some(Value::String(s)) => s,
        _ => return Err(field_error(name, "url", "a URL or a string")),
    };
    let url = url::Url::parse(raw).map_err(|e| {
        McpError::invalid_config(name, format!("Invalid configuration for server \"{name}\": \"url\" is not a valid URL ({e}): {raw}"))
    })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(McpError::invalid_config(
            name,
            format!("Invalid configuration for server \"{name}\": \"url\" must use http or https, got {}:", url.scheme()),
        ));
    }
    let headers = match obj.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m.iter().filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string()))).collect(),
        Some(_) => return Err(field_error(name, "requestInit.headers", "an object of strings")),
    };
    let connect_timeout_ms = obj.get("connectTimeout").and_then(positive_ms).unwrap_or(DEFAULT_CONNECT_TIMEOUT_MS);
    let allowed_hosts = match obj.get("allowedHosts") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|h| h.as_str().map(str::to_string).ok_or_else(|| field_error(name, "allowedHosts", "an array of host strings")))
                .collect::<Result<Vec<_>>>()?,
        ),
        Some(_) => return Err(field_error(name, "allowedHosts", "an array of host strings")),
    };
    let custom_fetch = obj.get("customFetch").and_then(Value::as_bool).unwrap_or(false);
    let oauth = obj.get("oauth").and_then(Value::as_bool).unwrap_or(false);
    Ok(HttpSpec { url, headers, connect_timeout_ms, allowed_hosts, custom_fetch, oauth })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err_of(def: Value) -> String {
        ServerConfig::from_json("srv", &def).spec.unwrap_err().message
    }

    #[test]
    fn neither_command_nor_url_is_rejected_with_the_anchor_text() {
        assert_eq!(err_of(json!({})), "Server configuration must include either a command or a url.");
    }

    #[test]
    fn both_command_and_url_is_rejected_naming_the_server() {
        let m = err_of(json!({"command": "node", "url": "http://127.0.0.1:1/mcp"}));
        assert!(m.contains("\"srv\"") && m.contains("both"), "{m}");
    }

    #[test]
    fn wrong_types_name_the_field() {
        assert!(err_of(json!({"command": 42})).contains("\"command\""));
        assert!(err_of(json!({"command": "node", "args": "x"})).contains("\"args\""));
        assert!(err_of(json!({"command": "node", "env": {"A": [1]}})).contains("\"env\""));
        assert!(err_of(json!({"command": "node", "stderr": "loud"})).contains("\"stderr\""));
        assert!(err_of(json!({"url": 42})).contains("\"url\""));
        assert!(err_of(json!({"url": "not a url"})).contains("not a valid URL"));
        assert!(err_of(json!({"url": "ftp://x/y"})).contains("http or https"));
        assert!(err_of(json!("nope")).contains("must be an object"));
        assert!(err_of(json!({"url": "http://h/mcp", "unsupported": ["allowedHosts"]})).contains("allowedHosts"));
    }

    #[test]
    fn stdio_definition_is_parsed() {
        let cfg = ServerConfig::from_json(
            "fs",
            &json!({"command": "node", "args": ["a", 1], "env": {"K": "v", "N": null},
                    "inheritDefaultEnv": false, "cwd": "/tmp", "stderr": "pipe", "timeout": 1500}),
        );
        let ServerSpec::Stdio(s) = cfg.spec().unwrap() else { panic!("not stdio") };
        assert_eq!(s.args, vec!["a", "1"]);
        assert_eq!(s.env.get("K").map(String::as_str), Some("v"));
        assert!(!s.env.contains_key("N"));
        assert!(!s.inherit_default_env);
        assert_eq!(s.stderr, StderrMode::Pipe);
        assert_eq!(cfg.timeout_ms, Some(1500));
        assert_eq!(positive_ms_f64(1e300), Some(MAX_TIMEOUT_MS));
        assert_eq!(positive_ms_f64(f64::INFINITY), None);
        assert!(cfg.enable_server_logs);
    }

    #[test]
    fn http_definition_defaults_connect_timeout() {
        let cfg = ServerConfig::from_json("h", &json!({"url": "http://127.0.0.1:9/mcp", "headers": {"X-A": "1"}}));
        let ServerSpec::Http(h) = cfg.spec().unwrap() else { panic!("not http") };
        assert_eq!(h.connect_timeout_ms, DEFAULT_CONNECT_TIMEOUT_MS);
        assert_eq!(h.headers, vec![("X-A".to_string(), "1".to_string())]);
        assert_eq!(h.allowed_hosts, None);
        let cfg = ServerConfig::from_json("h", &json!({"url": "http://127.0.0.1:9/mcp", "allowedHosts": []}));
        let ServerSpec::Http(h) = cfg.spec().unwrap() else { panic!("not http") };
        assert_eq!(h.allowed_hosts, Some(vec![]));
        assert!(err_of(json!({"url": "http://h/", "allowedHosts": "h"})).contains("\"allowedHosts\""));
    }
}

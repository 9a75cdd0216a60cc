//! Tool pinning for JavaScript: fingerprints, lock files and drift, over `core::tool_lock` (the
//! canonical form lives there). JSON in and out.

use napi::{Error, Result};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::core::tool_lock::{drift, drift_json, fingerprint, lock_servers, lock_text, tools_of};

fn invalid(e: impl std::fmt::Display) -> Error {
    Error::from_reason(e.to_string())
}

/// Each tool's fingerprint (`sha256:<hex>` of its reviewed definition's canonical JSON), by name:
/// `tools` is an array of definitions or an object of them by name.
#[napi(ts_return_type = "Record<string, string>")]
pub fn tool_fingerprints(#[napi(ts_arg_type = "unknown")] tools: Value) -> Result<Value> {
    let mut out = Map::new();
    for (name, tool) in tools_of("(tools)", &tools).map_err(invalid)? {
        out.insert(name, Value::String(fingerprint(&tool)));
    }
    Ok(Value::Object(out))
}

/// The text of a lock file for `{ server: tools }`.
#[napi]
pub fn tool_lock_text(#[napi(ts_arg_type = "Record<string, unknown>")] servers: Value) -> Result<String> {
    let Value::Object(servers) = servers else { return Err(invalid("the servers must be an object of tools by server")) };
    lock_text(&servers).map_err(invalid)
}

/// The drift of one server's listed tools from a parsed lock: `null` when the lock does not pin
/// this server, else an array of drifts (empty when nothing changed). Throws on a lock of the
/// wrong shape.
#[napi(ts_return_type = "Array<Record<string, unknown>> | null")]
pub fn tool_drift(#[napi(ts_arg_type = "unknown")] lock: Value, server: String, #[napi(ts_arg_type = "unknown")] tools: Value) -> Result<Value> {
    let servers = lock_servers(&lock).map_err(invalid)?;
    let Some(pinned) = servers.get(&server) else { return Ok(Value::Null) };
    let listed = tools_of(&server, &tools).map_err(invalid)?;
    Ok(Value::Array(drift(pinned, &listed).iter().map(drift_json).collect()))
}

/// Checks a parsed lock's shape: the names of the servers it pins. Throws with what is wrong.
#[napi]
pub fn tool_lock_servers(#[napi(ts_arg_type = "unknown")] lock: Value) -> Result<Vec<String>> {
    Ok(lock_servers(&lock).map_err(invalid)?.keys().cloned().collect())
}

//! One server entry of a config file, normalized into an `MCPClient` server definition:
//! `{ command, args, env, cwd }` for stdio, `{ url, requestInit: { headers } }` for remote ones.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::dialect::{Problem, Vars};
use super::error::ConfigFileErrorKind;

/// The transport an entry selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    /// Streamable HTTP (`http`, `streamable-http`, or a `url` with no type).
    Http,
    /// Legacy HTTP+SSE; `MCPClient` reaches it through its Streamable HTTP → SSE fallback.
    Sse,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }
}

/// A problem at a field of this server (`None`: the entry as a whole).
pub type FieldProblem = (Option<String>, ConfigFileErrorKind, String);

fn bad(field: &str, problem: impl Into<String>) -> FieldProblem {
    (Some(field.to_string()), ConfigFileErrorKind::Field, problem.into())
}

fn at(field: String) -> impl FnOnce(Problem) -> FieldProblem {
    move |(kind, problem)| (Some(field), kind, problem)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A scalar that may stand for a string (numbers and booleans are written as text).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// An object of strings (`env`, `headers`), each value expanded.
fn string_map(field: &str, v: &Value, vars: &Vars) -> Result<Map<String, Value>, FieldProblem> {
    let Value::Object(m) = v else {
        return Err(bad(field, format!("must be an object of strings, got {}", type_name(v))));
    };
    let mut out = Map::new();
    for (k, v) in m {
        if v.is_null() {
            continue;
        }
        let Some(s) = scalar(v) else {
            return Err(bad(&format!("{field}.{k}"), format!("must be a string, got {}", type_name(v))));
        };
        out.insert(k.clone(), Value::String(vars.expand(&s).map_err(at(format!("{field}.{k}")))?));
    }
    Ok(out)
}

fn string_field(obj: &Map<String, Value>, field: &str, vars: &Vars) -> Result<Option<String>, FieldProblem> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Err(bad(field, "must not be empty")),
        Some(Value::String(s)) => vars.expand(s).map(Some).map_err(at(field.to_string())),
        Some(v) => Err(bad(field, format!("must be a string, got {}", type_name(v)))),
    }
}

/// `disabled: true` (Claude Code, Cursor, Windsurf, Cline): the entry is skipped.
pub fn is_disabled(def: &Value) -> Result<bool, FieldProblem> {
    match def.get("disabled") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(bad("disabled", format!("must be a boolean, got {}", type_name(v)))),
    }
}

/// Validates and expands one enabled entry.
pub fn normalize(def: &Value, vars: &Vars, workspace: Option<&Path>) -> Result<(Transport, Value), FieldProblem> {
    let Value::Object(obj) = def else {
        return Err((None, ConfigFileErrorKind::Field, format!("must be an object, got {}", type_name(def))));
    };
    let declared = match obj.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(match t.as_str() {
            "stdio" => Transport::Stdio,
            "http" | "streamable-http" | "streamableHttp" | "streamable_http" => Transport::Http,
            "sse" => Transport::Sse,
            other => return Err(bad("type", format!("must be one of stdio, http, streamable-http, sse; got \"{other}\""))),
        }),
        Some(v) => Err(bad("type", format!("must be a string, got {}", type_name(v))))?,
    };
    // Windsurf spells a remote server's address `serverUrl`.
    let url_key = if obj.get("url").is_some_and(|v| !v.is_null()) { "url" } else { "serverUrl" };
    let has_command = obj.get("command").is_some_and(|v| !v.is_null());
    let has_url = obj.get(url_key).is_some_and(|v| !v.is_null());
    if obj.get("envFile").is_some_and(|v| !v.is_null()) {
        return Err(bad("envFile", "is not supported; put the variables in \"env\""));
    }
    match (has_command, has_url, declared) {
        (true, true, _) => Err((None, ConfigFileErrorKind::Field, "has both \"command\" and \"url\"; configure exactly one".into())),
        (false, false, _) => Err((None, ConfigFileErrorKind::Field, "needs \"command\" (stdio) or \"url\" (http, sse)".into())),
        (true, false, Some(t @ (Transport::Http | Transport::Sse))) => {
            Err(bad("type", format!("is \"{}\" but the server has a \"command\" and no \"url\"", t.name())))
        }
        (false, true, Some(Transport::Stdio)) => Err(bad("type", "is \"stdio\" but the server has a \"url\" and no \"command\"")),
        (true, false, _) => stdio(obj, vars, workspace).map(|d| (Transport::Stdio, d)),
        (false, true, t) => remote(obj, url_key, vars).map(|d| (t.unwrap_or(Transport::Http), d)),
    }
    .and_then(|(t, mut d)| {
        if let Some(tools) = tool_filter(obj)? {
            d["tools"] = tools;
        }
        Ok((t, d))
    })
}

/// `tools: { include?: string[], exclude?: string[] }`: which of the server's tools the client
/// offers (globs, `*` any run of characters), kept as given.
fn tool_filter(obj: &Map<String, Value>) -> Result<Option<Value>, FieldProblem> {
    let Some(tools) = obj.get("tools").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let Value::Object(filter) = tools else {
        return Err(bad("tools", format!("must be an object {{ include?, exclude? }}, got {}", type_name(tools))));
    };
    let mut out = Map::new();
    for (key, list) in filter {
        if key != "include" && key != "exclude" {
            return Err(bad(&format!("tools.{key}"), "is not known; use tools.include and tools.exclude"));
        }
        match list {
            Value::Null => {}
            Value::Array(items) if items.iter().all(Value::is_string) => {
                out.insert(key.clone(), list.clone());
            }
            other => {
                return Err(bad(&format!("tools.{key}"), format!("must be an array of strings (tool names, `*` globs), got {}", type_name(other))))
            }
        }
    }
    Ok(Some(Value::Object(out)))
}

fn stdio(obj: &Map<String, Value>, vars: &Vars, workspace: Option<&Path>) -> Result<Value, FieldProblem> {
    let command = string_field(obj, "command", vars)?.unwrap_or_default();
    let mut args = Vec::new();
    match obj.get("args") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, a) in items.iter().enumerate() {
                let Some(s) = scalar(a) else {
                    return Err(bad(&format!("args[{i}]"), format!("must be a string, got {}", type_name(a))));
                };
                args.push(Value::String(vars.expand(&s).map_err(at(format!("args[{i}]")))?));
            }
        }
        Some(v) => return Err(bad("args", format!("must be an array of strings, got {}", type_name(v)))),
    }
    if obj.get("headers").is_some_and(|v| !v.is_null()) {
        return Err(bad("headers", "applies to http and sse servers, not to a stdio \"command\""));
    }
    let mut out = json!({ "command": command, "args": args });
    if let Some(env) = obj.get("env").filter(|v| !v.is_null()) {
        out["env"] = Value::Object(string_map("env", env, vars)?);
    }
    if let Some(cwd) = string_field(obj, "cwd", vars)? {
        // A relative `cwd` is relative to the workspace (the folder the config belongs to).
        let path = Path::new(&cwd);
        let resolved = match workspace {
            Some(ws) if path.is_relative() => ws.join(path).to_string_lossy().into_owned(),
            _ => cwd,
        };
        out["cwd"] = Value::String(resolved);
    }
    Ok(out)
}

fn remote(obj: &Map<String, Value>, url_key: &str, vars: &Vars) -> Result<Value, FieldProblem> {
    let raw = string_field(obj, url_key, vars)?.unwrap_or_default();
    let url = url::Url::parse(&raw).map_err(|e| bad(url_key, format!("is not a valid URL ({e}): {raw}")))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(bad(url_key, format!("must use http or https, got {}:", url.scheme())));
    }
    for stdio_only in ["args", "env", "cwd"] {
        if obj.get(stdio_only).is_some_and(|v| !v.is_null()) {
            return Err(bad(stdio_only, "applies to stdio servers, not to a \"url\" server"));
        }
    }
    let mut out = json!({ "url": raw });
    if let Some(headers) = obj.get("headers").filter(|v| !v.is_null()) {
        let headers = string_map("headers", headers, vars)?;
        if !headers.is_empty() {
            out["requestInit"] = json!({ "headers": headers });
        }
    }
    Ok(out)
}

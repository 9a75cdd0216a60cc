//! `parseMcpConfig`: a config file's text in, the normalized `MCPClient` servers (or the typed
//! error naming file, server and field) out, as JSON text.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use napi_derive::napi;
use serde_json::json;

use crate::core::mcp_json::{self, Format, Source};

#[napi(object)]
pub struct McpConfigSource {
    /// Named in errors: the file path or a label.
    pub label: String,
    /// The file's path (guesses the dialect and the workspace folder).
    pub path: Option<String>,
    /// `claude-desktop` | `claude-code` | `cursor` | `vscode` | `windsurf` | `generic`.
    pub format: Option<String>,
    pub inputs: Option<HashMap<String, String>>,
    pub env: Option<HashMap<String, String>>,
    pub workspace: Option<String>,
}

fn to_map(m: Option<HashMap<String, String>>) -> BTreeMap<String, String> {
    m.map(|m| m.into_iter().collect()).unwrap_or_default()
}

/// Returns `{ ok: true, value: { format, servers, transports, disabled } }` or
/// `{ ok: false, error: { code, message, file, server, field, ... } }`.
#[napi(js_name = "parseMcpConfig")]
pub fn parse_mcp_config(text: String, source: McpConfigSource) -> String {
    let format = match source.format.as_deref() {
        None => None,
        Some(name) => match Format::from_name(name) {
            Some(f) => Some(f),
            None => {
                let message = format!("{}: unknown format \"{name}\" (expected one of {})", source.label, Format::NAMES);
                return json!({ "ok": false, "error": { "code": "INVALID_OPTION", "message": message, "file": source.label } }).to_string();
            }
        },
    };
    let src = Source {
        label: source.label,
        path: source.path.map(PathBuf::from),
        format,
        inputs: to_map(source.inputs),
        env: to_map(source.env),
        workspace: source.workspace.map(PathBuf::from),
    };
    match mcp_json::parse_text(&text, &src) {
        Ok(parsed) => json!({ "ok": true, "value": parsed.to_json() }).to_string(),
        Err(e) => {
            tracing::debug!("config file refused: {e}");
            json!({ "ok": false, "error": e.to_json() }).to_string()
        }
    }
}

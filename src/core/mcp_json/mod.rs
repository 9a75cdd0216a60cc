//! MCP config files as editors write them — Claude Desktop's `claude_desktop_config.json`,
//! Cursor's `.cursor/mcp.json`, VS Code's `.vscode/mcp.json` (`servers`, `type`, `inputs`),
//! Windsurf's `mcp_config.json`, Claude Code's `.mcp.json` — parsed, validated and
//! interpolated into the `servers` map an `MCPClient` takes. Pure: the caller reads the file
//! and hands over the environment and the input values.

mod dialect;
mod error;
mod jsonc;
mod server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

pub use dialect::{input_env_var, Format};
pub use error::{ConfigFileError, ConfigFileErrorKind};
pub use server::Transport;

/// Where a config comes from and what its variables resolve against.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// Named in every error: the file path, or a label for an in-memory config.
    pub label: String,
    /// The file's path, for guessing the dialect and the workspace folder.
    pub path: Option<PathBuf>,
    /// Forces a dialect instead of guessing it.
    pub format: Option<Format>,
    /// Values for VS Code `${input:id}` variables.
    pub inputs: BTreeMap<String, String>,
    /// The environment `${env:VAR}` / `${VAR}` read.
    pub env: BTreeMap<String, String>,
    /// The workspace folder (`${workspaceFolder}`, relative `cwd`); guessed from `path` if unset.
    pub workspace: Option<PathBuf>,
}

/// A parsed config: the `MCPClient` servers and what was left out.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedConfig {
    pub format: Format,
    /// Server name → `MCPClient` server definition.
    pub servers: Map<String, Value>,
    pub transports: BTreeMap<String, Transport>,
    /// Entries with `disabled: true`.
    pub disabled: Vec<String>,
}

impl ParsedConfig {
    pub fn to_json(&self) -> Value {
        let transports: Map<String, Value> = self.transports.iter().map(|(k, t)| (k.clone(), Value::String(t.name().into()))).collect();
        json!({
            "format": self.format.name(),
            "servers": self.servers,
            "transports": transports,
            "disabled": self.disabled,
        })
    }
}

/// The workspace a config file belongs to: the folder above `.vscode`/`.cursor`, else the
/// file's own folder.
fn workspace_of(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name == ".vscode" || name == ".cursor" {
        dir.parent().map(Path::to_path_buf)
    } else {
        Some(dir.to_path_buf())
    }
}

/// VS Code's `inputs`: an array of `{ id, type, description, password, default }`. Only the
/// `default`s matter here: a library never prompts.
fn input_defaults(top: &Map<String, Value>, file: &str) -> Result<BTreeMap<String, String>, ConfigFileError> {
    let mut out = BTreeMap::new();
    let bad = |problem: String| ConfigFileError::new(ConfigFileErrorKind::Field, file, problem);
    match top.get("inputs") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let Some(id) = item.get("id").and_then(Value::as_str) else {
                    return Err(bad(format!("inputs[{i}].id must be a string")));
                };
                if let Some(d) = item.get("default").and_then(Value::as_str) {
                    out.insert(id.to_string(), d.to_string());
                }
            }
        }
        Some(_) => return Err(bad("\"inputs\" must be an array".into())),
    }
    Ok(out)
}

/// Parses a config file's text (JSON, or JSON with comments).
pub fn parse_text(text: &str, source: &Source) -> Result<ParsedConfig, ConfigFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(&jsonc::strip(text)).map_err(|e| {
        let problem = e.to_string();
        // serde appends " at line L column C"; the location is already in the prefix.
        let problem = match problem.rfind(" at line ") {
            Some(i) => problem[..i].to_string(),
            None => problem,
        };
        ConfigFileError::new(ConfigFileErrorKind::Syntax { line: e.line(), column: e.column() }, &source.label, format!("invalid JSON: {problem}"))
    })?;
    parse_value(&value, source)
}

/// Validates an already parsed config object.
pub fn parse_value(value: &Value, source: &Source) -> Result<ParsedConfig, ConfigFileError> {
    let file = source.label.as_str();
    let Value::Object(top) = value else {
        return Err(ConfigFileError::new(ConfigFileErrorKind::NoServers, file, "the top level must be an object with \"mcpServers\" or \"servers\""));
    };
    let format = source.format.unwrap_or_else(|| Format::detect(source.path.as_deref(), top));
    // Each dialect has its key; a file with the other one is still read.
    let key = if top.contains_key(format.servers_key()) {
        format.servers_key()
    } else if top.contains_key("mcpServers") {
        "mcpServers"
    } else if top.contains_key("servers") {
        "servers"
    } else {
        return Err(ConfigFileError::new(ConfigFileErrorKind::NoServers, file, "no \"mcpServers\" or \"servers\" object at the top level"));
    };
    let Some(entries) = top.get(key).and_then(Value::as_object) else {
        return Err(ConfigFileError::new(ConfigFileErrorKind::Field, file, format!("\"{key}\" must be an object (server name → definition)")));
    };
    let workspace = source.workspace.clone().or_else(|| source.path.as_deref().and_then(workspace_of));
    let vars = dialect::Vars {
        format,
        env: &source.env,
        inputs: &source.inputs,
        input_defaults: input_defaults(top, file)?,
        workspace: workspace.as_ref().map(|w| w.to_string_lossy().into_owned()),
    };
    let mut parsed = ParsedConfig { format, servers: Map::new(), transports: BTreeMap::new(), disabled: Vec::new() };
    for (name, def) in entries {
        let fail = |(field, kind, problem): server::FieldProblem| ConfigFileError::new(kind, file, problem).at(name, field.as_deref());
        if name.trim().is_empty() {
            return Err(ConfigFileError::new(ConfigFileErrorKind::Field, file, format!("a server in \"{key}\" has an empty name")));
        }
        if def.is_object() && server::is_disabled(def).map_err(fail)? {
            parsed.disabled.push(name.clone());
            continue;
        }
        let (transport, normalized) = server::normalize(def, &vars, workspace.as_deref()).map_err(fail)?;
        parsed.transports.insert(name.clone(), transport);
        parsed.servers.insert(name.clone(), normalized);
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests;

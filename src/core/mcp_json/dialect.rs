//! The config-file dialects and their `${…}` variables. Each editor defines its own:
//! VS Code `${env:VAR}`, `${input:id}`, `${workspaceFolder}`, `${userHome}`; Cursor the same
//! without inputs; Windsurf `${env:VAR}`; Claude Code `${VAR}` and `${VAR:-default}`; Claude
//! Desktop none. A file of unknown origin (`generic`) gets all of them.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::error::ConfigFileErrorKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    VsCode,
    Windsurf,
    Generic,
}

impl Format {
    pub const NAMES: &'static str = "claude-desktop, claude-code, cursor, vscode, windsurf, generic";

    pub fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "claude-desktop" => Format::ClaudeDesktop,
            "claude-code" => Format::ClaudeCode,
            "cursor" => Format::Cursor,
            "vscode" => Format::VsCode,
            "windsurf" => Format::Windsurf,
            "generic" => Format::Generic,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeDesktop => "claude-desktop",
            Format::ClaudeCode => "claude-code",
            Format::Cursor => "cursor",
            Format::VsCode => "vscode",
            Format::Windsurf => "windsurf",
            Format::Generic => "generic",
        }
    }

    /// Guesses the dialect from the file's name and place, then from its top-level key.
    pub fn detect(path: Option<&Path>, top: &Map<String, Value>) -> Format {
        if let Some(path) = path {
            let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
            let parent = path.parent().and_then(|p| p.file_name()).and_then(|f| f.to_str()).unwrap_or("");
            let in_path = |needle: &str| path.components().any(|c| c.as_os_str().to_string_lossy().to_lowercase().contains(needle));
            match (file, parent) {
                ("claude_desktop_config.json", _) => return Format::ClaudeDesktop,
                (".mcp.json", _) => return Format::ClaudeCode,
                ("mcp.json", ".vscode") => return Format::VsCode,
                ("mcp.json", ".cursor") => return Format::Cursor,
                ("mcp_config.json", _) if in_path("windsurf") || in_path("codeium") => return Format::Windsurf,
                _ => {}
            }
        }
        if top.contains_key("servers") && !top.contains_key("mcpServers") {
            Format::VsCode
        } else {
            Format::Generic
        }
    }

    /// The key holding the server map.
    pub fn servers_key(self) -> &'static str {
        match self {
            Format::VsCode => "servers",
            _ => "mcpServers",
        }
    }

    fn has_editor_vars(self) -> bool {
        matches!(self, Format::VsCode | Format::Cursor | Format::Generic)
    }

    fn has_env_prefix(self) -> bool {
        matches!(self, Format::VsCode | Format::Cursor | Format::Windsurf | Format::Generic)
    }

    fn has_shell_vars(self) -> bool {
        matches!(self, Format::ClaudeCode | Format::Generic)
    }

    fn has_inputs(self) -> bool {
        matches!(self, Format::VsCode | Format::Generic)
    }
}

/// The environment variable that answers `${input:id}` when the options do not.
pub fn input_env_var(id: &str) -> String {
    let mut s = String::from("MCP_INPUT_");
    s.extend(id.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }));
    s
}

/// What the variables resolve against.
pub struct Vars<'a> {
    pub format: Format,
    pub env: &'a BTreeMap<String, String>,
    pub inputs: &'a BTreeMap<String, String>,
    /// `default` values of declared VS Code inputs: used when neither options nor env answer.
    pub input_defaults: BTreeMap<String, String>,
    pub workspace: Option<String>,
}

/// A failed expansion: the error kind and the problem text (the caller adds file/server/field).
pub type Problem = (ConfigFileErrorKind, String);

fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Vars<'_> {
    fn env_var(&self, name: &str) -> Result<String, Problem> {
        self.env
            .get(name)
            .cloned()
            .ok_or_else(|| (ConfigFileErrorKind::MissingEnv { var: name.to_string() }, format!("environment variable {name} is not set")))
    }

    fn home(&self) -> Option<String> {
        self.env.get("HOME").or_else(|| self.env.get("USERPROFILE")).cloned()
    }

    fn resolve(&self, var: &str) -> Option<Result<String, Problem>> {
        let f = self.format;
        if let Some(name) = var.strip_prefix("env:").filter(|_| f.has_env_prefix()) {
            return Some(self.env_var(name));
        }
        if let Some(id) = var.strip_prefix("input:").filter(|_| f.has_inputs()) {
            let env_var = input_env_var(id);
            return Some(self.inputs.get(id).or_else(|| self.env.get(&env_var)).or_else(|| self.input_defaults.get(id)).cloned().ok_or_else(|| {
                (
                    ConfigFileErrorKind::MissingInput { id: id.to_string(), env_var: env_var.clone() },
                    format!("input \"{id}\" has no value: pass it in options.inputs or set {env_var}"),
                )
            }));
        }
        if f.has_editor_vars() {
            let unknown = |what: &str| (ConfigFileErrorKind::Field, format!("${{{var}}} has no value: {what}"));
            match var {
                "userHome" => return Some(self.home().ok_or_else(|| unknown("neither HOME nor USERPROFILE is set"))),
                "workspaceFolder" => return Some(self.workspace.clone().ok_or_else(|| unknown("no workspace folder (pass options.workspace)"))),
                "workspaceFolderBasename" => {
                    return Some(
                        self.workspace
                            .as_deref()
                            .and_then(|w| Path::new(w).file_name())
                            .map(|n| n.to_string_lossy().into_owned())
                            .ok_or_else(|| unknown("no workspace folder (pass options.workspace)")),
                    )
                }
                "pathSeparator" | "/" => return Some(Ok(std::path::MAIN_SEPARATOR.to_string())),
                _ => {}
            }
        }
        if f.has_shell_vars() {
            let (name, default) = match var.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (var, None),
            };
            if is_env_name(name) {
                return Some(match (self.env.get(name), default) {
                    (Some(v), _) => Ok(v.clone()),
                    (None, Some(d)) => Ok(d.to_string()),
                    (None, None) => self.env_var(name),
                });
            }
        }
        None
    }

    /// Expands every `${…}` in `s` that the dialect defines; others are an error (Claude
    /// Desktop defines none and keeps strings as they are).
    pub fn expand(&self, s: &str) -> Result<String, Problem> {
        if self.format == Format::ClaudeDesktop || !s.contains("${") {
            return Ok(s.to_string());
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                return Err((ConfigFileErrorKind::Field, format!("unterminated variable in \"{s}\"")));
            };
            let var = &after[..end];
            match self.resolve(var) {
                Some(value) => out.push_str(&value?),
                None => {
                    return Err((ConfigFileErrorKind::Field, format!("variable ${{{var}}} is not supported in the {} format", self.format.name())))
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

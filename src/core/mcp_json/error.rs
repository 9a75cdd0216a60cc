//! The one error a config file can produce: it names the file, and where known the server and
//! the field, so a user can go straight to the line to fix.

use std::fmt;

/// What is wrong with a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigFileErrorKind {
    /// The text is not JSON (or JSON with comments).
    Syntax { line: usize, column: usize },
    /// The top level has neither `mcpServers` nor `servers`.
    NoServers,
    /// A server definition or one of its fields is wrong.
    Field,
    /// A `${input:id}` has no value in the options or the environment.
    MissingInput { id: String, env_var: String },
    /// A `${env:VAR}` / `${VAR}` refers to an unset environment variable.
    MissingEnv { var: String },
}

impl ConfigFileErrorKind {
    /// A stable code for the JS face.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Syntax { .. } => "SYNTAX",
            Self::NoServers => "NO_SERVERS",
            Self::Field => "INVALID_FIELD",
            Self::MissingInput { .. } => "MISSING_INPUT",
            Self::MissingEnv { .. } => "MISSING_ENV",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFileError {
    pub kind: ConfigFileErrorKind,
    /// The file (or the label of an in-memory config).
    pub file: String,
    pub server: Option<String>,
    /// A dotted path inside the server definition (`args[1]`, `env.API_KEY`, `headers.Authorization`).
    pub field: Option<String>,
    /// What is wrong, without the location prefix.
    pub problem: String,
}

impl ConfigFileError {
    pub fn new(kind: ConfigFileErrorKind, file: &str, problem: impl Into<String>) -> Self {
        Self { kind, file: file.to_string(), server: None, field: None, problem: problem.into() }
    }

    pub fn at(mut self, server: &str, field: Option<&str>) -> Self {
        self.server = Some(server.to_string());
        self.field = field.map(str::to_string);
        self
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "code": self.kind.code(),
            "message": self.to_string(),
            "file": self.file,
            "server": self.server,
            "field": self.field,
            "problem": self.problem,
        });
        match &self.kind {
            ConfigFileErrorKind::Syntax { line, column } => {
                v["line"] = (*line).into();
                v["column"] = (*column).into();
            }
            ConfigFileErrorKind::MissingInput { id, env_var } => {
                v["input"] = id.clone().into();
                v["envVar"] = env_var.clone().into();
            }
            ConfigFileErrorKind::MissingEnv { var } => v["envVar"] = var.clone().into(),
            _ => {}
        }
        v
    }
}

/// One line: `FILE: server "NAME": FIELD: PROBLEM`.
impl fmt::Display for ConfigFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let ConfigFileErrorKind::Syntax { line, column } = self.kind {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(server) = &self.server {
            write!(f, ": server \"{server}\"")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.problem)
    }
}

impl std::error::Error for ConfigFileError {}

//! What can go wrong with a store; every message names the store (and the row, where one is
//! concerned) and says what to do.

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("MCP store {url}: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("MCP store {store} needs a secret to encrypt what it keeps: pass createMCPStore(url, {{ secret }}) (a long random string, the same in every process)")]
    SecretRequired { store: String },
    #[error("MCP store {store} was created with another secret: its values cannot be read with this one (nothing was changed)")]
    WrongSecret { store: String },
    #[error("MCP store {store}: the value of {key} cannot be read (changed outside the store, or sealed with another secret); it was left as it is")]
    Unreadable { store: String, key: String },
    #[error("MCP store {store}: {key} is corrupt; it was left as it is")]
    Corrupt { store: String, key: String },
    #[error("MCP store {store} has schema version {found}, newer than this version of mastra-mcp-native understands ({supported}); upgrade it (nothing was changed)")]
    NewerSchema { store: String, found: i64, supported: i64 },
    #[error("MCP store {store} is unreachable: {detail}")]
    Unreachable { store: String, detail: String },
    #[error("MCP store {store}: {detail}")]
    Database { store: String, detail: String },
    #[error("MCP store {store}: the lock on {key} was held elsewhere for more than {waited_ms} ms")]
    LockTimeout { store: String, key: String, waited_ms: u64 },
}

impl StoreError {
    /// A stable code for the JS face.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::InvalidUrl { .. } => "MCP_STORE_INVALID_URL",
            StoreError::SecretRequired { .. } => "MCP_STORE_SECRET_REQUIRED",
            StoreError::WrongSecret { .. } => "MCP_STORE_WRONG_SECRET",
            StoreError::Unreadable { .. } => "MCP_STORE_UNREADABLE",
            StoreError::Corrupt { .. } => "MCP_STORE_CORRUPT",
            StoreError::NewerSchema { .. } => "MCP_STORE_NEWER_SCHEMA",
            StoreError::Unreachable { .. } => "MCP_STORE_UNREACHABLE",
            StoreError::Database { .. } => "MCP_STORE_DATABASE",
            StoreError::LockTimeout { .. } => "MCP_STORE_LOCK_TIMEOUT",
        }
    }
}

//! mastra-mcp-native: a Rust MCP client core with a napi-rs face for Node.js.
//!
//! `core` knows nothing about JavaScript and is tested with `cargo test --no-default-features`;
//! `node` (behind the default `node` feature) is the only code that talks to napi.

pub mod core;

#[cfg(feature = "node")]
mod node;

//! The napi-free MCP client core: configuration, connections, transports and events.

pub mod asking;
pub mod auth;
mod authenticate;
pub mod calls;
pub mod config;
pub mod connection;
pub mod encode;
pub mod era;
pub mod error;
pub mod events;
pub mod features;
pub mod follow_up;
pub mod handler;
pub mod input;
pub mod interned;
pub mod listen;
pub mod lists;
pub mod mcp_json;
pub mod memory;
pub mod net;
pub mod observe;
mod open;
pub mod operations;
pub mod registry;
pub mod results;
pub mod schema_key;
pub mod skills;
pub mod store;
pub mod tasks;
pub mod tool_cache;
pub mod tool_call;
pub mod tool_lock;
pub mod tool_names;
pub mod tool_schema;
pub mod transport;
pub mod user_handlers;
pub mod warm;

#[cfg(test)]
mod layering;

pub use config::{ServerConfig, ServerSpec};
pub use connection::Connection;
pub use error::{ErrorKind, McpError};
pub use events::{ElicitationResponder, EventKind, EventSink, ServerEvent};
pub use registry::Registry;

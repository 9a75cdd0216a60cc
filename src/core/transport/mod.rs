//! Transports: each turns a validated `ServerSpec` into something rmcp can serve over.

pub mod stdio;
pub mod http;
pub mod observed;

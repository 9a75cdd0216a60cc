//! Transports: each turns a validated `ServerSpec` into something rmcp can serve over.

pub mod stdio;
pub mod process_group;
pub mod exit;
#[cfg(windows)]
pub mod job;
#[cfg(unix)]
pub mod watchdog;
pub mod streamable;
pub mod listener;
pub mod resume;
pub mod answer_watch;
pub mod reachability;
pub mod sse;
pub mod posted;
pub mod observed;
pub mod envelope;
pub mod lane;
pub mod pipe;
pub mod pipe_writer;

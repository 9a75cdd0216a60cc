//! Transports: each turns a validated `ServerSpec` into something rmcp can serve over.

pub mod answer_watch;
pub mod envelope;
pub mod exit;
#[cfg(windows)]
pub mod job;
pub mod lane;
pub mod listener;
pub mod observed;
pub mod pipe;
pub mod pipe_writer;
pub mod posted;
pub mod raw_answer;
pub mod process_group;
pub mod reachability;
pub mod reply;
pub mod resume;
pub mod sse;
pub mod stdio;
pub mod streamable;
#[cfg(unix)]
pub mod watchdog;

//! The benchmark's fixture: an MCP server whose own work costs microseconds, so the benchmark measures
//! the client. One binary, modes chosen by arguments:
//!
//!   fixture-server stdio [--tools N] [--dual-era]
//!   fixture-server http [--port P] [--sse] [--tools N] [--dual-era]
//!
//! `--dual-era` also speaks MCP 2026-07-28 (`server/discover`, results marked `resultType`).
//!
//! `http` binds 127.0.0.1 only, prints its bound port as the first line on stdout and exits when its
//! stdin closes, so it never outlives the process that started it.

mod catalog;
mod http;
mod mcp;
mod stdio;

use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "usage: fixture-server stdio [--tools N] [--dual-era] | fixture-server http [--port P] [--sse] [--tools N] [--dual-era]";

enum Mode {
    Stdio,
    Http { port: u16, sse: bool },
}

struct Args {
    mode: Mode,
    tools: usize,
    dual_era: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mode = args.next().ok_or("missing mode")?;
    let mut port = 0u16;
    let mut sse = false;
    let mut tools = 10usize;
    let mut dual_era = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let v = args.next().ok_or("--port needs a value")?;
                port = v.parse().map_err(|_| format!("bad --port value: {v}"))?;
            }
            "--tools" => {
                let v = args.next().ok_or("--tools needs a value")?;
                tools = v.parse().map_err(|_| format!("bad --tools value: {v}"))?;
            }
            "--sse" => sse = true,
            "--dual-era" => dual_era = true,
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    let mode = match mode.as_str() {
        "stdio" if port == 0 && !sse => Mode::Stdio,
        "stdio" => return Err("--port and --sse only apply to http".into()),
        "http" => Mode::Http { port, sse },
        other => return Err(format!("unknown mode: {other}")),
    };
    Ok(Args { mode, tools, dual_era })
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fixture-server: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = Arc::new(mcp::Server::new(args.tools, args.dual_era));
    let result = match args.mode {
        Mode::Stdio => stdio::serve(&server),
        Mode::Http { port, sse } => http::serve(server, port, sse),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fixture-server: {e}");
            ExitCode::FAILURE
        }
    }
}

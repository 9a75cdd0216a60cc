//! Newline-delimited JSON-RPC over stdin/stdout. Ends when stdin closes.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use crate::mcp::{Outcome, Server};

pub fn serve(server: &Server) -> io::Result<()> {
    match serve_lines(server) {
        // The client went away mid-reply: that is an end, not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

fn serve_lines(server: &Server) -> io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut output = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return output.flush();
        }
        let text = line.trim();
        if !text.is_empty() {
            if let Outcome::Reply(reply) = server.handle_text(text) {
                output.write_all(reply.as_bytes())?;
                output.write_all(b"\n")?;
            }
        }
        // Flush once the requests already read are answered: pipelined requests share one write.
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}

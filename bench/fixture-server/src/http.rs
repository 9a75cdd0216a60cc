//! Streamable HTTP on std::net: HTTP/1.1 with keep-alive, one thread per connection. POST /mcp answers
//! a request with application/json (or, with `--sse`, a one-event text/event-stream) and a notification
//! with 202; GET /mcp is 405; DELETE /mcp ends the session. Sessions are checked on every POST after
//! initialize.

use std::collections::HashSet;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::Value;

use crate::mcp::{Outcome, Server};

const MAX_HEADER_LINE: usize = 16 * 1024;
const MAX_BODY: usize = 64 * 1024 * 1024;

struct Shared {
    server: Arc<Server>,
    sse: bool,
    sessions: Mutex<HashSet<String>>,
    next_session: AtomicU64,
}

pub fn serve(server: Arc<Server>, port: u16, sse: bool) -> io::Result<()> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
    let port = listener.local_addr()?.port();
    {
        let mut out = io::stdout().lock();
        writeln!(out, "{port}")?;
        out.flush()?;
    }
    // Never outlive the parent: exit when stdin closes.
    thread::spawn(|| {
        let mut sink = [0u8; 256];
        let mut stdin = io::stdin().lock();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        std::process::exit(0);
    });
    let shared = Arc::new(Shared { server, sse, sessions: Mutex::new(HashSet::new()), next_session: AtomicU64::new(1) });
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(&shared);
        thread::spawn(move || {
            // A connection error ends that connection only.
            let _ = connection(&shared, stream);
        });
    }
    Ok(())
}

struct Request {
    method: String,
    path: String,
    session: Option<String>,
    close: bool,
    body: Vec<u8>,
}

struct Response {
    status: u16,
    content_type: Option<&'static str>,
    session: Option<String>,
    extra: Option<&'static str>,
    body: Vec<u8>,
}

impl Response {
    fn empty(status: u16) -> Self {
        Response { status, content_type: None, session: None, extra: None, body: Vec::new() }
    }
    fn text(status: u16, body: &str) -> Self {
        Response { content_type: Some("text/plain"), body: body.as_bytes().to_vec(), ..Response::empty(status) }
    }
}

fn connection(shared: &Shared, stream: TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::with_capacity(1 << 16, stream);
    while let Some(req) = read_request(&mut reader)? {
        let close = req.close;
        let resp = route(shared, req);
        write_response(&mut writer, &resp, close)?;
        if close {
            break;
        }
    }
    Ok(())
}

fn read_line(reader: &mut BufReader<TcpStream>, line: &mut String) -> io::Result<usize> {
    line.clear();
    let n = reader.by_ref().take(MAX_HEADER_LINE as u64).read_line(line)?;
    if n == MAX_HEADER_LINE && !line.ends_with('\n') {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "header line too long"));
    }
    Ok(n)
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

/// Reads one request; `None` when the peer closed the connection between requests.
fn read_request(reader: &mut BufReader<TcpStream>) -> io::Result<Option<Request>> {
    let mut line = String::new();
    if read_line(reader, &mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad("malformed request line"));
    };
    let method = method.to_string();
    let path = target.split('?').next().unwrap_or("").to_string();
    let mut close = version == "HTTP/1.0";
    let mut length = 0usize;
    let mut chunked = false;
    let mut session = None;
    loop {
        if read_line(reader, &mut line)? == 0 {
            return Err(bad("connection closed inside headers"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else { return Err(bad("malformed header")) };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse().map_err(|_| bad("bad content-length"))?,
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            "mcp-session-id" => session = Some(value.to_string()),
            "connection" => {
                let v = value.to_ascii_lowercase();
                close = v.contains("close") || (close && !v.contains("keep-alive"));
            }
            _ => {}
        }
    }
    let body = if chunked { read_chunked(reader)? } else { read_exact(reader, length)? };
    Ok(Some(Request { method, path, session, close, body }))
}

fn read_exact(reader: &mut BufReader<TcpStream>, length: usize) -> io::Result<Vec<u8>> {
    if length > MAX_BODY {
        return Err(bad("body too large"));
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    Ok(body)
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        read_line(reader, &mut line)?;
        let size_text = line.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size_text, 16).map_err(|_| bad("bad chunk size"))?;
        if size == 0 {
            // Trailers, up to the empty line.
            while read_line(reader, &mut line)? > 0 && !line.trim().is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(bad("body too large"));
        }
        body.extend(read_exact(reader, size)?);
        read_line(reader, &mut line)?;
    }
}

fn route(shared: &Shared, req: Request) -> Response {
    if req.path != "/mcp" {
        return Response::text(404, "not found");
    }
    match req.method.as_str() {
        "POST" => post(shared, &req),
        "GET" => Response { extra: Some("Allow: POST, DELETE\r\n"), ..Response::empty(405) },
        "DELETE" => {
            if let Some(id) = &req.session {
                lock(&shared.sessions).remove(id);
            }
            Response::empty(200)
        }
        _ => Response { extra: Some("Allow: POST, GET, DELETE\r\n"), ..Response::empty(405) },
    }
}

fn lock(m: &Mutex<HashSet<String>>) -> std::sync::MutexGuard<'_, HashSet<String>> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn post(shared: &Shared, req: &Request) -> Response {
    let msg: Value = match serde_json::from_slice(&req.body) {
        Ok(v) => v,
        Err(e) => return Response::text(400, &format!("body is not JSON: {e}")),
    };
    let messages = match msg {
        Value::Array(items) => items,
        one => vec![one],
    };
    let initialize = messages.iter().any(|m| m.get("method").and_then(Value::as_str) == Some("initialize"));
    let mut new_session = None;
    if shared.server.is_stateless(&messages) {
        // A 2026-07-28 request (dual-era only): no session, each request stands alone.
    } else if initialize {
        let id = format!("{:x}-{}", std::process::id(), shared.next_session.fetch_add(1, Ordering::Relaxed));
        lock(&shared.sessions).insert(id.clone());
        new_session = Some(id);
    } else {
        match &req.session {
            None => return Response::text(400, "missing Mcp-Session-Id"),
            Some(id) if !lock(&shared.sessions).contains(id) => return Response::text(404, "unknown session"),
            Some(_) => {}
        }
    }
    let replies: Vec<String> = messages
        .iter()
        .filter_map(|m| match shared.server.handle(m) {
            Outcome::Reply(r) => Some(r),
            Outcome::Nothing => None,
        })
        .collect();
    if replies.is_empty() {
        return Response { session: new_session, ..Response::empty(202) };
    }
    let (content_type, body) = if shared.sse {
        let mut body = String::new();
        for r in &replies {
            body.push_str("event: message\ndata: ");
            body.push_str(r);
            body.push_str("\n\n");
        }
        ("text/event-stream", body)
    } else if replies.len() == 1 {
        ("application/json", replies.into_iter().next().unwrap_or_default())
    } else {
        ("application/json", format!("[{}]", replies.join(",")))
    };
    Response { status: 200, content_type: Some(content_type), session: new_session, extra: None, body: body.into_bytes() }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Unknown",
    }
}

fn write_response(writer: &mut TcpStream, resp: &Response, close: bool) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\nContent-Length: {}\r\n", resp.status, reason(resp.status), resp.body.len());
    if let Some(ct) = resp.content_type {
        head.push_str("Content-Type: ");
        head.push_str(ct);
        head.push_str("\r\n");
    }
    if resp.content_type == Some("text/event-stream") {
        head.push_str("Cache-Control: no-cache\r\n");
    }
    if let Some(id) = &resp.session {
        head.push_str("Mcp-Session-Id: ");
        head.push_str(id);
        head.push_str("\r\n");
    }
    if let Some(extra) = resp.extra {
        head.push_str(extra);
    }
    head.push_str(if close { "Connection: close\r\n\r\n" } else { "Connection: keep-alive\r\n\r\n" });
    let mut out = head.into_bytes();
    out.extend_from_slice(&resp.body);
    writer.write_all(&out)
}

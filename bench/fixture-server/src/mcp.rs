//! JSON-RPC / MCP message handling, transport-free: one incoming message in, at most one reply out.

use serde_json::{json, Value};

use crate::catalog;

const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const LATEST_VERSION: &str = "2025-11-25";
/// The stateless revision, spoken with `--dual-era`.
const MODERN_VERSION: &str = "2026-07-28";

pub struct Server {
    /// The `tools` array of `tools/list`, serialised once: listing costs a copy, not a serialisation.
    tools_json: String,
    /// Also speak 2026-07-28: answer `server/discover`, and mark results of requests that carry the
    /// revision in their `_meta` with `resultType: "complete"`.
    dual_era: bool,
}

/// What one incoming message asks of the transport.
pub enum Outcome {
    /// A request: send this JSON-RPC response.
    Reply(String),
    /// A notification or a response: nothing to send.
    Nothing,
}

impl Server {
    pub fn new(tool_count: usize, dual_era: bool) -> Self {
        Server { tools_json: catalog::tools_json(tool_count), dual_era }
    }

    /// Handles one message given as JSON text.
    pub fn handle_text(&self, text: &str) -> Outcome {
        match serde_json::from_str::<Value>(text) {
            Ok(msg) => self.handle(&msg),
            Err(e) => Outcome::Reply(error(&Value::Null, -32700, &format!("parse error: {e}"))),
        }
    }

    /// Whether these messages are 2026-07-28 requests (dual-era only), which need no session:
    /// `server/discover`, or requests whose `_meta` names that revision.
    pub fn is_stateless(&self, messages: &[Value]) -> bool {
        self.dual_era
            && !messages.is_empty()
            && messages.iter().all(|m| {
                m.get("method").and_then(Value::as_str) == Some("server/discover")
                    || m.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str) == Some(MODERN_VERSION)
            })
    }

    pub fn handle(&self, msg: &Value) -> Outcome {
        let (Some(method), Some(id)) = (msg.get("method").and_then(Value::as_str), msg.get("id")) else {
            return Outcome::Nothing;
        };
        let params = msg.get("params").unwrap_or(&Value::Null);
        let modern = self.dual_era
            && params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str) == Some(MODERN_VERSION);
        let reply = match method {
            "server/discover" if self.dual_era => result(
                id,
                &json!({
                    "supportedVersions": [MODERN_VERSION, LATEST_VERSION],
                    "capabilities": { "tools": { "listChanged": true } },
                    // The same for every user, and for a minute: a client may reuse it (MCP 2026-07-28 caching).
                    "ttlMs": 60000,
                    "cacheScope": "public",
                    "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "bench-fixture", "version": env!("CARGO_PKG_VERSION") } },
                }),
            ),
            "initialize" => {
                let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
                let version = SUPPORTED_VERSIONS.iter().find(|v| **v == asked).copied().unwrap_or(LATEST_VERSION);
                result(
                    id,
                    &json!({
                        "protocolVersion": version,
                        "capabilities": { "tools": { "listChanged": true } },
                        "serverInfo": { "name": "bench-fixture", "version": env!("CARGO_PKG_VERSION") },
                    }),
                )
            }
            "ping" => result(id, &json!({})),
            "tools/list" => format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"tools":{}}}}}"#,
                serde_json::to_string(id).unwrap_or_else(|_| "null".into()),
                self.tools_json
            ),
            "tools/call" => self.call_tool(id, params),
            _ => error(id, -32601, &format!("method not found: {method}")),
        };
        Outcome::Reply(if modern || (self.dual_era && method == "server/discover") { complete(reply) } else { reply })
    }

    fn call_tool(&self, id: &Value, params: &Value) -> String {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let args = params.get("arguments").unwrap_or(&Value::Null);
        match name {
            "echo" => match args.get("message").and_then(Value::as_str) {
                Some(m) => result(id, &text_content(m)),
                None => error(id, -32602, "echo needs a string `message`"),
            },
            "blob" => match args.get("bytes").and_then(Value::as_u64) {
                Some(n) if n <= 1 << 30 => result(id, &text_content(&"x".repeat(n as usize))),
                _ => error(id, -32602, "blob needs an integer `bytes` (at most 1 GiB)"),
            },
            other if catalog::is_generated(other) => result(id, &text_content("ok")),
            other => error(id, -32602, &format!("unknown tool: {other}")),
        }
    }
}

fn text_content(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": false })
}

/// A 2026-07-28 answer: its result object gains `"resultType":"complete"` (spliced, not re-encoded).
fn complete(reply: String) -> String {
    const RESULT: &str = "\"result\":{";
    match reply.find(RESULT) {
        Some(at) => {
            let split = at + RESULT.len();
            let empty = reply[split..].starts_with('}');
            format!("{}\"resultType\":\"complete\"{}{}", &reply[..split], if empty { "" } else { "," }, &reply[split..])
        }
        None => reply,
    }
}

fn result(id: &Value, result: &Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

fn error(id: &Value, code: i64, message: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string()
}

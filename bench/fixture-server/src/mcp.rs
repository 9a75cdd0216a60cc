//! JSON-RPC / MCP message handling, transport-free: one incoming message in, at most one reply out.

use serde_json::{json, Value};

use crate::catalog;

const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const LATEST_VERSION: &str = "2025-11-25";

pub struct Server {
    /// The `tools` array of `tools/list`, serialised once: listing costs a copy, not a serialisation.
    tools_json: String,
}

/// What one incoming message asks of the transport.
pub enum Outcome {
    /// A request: send this JSON-RPC response.
    Reply(String),
    /// A notification or a response: nothing to send.
    Nothing,
}

impl Server {
    pub fn new(tool_count: usize) -> Self {
        Server { tools_json: catalog::tools_json(tool_count) }
    }

    /// Handles one message given as JSON text.
    pub fn handle_text(&self, text: &str) -> Outcome {
        match serde_json::from_str::<Value>(text) {
            Ok(msg) => self.handle(&msg),
            Err(e) => Outcome::Reply(error(&Value::Null, -32700, &format!("parse error: {e}"))),
        }
    }

    pub fn handle(&self, msg: &Value) -> Outcome {
        let (Some(method), Some(id)) = (msg.get("method").and_then(Value::as_str), msg.get("id")) else {
            return Outcome::Nothing;
        };
        let params = msg.get("params").unwrap_or(&Value::Null);
        Outcome::Reply(match method {
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
        })
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

fn result(id: &Value, result: &Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

fn error(id: &Value, code: i64, message: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string()
}

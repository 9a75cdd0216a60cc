//! The tool catalog: `echo` and `blob`, then generated tools with rich input schemas (nested objects,
//! enums, arrays, descriptions, bounds) up to the requested size. Deterministic: the same size gives the
//! same catalog, byte for byte.

use serde_json::{json, Map, Value};

const PREFIX: &str = "tool_";
const VERBS: [&str; 8] = ["search", "fetch", "update", "archive", "summarize", "export", "validate", "sync"];
const NOUNS: [&str; 10] =
    ["issues", "invoices", "contacts", "documents", "events", "orders", "tickets", "datasets", "reports", "builds"];
const STATUSES: [&str; 6] = ["open", "pending", "blocked", "review", "done", "cancelled"];

pub fn is_generated(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// The `tools` array, serialised.
pub fn tools_json(count: usize) -> String {
    let mut tools = vec![echo(), blob()];
    tools.extend((tools.len()..count).map(generated));
    tools.truncate(count);
    Value::Array(tools).to_string()
}

fn echo() -> Value {
    json!({
        "name": "echo",
        "description": "Echoes back the input message.",
        "inputSchema": {
            "type": "object",
            "properties": { "message": { "type": "string", "description": "The message to echo back" } },
            "required": ["message"],
        },
        "annotations": { "readOnlyHint": true },
    })
}

fn blob() -> Value {
    json!({
        "name": "blob",
        "description": "Returns one text content of exactly `bytes` bytes.",
        "inputSchema": {
            "type": "object",
            "properties": { "bytes": { "type": "integer", "minimum": 0, "description": "How many bytes of text to return" } },
            "required": ["bytes"],
        },
        "annotations": { "readOnlyHint": true },
    })
}

/// Tool number `i`: its shape varies with `i` so no two neighbouring schemas are alike.
fn generated(i: usize) -> Value {
    let verb = VERBS[i % VERBS.len()];
    let noun = NOUNS[(i / VERBS.len()) % NOUNS.len()];
    let mut props = Map::new();
    props.insert(
        "query".into(),
        json!({ "type": "string", "minLength": 1, "maxLength": 256,
                "description": format!("Free-text query used to {verb} {noun}; supports quoted phrases and field:value terms.") }),
    );
    props.insert(
        "limit".into(),
        json!({ "type": "integer", "minimum": 1, "maximum": 100 + i % 400, "default": 20,
                "description": format!("Maximum number of {noun} to return in one page.") }),
    );
    props.insert(
        "mode".into(),
        json!({ "type": "string", "enum": ["fast", "balanced", "thorough"],
                "description": "Trade-off between latency and completeness." }),
    );
    props.insert(
        "filters".into(),
        json!({
            "type": "object",
            "description": format!("Narrows which {noun} are considered."),
            "properties": {
                "tags": { "type": "array", "items": { "type": "string" }, "maxItems": 16,
                          "description": "Only items carrying all of these tags." },
                "status": { "type": "array", "items": { "type": "string", "enum": &STATUSES[..2 + i % 5] },
                            "description": "Only items in one of these states." },
                "range": {
                    "type": "object",
                    "description": "A time window, inclusive.",
                    "properties": {
                        "from": { "type": "string", "description": "Start of the window (ISO 8601)." },
                        "to": { "type": "string", "description": "End of the window (ISO 8601)." }
                    },
                    "required": ["from"]
                },
                "owner": { "type": "string", "description": "Login of the owner." }
            }
        }),
    );
    props.insert(
        "items".into(),
        json!({
            "type": "array",
            "description": format!("Explicit {noun} to act on, each with an optional weight."),
            "items": {
                "type": "object",
                "properties": {
                    "id": { "type": "string", "description": "Stable identifier." },
                    "weight": { "type": "number", "minimum": 0, "maximum": 1, "description": "Relative importance." },
                    "meta": {
                        "type": "object",
                        "properties": {
                            "label": { "type": "string" },
                            "pinned": { "type": "boolean" },
                            "priority": { "type": "integer", "enum": [1, 2, 3] }
                        }
                    }
                },
                "required": ["id"]
            }
        }),
    );
    for k in 0..(i % 6) {
        props.insert(
            format!("option_{k}"),
            json!({ "type": if k % 2 == 0 { "boolean" } else { "string" },
                    "description": format!("Tuning option {k} for {verb} on {noun}.") }),
        );
    }
    json!({
        "name": format!("{PREFIX}{i:04}_{verb}_{noun}"),
        "title": format!("{} {noun} ({i})", capitalise(verb)),
        "description": format!(
            "{} {noun} in the workspace. Returns a page of matching {noun} with their identifiers, \
             owners and states; use `filters` to narrow and `items` to act on known ones. Variant {i}.",
            capitalise(verb)
        ),
        "inputSchema": {
            "type": "object",
            "properties": props,
            "required": ["query"],
            "additionalProperties": false
        },
        "annotations": { "readOnlyHint": i % 3 != 0, "idempotentHint": i % 2 == 0 }
    })
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

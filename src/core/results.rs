//! Pure shaping of protocol results into what Mastra users see. No I/O here.

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::schema_key::schema_key;
use super::tool_schema;

/// Joins the text blocks of a `content` array with newlines, trimmed; `None` if there are none.
pub fn content_text(content: Option<&Value>) -> Option<String> {
    let blocks = content?.as_array()?;
    let text = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// Adds `ui.serverId = <server>` to a `_meta` object when it carries `ui.resourceUri`
/// (the MCP Apps convention), leaving it untouched otherwise.
pub fn stamp_server_id(meta: &Value, server: &str) -> Value {
    let has_resource_uri = meta.get("ui").and_then(|ui| ui.get("resourceUri")).is_some_and(|v| !v.is_null() && v != &Value::Bool(false) && v != "");
    if !has_resource_uri {
        return meta.clone();
    }
    let mut out = meta.clone();
    if let Some(ui) = out.get_mut("ui").and_then(Value::as_object_mut) {
        ui.insert("serverId".into(), Value::String(server.to_string()));
    }
    out
}

/// `_meta.mastra.strict` when it is a boolean.
pub fn strict_flag(meta: Option<&Value>) -> Option<bool> {
    meta?.get("mastra")?.get("strict")?.as_bool()
}

/// How a `tools/call` result reaches the user.
///
/// * `toolError`: the server said `isError: true`; `text` is the message for the thrown error.
/// * `structured`: `structuredContent` is present; the value is returned with `content` and the
///   stamped result `_meta` attached out of band.
/// * `raw`: the whole `CallToolResult`.
pub fn shape_call_result(server: &str, mut result: Value) -> Value {
    strip_envelope(&mut result);
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    if is_error {
        let text = content_text(result.get("content")).unwrap_or_else(|| "MCP tool execution failed".to_string());
        return json!({ "kind": "toolError", "text": text, "result": result });
    }
    if let Some(structured) = result.get("structuredContent") {
        let meta = result.get("_meta").map(|m| stamp_server_id(m, server));
        return json!({
            "kind": "structured",
            "value": structured,
            "content": result.get("content").cloned().unwrap_or(Value::Array(vec![])),
            "meta": meta,
        });
    }
    json!({ "kind": "raw", "result": result })
}

/// Removes what the 2026-07-28 revision adds around a final result — `resultType: "complete"`,
/// the caching hints `ttlMs` + `cacheScope`, and the protocol's own `_meta` keys
/// (`io.modelcontextprotocol/…`, e.g. the server info stamp) — so that results look the same in
/// both eras. Other results (`input_required`, `task`) and handshake-era results are untouched.
pub fn strip_envelope(result: &mut Value) {
    let Some(object) = result.as_object_mut() else { return };
    if object.get("resultType").and_then(Value::as_str) != Some("complete") {
        return;
    }
    object.remove("resultType");
    if object.contains_key("cacheScope") {
        object.remove("cacheScope");
        object.remove("ttlMs");
    }
    if let Some(meta) = object.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.retain(|key, _| !key.starts_with(PROTOCOL_META_PREFIX));
        if meta.is_empty() {
            object.remove("_meta");
        }
    }
}

/// `strip_envelope` over a result's JSON text: `None` when there is nothing to strip (not a
/// 2026-07-28 final result). The members are copied as text, not parsed into trees, so a big
/// result costs one scan and one copy.
pub fn strip_envelope_text(raw: &str) -> Option<String> {
    use serde_json::value::RawValue;
    let members: std::collections::BTreeMap<String, &RawValue> = serde_json::from_str(raw).ok()?;
    if members.get("resultType").map(|v| v.get()) != Some("\"complete\"") {
        return None;
    }
    let caching_hints = members.contains_key("cacheScope");
    let mut out = String::with_capacity(raw.len());
    out.push('{');
    for (key, value) in &members {
        let text = match key.as_str() {
            "resultType" => continue,
            "cacheScope" | "ttlMs" if caching_hints => continue,
            "_meta" => match without_protocol_keys(value.get()) {
                Some(meta) => std::borrow::Cow::Owned(meta),
                None => continue,
            },
            _ => std::borrow::Cow::Borrowed(value.get()),
        };
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&Value::String(key.clone()).to_string());
        out.push(':');
        out.push_str(&text);
    }
    out.push('}');
    Some(out)
}

/// A result's `_meta` text without the protocol's own keys; `None` when nothing is left.
fn without_protocol_keys(meta: &str) -> Option<String> {
    let Ok(mut object) = serde_json::from_str::<serde_json::Map<String, Value>>(meta) else {
        return Some(meta.to_string());
    };
    object.retain(|key, _| !key.starts_with(PROTOCOL_META_PREFIX));
    (!object.is_empty()).then(|| Value::Object(object).to_string())
}

/// The prefix of the `_meta` keys the protocol itself defines.
const PROTOCOL_META_PREFIX: &str = "io.modelcontextprotocol/";

/// `shape_call_result` over a result's raw JSON text, as JSON text. A plain result (no error,
/// no structured content) — the common case — is passed through without being parsed into a tree.
pub fn shape_call_result_text(server: &str, raw: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Shape<'a> {
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
        #[serde(rename = "structuredContent", borrow, default)]
        structured: Option<&'a serde_json::value::RawValue>,
    }
    // A 2026-07-28 final result loses its envelope first (as text).
    let stripped = if raw.contains("\"resultType\"") { strip_envelope_text(raw) } else { None };
    let raw = stripped.as_deref().unwrap_or(raw);
    match serde_json::from_str::<Shape<'_>>(raw) {
        // (`structuredContent: null` reads as None here but counts as present: it takes the tree path.)
        Ok(Shape { is_error: None | Some(false), structured: None }) if !raw.contains("\"structuredContent\"") => {
            let mut out = String::with_capacity(raw.len() + 24);
            out.push_str("{\"kind\":\"raw\",\"result\":");
            out.push_str(raw);
            out.push('}');
            out
        }
        _ => match serde_json::from_str::<Value>(raw) {
            Ok(result) => shape_call_result(server, result).to_string(),
            Err(_) => json!({ "kind": "raw", "result": Value::Null }).to_string(),
        },
    }
}

/// The `params` text of a `tools/call` (without `_meta`) and its request `_meta` text:
/// `args_json` must be a JSON object, `meta_json` a JSON object or absent (an empty one counts
/// as absent). Both are validated, not re-encoded.
pub fn tool_call_params<'m>(name: &str, args_json: &str, meta_json: Option<&'m str>) -> Result<(String, Option<&'m str>), String> {
    fn object<'a>(what: &str, text: &'a str) -> Result<&'a serde_json::value::RawValue, String> {
        let raw: &serde_json::value::RawValue = serde_json::from_str(text).map_err(|e| format!("{what} is not JSON: {e}"))?;
        if raw.get().trim_start().starts_with('{') {
            Ok(raw)
        } else {
            Err(format!("{what} must be a JSON object"))
        }
    }
    let args = object("arguments", args_json)?;
    let meta = match meta_json {
        Some(meta) => Some(object("_meta", meta)?.get()).filter(|m| *m != "{}"),
        None => None,
    };
    let mut out = String::with_capacity(args_json.len() + name.len() + 32);
    out.push_str("{\"name\":");
    out.push_str(&Value::String(name.to_string()).to_string());
    out.push_str(",\"arguments\":");
    out.push_str(args.get());
    out.push('}');
    Ok((out, meta))
}

/// `describe_tool` over a tool's JSON text, as JSON text: the tool itself is copied through
/// untouched; only its `_meta` and the text of its schemas are read.
pub fn describe_tool_raw(server: &str, tool: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Parts<'a> {
        #[serde(rename = "_meta", default)]
        meta: Option<Value>,
        #[serde(rename = "inputSchema", borrow, default)]
        input: Option<&'a RawValue>,
        #[serde(rename = "outputSchema", borrow, default)]
        output: Option<&'a RawValue>,
    }
    let parts = serde_json::from_str::<Parts>(tool).ok();
    let meta = parts.as_ref().and_then(|p| p.meta.as_ref()).filter(|m| !m.is_null());
    let mut out = String::with_capacity(tool.len() + 128);
    out.push_str("{\"tool\":");
    out.push_str(tool);
    if let Some(m) = meta {
        out.push_str(",\"stampedMeta\":");
        out.push_str(&stamp_server_id(m, server).to_string());
        if let Some(strict) = strict_flag(Some(m)) {
            out.push_str(if strict { ",\"strict\":true" } else { ",\"strict\":false" });
        }
    }
    fn schema_text<'a>(raw: Option<&'a RawValue>) -> Option<&'a str> {
        raw.map(RawValue::get).filter(|t| *t != "null")
    }
    let mut problem = None;
    for (field, raw) in [("inputSchema", parts.as_ref().and_then(|p| p.input)), ("outputSchema", parts.as_ref().and_then(|p| p.output))] {
        let Some(text) = schema_text(raw) else { continue };
        let key = schema_key(text);
        out.push_str(",\"");
        out.push_str(field);
        out.push_str("Key\":\"");
        out.push_str(&key);
        out.push('"');
        if problem.is_none() {
            problem = tool_schema::problem(&key, text).map(|p| schema_problem(field, &p));
        }
    }
    if let Some(problem) = problem {
        out.push_str(",\"schemaProblem\":");
        out.push_str(&problem.to_string());
    }
    out.push('}');
    out
}

/// The `schemaProblem` of a described tool: which of its schemas is not a valid JSON Schema of
/// its dialect, where and why (see `tool_schema`). The face sets such a tool aside.
fn schema_problem(field: &str, problem: &tool_schema::Problem) -> Value {
    json!({ "schema": field, "pointer": problem.pointer, "message": problem.message })
}

/// A `tools/list` entry plus what the face needs to build a Mastra tool from it: the server id
/// stamped into its `_meta`, its `strict` flag, and the keys of its schemas' text (see
/// `schema_key`).
pub fn describe_tool(server: &str, tool: &Value) -> Value {
    let meta = tool.get("_meta");
    let mut out = Map::new();
    out.insert("tool".into(), tool.clone());
    if let Some(m) = meta {
        out.insert("stampedMeta".into(), stamp_server_id(m, server));
    }
    if let Some(strict) = strict_flag(meta) {
        out.insert("strict".into(), Value::Bool(strict));
    }
    let mut problem = None;
    for (field, key) in [("inputSchema", "inputSchemaKey"), ("outputSchema", "outputSchemaKey")] {
        if let Some(schema) = tool.get(field).filter(|s| !s.is_null()) {
            let text = schema.to_string();
            let schema_key = schema_key(&text);
            if problem.is_none() {
                problem = tool_schema::problem(&schema_key, &text).map(|p| schema_problem(field, &p));
            }
            out.insert(key.into(), Value::String(schema_key));
        }
    }
    if let Some(problem) = problem {
        out.insert("schemaProblem".into(), problem);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_2026_envelope_is_stripped_from_final_results_only() {
        let mut read = json!({ "resultType": "complete", "contents": [], "ttlMs": 0, "cacheScope": "private",
            "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "s", "version": "1" }, "app/key": 1 } });
        strip_envelope(&mut read);
        assert_eq!(read, json!({ "contents": [], "_meta": { "app/key": 1 } }));
        let mut call = json!({ "resultType": "complete", "content": [], "_meta": { "io.modelcontextprotocol/serverInfo": {} } });
        strip_envelope(&mut call);
        assert_eq!(call, json!({ "content": [] }));
        let task = json!({ "resultType": "task", "taskId": "t", "status": "working", "ttlMs": 1000 });
        let mut kept = task.clone();
        strip_envelope(&mut kept);
        assert_eq!(kept, task);
        let legacy = json!({ "content": [], "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t" } } });
        let mut kept = legacy.clone();
        strip_envelope(&mut kept);
        assert_eq!(kept, legacy, "handshake-era results are not touched");
        let text = r#"{"resultType":"complete","content":[{"type":"text","text":"x"}],"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{},"app/k":[1]}}"#;
        let stripped: Value = serde_json::from_str(&strip_envelope_text(text).unwrap_or_default()).unwrap_or_default();
        assert_eq!(stripped, json!({ "content": [{ "type": "text", "text": "x" }], "_meta": { "app/k": [1] } }));
        assert_eq!(strip_envelope_text(r#"{"content":[]}"#), None);
        assert_eq!(strip_envelope_text(r#"{"resultType":"task","taskId":"t"}"#), None);
        let shaped = shape_call_result_text("s", r#"{"resultType":"complete","content":[{"type":"text","text":"x"}]}"#);
        assert_eq!(
            serde_json::from_str::<Value>(&shaped).unwrap_or_default(),
            json!({ "kind": "raw", "result": { "content": [{ "type": "text", "text": "x" }] } })
        );
    }

    #[test]
    fn tool_errors_carry_joined_trimmed_text() {
        let r = json!({"isError": true, "content": [
            {"type": "text", "text": " a "}, {"type": "image", "data": ""}, {"type": "text", "text": "b "}]});
        let shaped = shape_call_result("s", r);
        assert_eq!(shaped["kind"], "toolError");
        assert_eq!(shaped["text"], "a \nb");
        let empty = shape_call_result("s", json!({"isError": true, "content": []}));
        assert_eq!(empty["text"], "MCP tool execution failed");
    }

    #[test]
    fn structured_results_keep_content_and_stamped_meta() {
        let r = json!({"content": [{"type": "text", "text": "a is 1"}], "structuredContent": {"a": 1},
                       "_meta": {"ui": {"resourceUri": "ui://x"}}});
        let shaped = shape_call_result("srv", r);
        assert_eq!(shaped["kind"], "structured");
        assert_eq!(shaped["value"], json!({"a": 1}));
        assert_eq!(shaped["meta"]["ui"]["serverId"], "srv");
    }

    #[test]
    fn raw_tool_descriptions_match_the_tree_ones() {
        for tool in [
            json!({"name": "a", "inputSchema": {"type": "object"}}),
            json!({"name": "b", "inputSchema": {}, "_meta": {"ui": {"resourceUri": "ui://x"}, "mastra": {"strict": true}}}),
            json!({"name": "c", "inputSchema": {}, "_meta": {"other": 1}}),
            json!({"name": "d", "inputSchema": {"type": "object", "properties": {"required": ["x"]}}}),
            json!({"name": "e", "inputSchema": {"type": "object"}, "outputSchema": {"type": 3}}),
        ] {
            let raw: Value = serde_json::from_str(&describe_tool_raw("srv", &tool.to_string())).expect("valid JSON");
            assert_eq!(raw, describe_tool("srv", &tool));
        }
        let malformed = describe_tool("srv", &json!({"name": "d", "inputSchema": {"type": "object", "properties": {"required": ["x"]}}}));
        assert_eq!(malformed["schemaProblem"]["schema"], "inputSchema");
        assert_eq!(malformed["schemaProblem"]["pointer"], "/properties/required");
        let output = describe_tool("srv", &json!({"name": "e", "inputSchema": {"type": "object"}, "outputSchema": {"type": 3}}));
        assert_eq!(output["schemaProblem"]["schema"], "outputSchema");
        assert_eq!(output["schemaProblem"]["pointer"], "/type");
        assert!(describe_tool("srv", &json!({"name": "a", "inputSchema": {"type": "object"}})).get("schemaProblem").is_none());
    }

    #[test]
    fn text_shaping_matches_tree_shaping() {
        for result in [
            json!({"content": [{"type": "text", "text": "hi"}]}),
            json!({"content": [], "isError": false}),
            json!({"isError": true, "content": [{"type": "text", "text": "boom"}]}),
            json!({"content": [], "structuredContent": {"a": 1}, "_meta": {"ui": {"resourceUri": "ui://x"}}}),
            json!({"content": [], "structuredContent": null}),
        ] {
            let text: Value = serde_json::from_str(&shape_call_result_text("srv", &result.to_string())).expect("valid JSON");
            assert_eq!(text, shape_call_result("srv", result));
        }
    }

    #[test]
    fn plain_results_are_raw() {
        let r = json!({"content": [{"type": "text", "text": "hi"}]});
        assert_eq!(shape_call_result("s", r.clone())["result"], r);
    }

    #[test]
    fn meta_without_resource_uri_is_not_stamped() {
        let m = json!({"ui": {"other": 1}});
        assert_eq!(stamp_server_id(&m, "s"), m);
        assert_eq!(strict_flag(Some(&json!({"mastra": {"strict": true}}))), Some(true));
        assert_eq!(strict_flag(Some(&json!({"mastra": {"strict": "yes"}}))), None);
    }
}

//! The per-request `_meta` envelope of a 2026-07-28 session (no `initialize` handshake): every
//! request names the protocol version, the client and its capabilities, and — when the user
//! wants server logs — the lowest log level the server may send for it. The envelope is
//! serialised once per session; a request line gets it spliced into its `params` as text,
//! merged with the caller's own `_meta` (whose keys win, as with rmcp's peer), without building
//! a JSON tree per request.

use serde::Serialize;
use serde_json::{Map, Value};

pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// Every reserved key starts so; a caller `_meta` that has none cannot collide with the envelope.
const RESERVED_PREFIX: &str = "\"io.modelcontextprotocol/";

/// The envelope's members as JSON text (`"k":v,"k":v`, no braces).
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    members: String,
}

impl Envelope {
    /// The envelope of a session: its negotiated `protocol_version`, the `client_info` and
    /// `capabilities` it was opened with, and the server log level asked for, if any.
    pub fn new(
        protocol_version: &str,
        client_info: &impl Serialize,
        capabilities: &impl Serialize,
        log_level: Option<&str>,
    ) -> Result<Envelope, serde_json::Error> {
        let mut members = String::with_capacity(256);
        push_member(&mut members, PROTOCOL_VERSION_KEY, &serde_json::to_string(protocol_version)?);
        push_member(&mut members, CLIENT_INFO_KEY, &serde_json::to_string(client_info)?);
        push_member(&mut members, CLIENT_CAPABILITIES_KEY, &serde_json::to_string(capabilities)?);
        if let Some(level) = log_level {
            push_member(&mut members, LOG_LEVEL_KEY, &serde_json::to_string(level)?);
        }
        Ok(Envelope { members })
    }

    /// The members' JSON text.
    pub fn members(&self) -> &str {
        &self.members
    }

    /// The members merged under the caller's `_meta` members (their keys win).
    fn merged_under(&self, caller: &str) -> String {
        let parse = |text: &str| serde_json::from_str::<Map<String, Value>>(&format!("{{{text}}}")).unwrap_or_default();
        let mut merged = parse(&self.members);
        merged.extend(parse(caller));
        let text = Value::Object(merged).to_string();
        text[1..text.len() - 1].to_string()
    }
}

fn push_member(out: &mut String, key: &str, value_json: &str) {
    if !out.is_empty() {
        out.push(',');
    }
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
    out.push_str(value_json);
}

/// The members of a JSON object's text (`{"a":1}` → `"a":1`), trimmed.
fn object_members(object_json: &str) -> &str {
    let text = object_json.trim();
    let text = text.strip_prefix('{').unwrap_or(text);
    text.strip_suffix('}').unwrap_or(text).trim()
}

/// Appends `params_json` (a JSON object's text without `_meta`) to `out` with a `_meta` made of
/// the envelope (if any) and the caller's `meta_json` (a JSON object's text, if any). Without
/// either, `params_json` is appended as it is.
pub fn push_params(out: &mut String, params_json: &str, envelope: Option<&Envelope>, meta_json: Option<&str>) {
    let caller = meta_json.map(object_members).unwrap_or("");
    if envelope.is_none() && caller.is_empty() {
        out.push_str(params_json);
        return;
    }
    // Params that are not an object (the lane's callers never send such) become one.
    let params = params_json.trim();
    let head = match params.strip_suffix('}') {
        Some(head) if params.starts_with('{') => head,
        _ => "{",
    };
    out.push_str(head);
    if !head.trim_end().ends_with('{') {
        out.push(',');
    }
    out.push_str("\"_meta\":{");
    match envelope {
        // A caller that sets a reserved key itself: merged as objects, the caller's value kept.
        Some(envelope) if caller.contains(RESERVED_PREFIX) => out.push_str(&envelope.merged_under(caller)),
        Some(envelope) => {
            out.push_str(envelope.members());
            if !caller.is_empty() {
                out.push(',');
                out.push_str(caller);
            }
        }
        None => out.push_str(caller),
    }
    out.push_str("}}");
}

/// Adds the envelope to an `initialize` request (`message`, the JSON-RPC request as a value)
/// sent over HTTP, built from its own params: the version it asks for, its `clientInfo` and its
/// `capabilities`. A 2026-07-28 server reads these on every request and can refuse the handshake
/// by its own rules, naming what it supports; a handshake-era server ignores `_meta` keys it does
/// not know. Keys the caller already put in `_meta` are kept. Returns the version asked for.
pub fn add_to_handshake(message: &mut Value) -> Option<String> {
    let params = message.get_mut("params")?.as_object_mut()?;
    let version = params.get("protocolVersion")?.as_str()?.to_string();
    let members = [
        (PROTOCOL_VERSION_KEY, Value::String(version.clone())),
        (CLIENT_INFO_KEY, params.get("clientInfo").cloned().unwrap_or(Value::Null)),
        (CLIENT_CAPABILITIES_KEY, params.get("capabilities").cloned().unwrap_or_else(|| Value::Object(Map::new()))),
    ];
    let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        for (key, value) in members {
            if !value.is_null() {
                meta.entry(key).or_insert(value);
            }
        }
    }
    Some(version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envelope(log_level: Option<&str>) -> Envelope {
        Envelope::new(
            "2026-07-28",
            &json!({ "name": "s", "version": "1.0.0" }),
            &json!({ "elicitation": { "form": {} }, "extensions": { "io.modelcontextprotocol/ui": {} } }),
            log_level,
        )
        .expect("serialisable")
    }

    fn params(text: &str, envelope: Option<&Envelope>, meta: Option<&str>) -> Value {
        let mut out = String::new();
        push_params(&mut out, text, envelope, meta);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{out} is not JSON: {e}"))
    }

    #[test]
    fn the_envelope_is_spliced_into_params_without_meta() {
        let e = envelope(None);
        let got = params(r#"{"name":"echo","arguments":{"message":"hi"}}"#, Some(&e), None);
        assert_eq!(got["name"], "echo");
        assert_eq!(got["arguments"]["message"], "hi");
        assert_eq!(got["_meta"][PROTOCOL_VERSION_KEY], "2026-07-28");
        assert_eq!(got["_meta"][CLIENT_INFO_KEY]["name"], "s");
        assert_eq!(got["_meta"][CLIENT_CAPABILITIES_KEY]["elicitation"], json!({ "form": {} }));
        assert!(got["_meta"].get(LOG_LEVEL_KEY).is_none());
    }

    #[test]
    fn empty_params_get_a_meta_without_a_stray_comma() {
        let e = envelope(Some("debug"));
        for text in ["{}", "{ }", " {}\n"] {
            let got = params(text, Some(&e), None);
            assert_eq!(got.as_object().map(|o| o.len()), Some(1), "{text}");
            assert_eq!(got["_meta"][LOG_LEVEL_KEY], "debug");
        }
    }

    #[test]
    fn the_callers_meta_is_merged_with_the_envelope() {
        let e = envelope(Some("info"));
        let got = params(r#"{"name":"count","arguments":{}}"#, Some(&e), Some(r#"{"progressToken":"run-1","x":{"y":[1,2]}}"#));
        assert_eq!(got["_meta"]["progressToken"], "run-1");
        assert_eq!(got["_meta"]["x"], json!({ "y": [1, 2] }));
        assert_eq!(got["_meta"][PROTOCOL_VERSION_KEY], "2026-07-28");
        assert_eq!(got["_meta"][LOG_LEVEL_KEY], "info");
    }

    #[test]
    fn a_caller_key_that_is_reserved_wins_once() {
        let e = envelope(Some("debug"));
        let meta = format!(r#"{{"{LOG_LEVEL_KEY}":"error","progressToken":7}}"#);
        let mut out = String::new();
        push_params(&mut out, r#"{"name":"t"}"#, Some(&e), Some(&meta));
        assert_eq!(out.matches(LOG_LEVEL_KEY).count(), 1, "no duplicate key: {out}");
        let got: Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(got["_meta"][LOG_LEVEL_KEY], "error");
        assert_eq!(got["_meta"]["progressToken"], 7);
        assert_eq!(got["_meta"][CLIENT_INFO_KEY]["version"], "1.0.0");
    }

    #[test]
    fn params_that_are_not_an_object_become_one() {
        let e = envelope(None);
        let got = params("null", Some(&e), Some(r#"{"progressToken":1}"#));
        assert_eq!(got["_meta"]["progressToken"], 1);
        assert_eq!(got.as_object().map(|o| o.len()), Some(1));
    }

    #[test]
    fn without_an_envelope_only_a_non_empty_caller_meta_is_added() {
        let mut out = String::new();
        push_params(&mut out, r#"{"name":"t","arguments":{}}"#, None, None);
        assert_eq!(out, r#"{"name":"t","arguments":{}}"#);
        out.clear();
        push_params(&mut out, r#"{"name":"t","arguments":{}}"#, None, Some("{}"));
        assert_eq!(out, r#"{"name":"t","arguments":{}}"#);
        out.clear();
        push_params(&mut out, r#"{"name":"t","arguments":{}}"#, None, Some(r#"{"progressToken":1}"#));
        assert_eq!(out, r#"{"name":"t","arguments":{},"_meta":{"progressToken":1}}"#);
    }

    #[test]
    fn the_envelope_matches_what_rmcp_puts_in_meta() {
        use rmcp::model::{ClientCapabilities, Implementation, ProtocolVersion, RequestMetaObject};
        let info: Implementation = serde_json::from_value(json!({ "name": "s", "version": "1.0.0" })).expect("implementation");
        let caps: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": { "form": {} }, "extensions": { "io.modelcontextprotocol/ui": {} } }))
                .expect("capabilities");
        let rmcp_meta = RequestMetaObject::with_client_context(ProtocolVersion::V_2026_07_28, info.clone(), caps.clone());
        let ours = Envelope::new(&ProtocolVersion::V_2026_07_28.to_string(), &info, &caps, None).expect("serialisable");
        let ours: Value = serde_json::from_str(&format!("{{{}}}", ours.members())).expect("JSON");
        assert_eq!(ours, serde_json::to_value(&rmcp_meta).expect("rmcp meta serialises"));
    }

    #[test]
    fn a_handshake_carries_the_envelope_built_from_its_own_params() {
        let mut message = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": "2025-11-25", "capabilities": { "roots": {} }, "clientInfo": { "name": "c", "version": "1" }, "_meta": { "progressToken": 1, "io.modelcontextprotocol/clientInfo": { "name": "mine" } } }
        });
        assert_eq!(add_to_handshake(&mut message).as_deref(), Some("2025-11-25"));
        let meta = &message["params"]["_meta"];
        assert_eq!(meta[PROTOCOL_VERSION_KEY], "2025-11-25");
        assert_eq!(meta[CLIENT_CAPABILITIES_KEY], json!({ "roots": {} }));
        assert_eq!(meta[CLIENT_INFO_KEY]["name"], "mine", "the caller's own key is kept");
        assert_eq!(meta["progressToken"], 1);
        assert_eq!(message["params"]["clientInfo"]["name"], "c", "the params themselves are unchanged");
    }

    #[test]
    fn a_message_without_a_version_is_left_alone() {
        let mut message = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        assert_eq!(add_to_handshake(&mut message), None);
        assert_eq!(message, json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    }
}

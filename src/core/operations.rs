//! The face's operations other than `tools/call` (`tool_call.rs`), each one core call traced as
//! one operation when `observed` (`observe::scope`), its outcome encoded as the face reads it
//! (`encode`): session info, tool listings, lists over all servers, `resources/read`, a prompt
//! with its list entry, roots. The MCP method each of the face's operations sends, for its spans
//! (`face_methods`), and the core's defaults the face shows (`face_defaults`).

use std::sync::Arc;

use serde_json::{json, Value};

use super::connection::{Connection, RequestOptions};
use super::encode::{self, Traced};
use super::error::Result;
use super::lists::{self, Listing};
use super::registry::{Registry, ServerOutcome};
use super::{config, input, observe, tool_cache, tool_call};

/// The request of a tool listing.
pub const LIST_TOOLS: &str = "tools/list";
/// The request of a resource read.
pub const READ_RESOURCE: &str = "resources/read";
/// The request of a prompt.
pub const GET_PROMPT: &str = "prompts/get";
const ROOTS_CHANGED: &str = "notifications/roots/list_changed";

/// The MCP method each operation of the face sends, by the face's name of it: its spans'
/// `mcp.method.name` (the face names no method itself). The lists by their `Listing` name.
pub fn face_methods() -> Value {
    let mut methods = serde_json::Map::new();
    for (operation, method) in
        [("callTool", tool_call::METHOD), ("listTools", LIST_TOOLS), ("readResource", READ_RESOURCE), ("getPrompt", GET_PROMPT)]
    {
        methods.insert(operation.into(), method.into());
    }
    for listing in [Listing::Resources, Listing::ResourceTemplates, Listing::Prompts] {
        methods.insert(listing.parts().1.into(), listing.method().into());
    }
    Value::Object(methods)
}

/// The core's defaults the face shows (`MCPClient.defaultTimeout`, the reason of an abort
/// without one), by the face's name.
pub fn face_defaults() -> Value {
    json!({ "requestTimeoutMs": config::DEFAULT_REQUEST_TIMEOUT_MS, "abortReason": config::DEFAULT_ABORT_REASON })
}

/// `{ serverVersion, instructions, protocolVersion }` of `conn`'s session (connecting if needed).
pub async fn session_info(conn: &Connection) -> Result<Value> {
    let live = conn.ensure_connected().await?;
    Ok(json!({
        "serverVersion": live.server_version,
        "instructions": live.instructions,
        "protocolVersion": live.protocol_version,
    }))
}

/// What a tool listing carries of the described tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolsText {
    /// The described tools' JSON text.
    Included,
    /// Their key only (`toolsKey`): a face that holds their parse for that key already (every
    /// per-user client of a server lists the same tools) is spared the text; one that does not
    /// asks for it by the key (`interned::lookup`).
    KeyOnly,
}

/// One server's tool listing as JSON text (`encode::tool_listing`); `meta`: the `_meta` of its
/// `tools/list` requests (trace context).
async fn tools_of(conn: Arc<Connection>, meta: Option<Value>, text: ToolsText) -> Result<String> {
    let (epoch, tools) = tool_cache::tools(&conn, meta.as_ref()).await?;
    let info = session_info(&conn).await?;
    let described = (text == ToolsText::Included).then_some(&*tools.text);
    Ok(encode::tool_listing(&info, epoch, &tools.key, described))
}

/// The `_meta` of `server`'s requests in `metas` (by server name), when an object.
fn meta_of(metas: Option<&Value>, server: &str) -> Option<Value> {
    metas.and_then(|m| m.get(server)).filter(|m| m.is_object()).cloned()
}

/// Tools of one server (`server` given) or of all servers, as the JSON text of
/// `Array<{ server, ok, value?, error?, durationMs }>`.
pub async fn list_tools(
    registry: &Registry,
    server: Option<String>,
    per_server_timeout_ms: Option<u64>,
    metas: Option<Value>,
    text: ToolsText,
    observed: bool,
) -> Result<String> {
    const METHOD: &str = LIST_TOOLS;
    let outcomes = match server {
        Some(name) => {
            let conn = registry.get(&name)?;
            let started = std::time::Instant::now();
            let result = observe::scope(observed, METHOD, tools_of(conn, meta_of(metas.as_ref(), &name), text)).await;
            vec![ServerOutcome { server: name, result: Ok(result), duration_ms: started.elapsed().as_secs_f64() * 1000.0 }]
        }
        None => {
            registry
                .fan_out(per_server_timeout_ms, |conn| {
                    let meta = meta_of(metas.as_ref(), conn.name());
                    async move { Ok(observe::scope(observed, METHOD, tools_of(conn, meta, text)).await) }
                })
                .await
        }
    };
    Ok(encode::outcomes_text(outcomes))
}

/// `listing` over all servers, every page: `Array<{ server, ok, value?, error?, durationMs }>`.
pub async fn list_all(registry: &Registry, listing: Listing, per_server_timeout_ms: Option<u64>, metas: Option<Value>, observed: bool) -> Value {
    let outcomes: Vec<ServerOutcome<Traced<Vec<Value>>>> = registry
        .fan_out(per_server_timeout_ms, |conn| {
            let meta = meta_of(metas.as_ref(), conn.name());
            async move { Ok(observe::scope(observed, listing.method(), async move { lists::list_of(&conn, listing, meta.as_ref()).await }).await) }
        })
        .await;
    encode::outcomes_json(outcomes)
}

/// `resources/read`; `meta`: the request's `_meta` (trace context).
pub async fn read_resource(conn: &Connection, uri: String, meta: Option<Value>, observed: bool) -> Traced<Value> {
    const METHOD: &str = READ_RESOURCE;
    let options = RequestOptions { meta: meta.filter(Value::is_object), ..RequestOptions::default() };
    observe::scope(observed, METHOD, input::request(conn, METHOD, json!({ "uri": uri }), options)).await
}

/// `prompts/get`, plus the matching `prompts/list` entry as `prompt` (when the list can be read).
pub async fn get_prompt(conn: &Connection, name: String, args: Option<Value>, meta: Option<Value>, observed: bool) -> Traced<Value> {
    const METHOD: &str = GET_PROMPT;
    let mut params = json!({ "name": name });
    if let Some(args) = args.filter(Value::is_object) {
        params["arguments"] = args;
    }
    let meta = meta.filter(Value::is_object);
    let options = RequestOptions { meta: meta.clone(), ..RequestOptions::default() };
    let (result, trace) = observe::scope(observed, METHOD, input::request(conn, METHOD, params, options)).await;
    let Ok(mut result) = result else { return (result, trace) };
    if let Ok(prompts) = lists::list_all(conn, Listing::Prompts.method(), "prompts", meta.as_ref()).await {
        if let Some(p) = prompts.into_iter().find(|p| p.get("name").and_then(Value::as_str) == Some(name.as_str())) {
            result["prompt"] = p;
        }
    }
    (Ok(result), trace)
}

/// Replaces a server's roots and notifies it (when connected).
pub async fn set_roots(conn: &Connection, roots: Vec<Value>, observed: bool) -> Traced<()> {
    observe::scope(observed, ROOTS_CHANGED, conn.set_roots(roots)).await
}

/// Sends `notifications/roots/list_changed` (a no-op when not connected).
pub async fn send_roots_list_changed(conn: &Connection, observed: bool) -> Traced<()> {
    observe::scope(observed, ROOTS_CHANGED, conn.send_roots_list_changed()).await
}

/// `{ server: value | null }` for every configured server, in config order.
pub fn per_server<T: Into<Value>>(registry: &Registry, value: impl Fn(&Connection) -> Option<T>) -> Value {
    let mut out = serde_json::Map::new();
    for name in registry.names() {
        let v = registry.get(name).ok().and_then(|c| value(&c));
        out.insert(name.clone(), v.map_or(Value::Null, Into::into));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_face_names_each_method_by_its_operation() {
        let methods = face_methods();
        assert_eq!(methods["callTool"], "tools/call");
        assert_eq!(methods["listTools"], "tools/list");
        assert_eq!(methods["readResource"], "resources/read");
        assert_eq!(methods["getPrompt"], "prompts/get");
        // The list kinds by the names the binding's `listAll` takes (`Listing::from_name`).
        for (kind, method) in [("resources", "resources/list"), ("resourceTemplates", "resources/templates/list"), ("prompts", "prompts/list")] {
            assert_eq!(methods[kind], method);
            assert_eq!(Listing::from_name(kind).map(Listing::method), Some(method));
        }
        assert_eq!(methods.as_object().map(serde_json::Map::len), Some(7));
    }

    #[test]
    fn the_face_shows_the_cores_defaults() {
        let defaults = face_defaults();
        assert_eq!(defaults["requestTimeoutMs"], 60_000);
        assert_eq!(defaults["abortReason"], "This operation was aborted");
        assert_eq!(defaults.as_object().map(serde_json::Map::len), Some(2));
    }
}

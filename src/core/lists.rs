//! Paged lists (`tools/list`, `prompts/list`, `resources/list`, ...): a layer above the
//! connection's request path that follows `nextCursor` to the end.

use serde_json::{json, Value};

use super::connection::{Connection, RequestOptions};
use super::error::{ErrorKind, McpError, Result};

/// Longest a list may be paged before we stop (protects against cursor loops).
const MAX_PAGES: usize = 1000;

/// Follows `nextCursor` to the end and concatenates `key` arrays; `meta`: each page request's
/// `_meta` (trace context).
pub async fn list_all(conn: &Connection, method: &str, key: &str, meta: Option<&Value>) -> Result<Vec<Value>> {
    list_all_raw(conn, method, key, meta)
        .await?
        .iter()
        .map(|item| {
            serde_json::from_str(item).map_err(|e| {
                McpError::new(ErrorKind::InvalidResponse, conn.name(), format!("Server {} answered {method} with an invalid item: {e}", conn.name()))
            })
        })
        .collect()
}

/// `list_all` keeping each item as its JSON text (no tree is built for big catalogs).
pub async fn list_all_raw(conn: &Connection, method: &str, key: &str, meta: Option<&Value>) -> Result<Vec<String>> {
    list_all_hinted(conn, method, key, meta).await.map(|(items, _)| items)
}

/// `list_all_raw`, with the shortest `ttlMs` its pages gave (2026-07-28 cache hints: how long the
/// list may be reused without asking; `None` when a page gave none).
pub async fn list_all_hinted(conn: &Connection, method: &str, key: &str, meta: Option<&Value>) -> Result<(Vec<String>, Option<u64>)> {
    let mut ttl: Option<u64> = Some(u64::MAX);
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let options = RequestOptions { meta: meta.cloned(), ..RequestOptions::default() };
        let page = conn.request_raw(method, params, options).await?;
        ttl = ttl.zip(page_ttl(&page)).map(|(a, b)| a.min(b));
        let next = read_page(&page, key, &mut items)
            .map_err(|why| McpError::new(ErrorKind::InvalidResponse, conn.name(), format!("Server {} answered {method} {why}", conn.name())))?;
        match next {
            Some(next) if Some(next.as_str()) != cursor.as_deref() => cursor = Some(next),
            _ => return Ok((items, ttl)),
        }
    }
    Err(McpError::new(ErrorKind::InvalidResponse, conn.name(), format!("Server {} paginated {method} past {MAX_PAGES} pages", conn.name())))
}

/// A page's `ttlMs` cache hint.
fn page_ttl(page: &str) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Hint {
        #[serde(rename = "ttlMs")]
        ttl_ms: Option<u64>,
    }
    serde_json::from_str::<Hint>(page).ok()?.ttl_ms
}

/// Appends the `key` items of one list page (as JSON text) to `items`; returns `nextCursor`.
fn read_page(page: &str, key: &str, items: &mut Vec<String>) -> std::result::Result<Option<String>, String> {
    use serde_json::value::RawValue;
    let fields: std::collections::BTreeMap<String, &RawValue> = serde_json::from_str(page).map_err(|e| format!("with an invalid page ({e})"))?;
    let list = fields.get(key).ok_or_else(|| format!("without a \"{key}\" array"))?;
    let list: Vec<&RawValue> = serde_json::from_str(list.get()).map_err(|_| format!("without a \"{key}\" array"))?;
    items.extend(list.into_iter().map(|item| item.get().to_string()));
    Ok(fields.get("nextCursor").and_then(|c| serde_json::from_str::<String>(c.get()).ok()))
}

/// The lists the face reads over all servers, every page (list policy: which request, which
/// key of its result, which server capability it needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    Resources,
    ResourceTemplates,
    Prompts,
}

/// A server that does not implement a list's method (JSON-RPC "method not found").
const METHOD_NOT_FOUND: i64 = -32601;

impl Listing {
    /// From the face's name of the list (`'resources' | 'resourceTemplates' | 'prompts'`).
    pub fn from_name(name: &str) -> Option<Listing> {
        match name {
            "resources" => Some(Listing::Resources),
            "resourceTemplates" => Some(Listing::ResourceTemplates),
            "prompts" => Some(Listing::Prompts),
            _ => None,
        }
    }

    /// The request, the key of its items, and the capability a server must have declared.
    pub fn parts(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Listing::Resources => ("resources/list", "resources", "resources"),
            Listing::ResourceTemplates => ("resources/templates/list", "resourceTemplates", "resources"),
            Listing::Prompts => ("prompts/list", "prompts", "prompts"),
        }
    }

    pub fn method(self) -> &'static str {
        self.parts().0
    }
}

/// Every item of `listing` on `conn`: none from a server without its capability, or one that
/// does not implement the method.
pub async fn list_of(conn: &Connection, listing: Listing, meta: Option<&Value>) -> Result<Vec<Value>> {
    let (method, key, capability) = listing.parts();
    let live = conn.ensure_connected().await?;
    if !super::connection::server_has(&live, capability) {
        return Ok(Vec::new());
    }
    unimplemented_is_empty(list_all(conn, method, key, meta).await)
}

/// The list rule every per-server list of the face gets (`@mastra/mcp`'s): a server that answers
/// "method not found" (-32601) has an empty list; any other failure stays one.
pub fn unimplemented_is_empty(listed: Result<Vec<Value>>) -> Result<Vec<Value>> {
    match listed {
        Err(e) if e.rpc_code == Some(METHOD_NOT_FOUND) => Ok(Vec::new()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_face_names_three_listings() {
        assert_eq!(Listing::from_name("resourceTemplates").map(Listing::parts), Some(("resources/templates/list", "resourceTemplates", "resources")));
        assert_eq!(Listing::from_name("prompts").map(Listing::method), Some("prompts/list"));
        assert_eq!(Listing::from_name("resources").map(Listing::method), Some("resources/list"));
        assert_eq!(Listing::from_name("tools"), None);
    }

    #[test]
    fn a_list_the_server_does_not_implement_is_empty() {
        let unimplemented = McpError::rpc("s", -32601, "Method not found", None);
        assert_eq!(unimplemented_is_empty(Err(unimplemented)).unwrap(), Vec::<Value>::new());
        let refused = McpError::rpc("s", -32603, "Internal error", None);
        assert_eq!(unimplemented_is_empty(Err(refused)).unwrap_err().rpc_code, Some(-32603));
        let items = vec![json!({ "name": "a" })];
        assert_eq!(unimplemented_is_empty(Ok(items.clone())).unwrap(), items);
    }

    #[test]
    fn a_page_gives_its_items_and_cursor() {
        let mut items = Vec::new();
        assert_eq!(read_page(r#"{"prompts":[{"name":"a"}],"nextCursor":"c2"}"#, "prompts", &mut items), Ok(Some("c2".into())));
        assert_eq!(items, vec![r#"{"name":"a"}"#.to_string()]);
        assert!(read_page(r#"{"other":[]}"#, "prompts", &mut items).is_err());
    }
}

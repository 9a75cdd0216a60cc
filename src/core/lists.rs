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
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let options = RequestOptions { meta: meta.cloned(), ..RequestOptions::default() };
        let page = conn.request_raw(method, params, options).await?;
        let next = read_page(&page, key, &mut items).map_err(|why| {
            McpError::new(ErrorKind::InvalidResponse, conn.name(), format!("Server {} answered {method} {why}", conn.name()))
        })?;
        match next {
            Some(next) if Some(next.as_str()) != cursor.as_deref() => cursor = Some(next),
            _ => return Ok(items),
        }
    }
    Err(McpError::new(
        ErrorKind::InvalidResponse,
        conn.name(),
        format!("Server {} paginated {method} past {MAX_PAGES} pages", conn.name()),
    ))
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

//! Skills (SEP-2640, the `io.modelcontextprotocol/skills` extension): a server's skills listed
//! (`skills/list`) or confirmed by URI (`skills/get`), a skill loaded (its `SKILL.md` read and
//! verified against the entry: size, digest, frontmatter) and its files read one by one when
//! asked, each verified against the entry it was loaded from. Nothing is read ahead of need: a
//! listing reads no file, a load reads only the `SKILL.md`.
//!
//! Requests go only to a server that declared the extension. A skill is identified by its server
//! and its URI together; the face keeps both.

mod entry;
mod verify;

use serde_json::{json, Value};

use super::connection::{Connection, RequestOptions};
use super::error::{ErrorKind, McpError, Result};
use super::{input, lists};
pub use entry::{Entry, Files, MANIFEST};

/// The extension's identifier in a server's capabilities.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";
const LIST: &str = "skills/list";
const GET: &str = "skills/get";
const READ: &str = "resources/read";

/// Whether the server declared the extension (connecting if needed).
async fn declared(conn: &Connection) -> Result<bool> {
    let live = conn.ensure_connected().await?;
    Ok(live.server_capabilities().pointer(&format!("/extensions/{}", EXTENSION.replace('/', "~1"))).is_some_and(|v| !v.is_null()))
}

async fn require_declared(conn: &Connection, what: &str) -> Result<()> {
    if declared(conn).await? {
        return Ok(());
    }
    Err(McpError::new(
        ErrorKind::InvalidState,
        conn.name(),
        format!("Cannot {what} on server {}: it does not declare the skills extension ({EXTENSION})", conn.name()),
    ))
}

fn invalid_entry(conn: &Connection, why: String) -> McpError {
    McpError::new(ErrorKind::InvalidResponse, conn.name(), format!("Server {} gave a skill entry that cannot be loaded: {why}", conn.name()))
}

fn unverified(conn: &Connection, uri: &str, why: String) -> McpError {
    McpError::new(ErrorKind::Unverified, conn.name(), format!("Skill file {uri} from server {} failed verification, not used: {why}", conn.name()))
}

/// Every skill entry the server lists, every page (none for a server without the extension).
/// Entries come as the server gave them; each is checked when it is loaded.
pub async fn list(conn: &Connection) -> Result<Vec<Value>> {
    if !declared(conn).await? {
        return Ok(Vec::new());
    }
    lists::list_all(conn, LIST, "skills", None).await
}

/// The entry of the skill whose `SKILL.md` is `uri` (`skills/get`).
pub async fn get(conn: &Connection, uri: &str) -> Result<Value> {
    require_declared(conn, "get a skill").await?;
    let result = input::request(conn, GET, json!({ "uri": uri }), RequestOptions::default()).await?;
    let skill = result.get("skill").filter(|s| s.is_object()).cloned();
    skill.ok_or_else(|| invalid_entry(conn, format!("{GET} for {uri} returned no skill")))
}

/// Loads a skill from its entry (`entry`; or, given a URI string, the entry `skills/get` returns):
/// reads its `SKILL.md` and verifies it. `{ uri, root, name, frontmatter, instructions, text,
/// files, dynamic, entry }`: `instructions` is the body after the frontmatter, `files` the
/// listed paths relative to the root, `entry` the entry later file reads are verified against.
pub async fn load(conn: &Connection, entry: Value) -> Result<Value> {
    require_declared(conn, "load a skill").await?;
    let raw = match entry {
        Value::String(uri) => get(conn, &uri).await?,
        other => other,
    };
    let skill = Entry::parse(&raw).map_err(|why| invalid_entry(conn, why))?;
    let bytes = read_verified(conn, &skill, &skill.uri).await?;
    let text = String::from_utf8(bytes).map_err(|_| unverified(conn, &skill.uri, "it is not UTF-8 text".into()))?;
    let (frontmatter, body) = verify::split_manifest(&text).map_err(|why| unverified(conn, &skill.uri, why))?;
    verify::same_frontmatter(&frontmatter, &skill.frontmatter).map_err(|why| unverified(conn, &skill.uri, why))?;
    Ok(json!({
        "uri": skill.uri,
        "root": skill.root,
        "name": skill.name(),
        "frontmatter": skill.frontmatter,
        "instructions": body,
        "text": text,
        "files": skill.paths(),
        "dynamic": skill.files == Files::Dynamic,
        "entry": raw,
    }))
}

/// Reads one file of a loaded skill (`path` relative to its root), verified against `entry`, the
/// entry the skill was loaded from: `{ uri, path, text }` or `{ uri, path, blob }` (base64).
/// A file the entry does not list is refused unread.
pub async fn read_file(conn: &Connection, entry: &Value, path: &str) -> Result<Value> {
    require_declared(conn, "read a skill's file").await?;
    let skill = Entry::parse(entry).map_err(|why| invalid_entry(conn, why))?;
    let uri = skill.resolve(path).map_err(|why| McpError::new(ErrorKind::InvalidArguments, conn.name(), why))?;
    let bytes = read_verified(conn, &skill, &uri).await?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => json!({ "uri": uri, "path": path, "text": text }),
        Err(e) => {
            use base64::Engine;
            json!({ "uri": uri, "path": path, "blob": base64::engine::general_purpose::STANDARD.encode(e.into_bytes()) })
        }
    })
}

/// `resources/read` of `uri`, its bytes checked against the entry's listing of it (a listed
/// skill must list it; a dynamic skill offers nothing to check).
async fn read_verified(conn: &Connection, skill: &Entry, uri: &str) -> Result<Vec<u8>> {
    let listed = skill.listing_of(uri).map_err(|why| unverified(conn, uri, why))?.cloned();
    let result = input::request(conn, READ, json!({ "uri": uri }), RequestOptions::default()).await?;
    let bytes = verify::content_bytes(&result, uri).map_err(|why| unverified(conn, uri, why))?;
    if let Some(listed) = listed {
        verify::matches_listing(&bytes, &listed).map_err(|why| unverified(conn, uri, why))?;
    }
    Ok(bytes)
}

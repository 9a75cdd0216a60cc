//! Verification of what a skill's file read returned (SEP-2640, "Integrity and Verification"):
//! the bytes against the entry's size and digest, and a `SKILL.md`'s YAML frontmatter, field by
//! field, against the entry's. Pure: no I/O. A failure says what differed; the content is not used.

use base64::Engine;
use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};
use yaml_rust2::{Yaml, YamlLoader};

use super::entry::Listed;

/// The raw bytes of `uri`'s content in a `resources/read` result (`text` as UTF-8, or `blob`).
pub fn content_bytes(result: &Value, uri: &str) -> Result<Vec<u8>, String> {
    let contents = result.get("contents").and_then(Value::as_array).ok_or("the read returned no contents")?;
    let item =
        contents.iter().find(|c| c.get("uri").and_then(Value::as_str) == Some(uri)).or(contents.first()).ok_or("the read returned no contents")?;
    if let Some(text) = item.get("text").and_then(Value::as_str) {
        return Ok(text.as_bytes().to_vec());
    }
    let blob = item.get("blob").and_then(Value::as_str).ok_or("the read returned neither text nor blob")?;
    base64::engine::general_purpose::STANDARD.decode(blob).map_err(|e| format!("the read returned a blob that is not base64 ({e})"))
}

/// Checks `bytes` against their listing: the size first, then the SHA-256 digest.
pub fn matches_listing(bytes: &[u8], listed: &Listed) -> Result<(), String> {
    if bytes.len() as u64 != listed.size {
        return Err(format!("{} is {} bytes where its entry says {}", listed.uri, bytes.len(), listed.size));
    }
    let digest = format!("sha256:{}", hex(&Sha256::digest(bytes)));
    if digest != listed.digest {
        return Err(format!("{}'s content has digest {digest} where its entry says {}", listed.uri, listed.digest));
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A `SKILL.md` split into its frontmatter (as JSON) and the body after it.
pub fn split_manifest(text: &str) -> Result<(Map<String, Value>, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_line_end = text.find('\n').ok_or("it has no frontmatter")?;
    if text[..first_line_end].trim_end() != "---" {
        return Err("it does not begin with a --- frontmatter block".into());
    }
    let rest = &text[first_line_end + 1..];
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Ok((parse_yaml_object(yaml)?, body));
        }
        offset += line.len();
    }
    Err("its frontmatter block is not closed by ---".into())
}

fn parse_yaml_object(yaml: &str) -> Result<Map<String, Value>, String> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| format!("its frontmatter is not YAML ({e})"))?;
    match docs.into_iter().next().map(to_json) {
        Some(Value::Object(map)) => Ok(map),
        _ => Err("its frontmatter is not a mapping".into()),
    }
}

fn to_json(yaml: Yaml) -> Value {
    match yaml {
        Yaml::Real(text) => text.parse::<f64>().ok().and_then(Number::from_f64).map_or(Value::String(text), Value::Number),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::String(s) => Value::String(s),
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Array(items) => Value::Array(items.into_iter().map(to_json).collect()),
        Yaml::Hash(map) => Value::Object(map.into_iter().map(|(k, v)| (key_text(k), to_json(v))).collect()),
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Value::Null,
    }
}

fn key_text(key: Yaml) -> String {
    match to_json(key) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// Compares a `SKILL.md`'s frontmatter with its entry's, field by field (a field one side lacks
/// is `null` there); `Err` names the fields that differ.
pub fn same_frontmatter(file: &Map<String, Value>, entry: &Map<String, Value>) -> Result<(), String> {
    let mut differ: Vec<&str> = file.keys().chain(entry.keys()).map(String::as_str).collect();
    differ.sort_unstable();
    differ.dedup();
    differ.retain(|k| !same(file.get(*k).unwrap_or(&Value::Null), entry.get(*k).unwrap_or(&Value::Null)));
    if differ.is_empty() {
        return Ok(());
    }
    Err(format!("its frontmatter differs from its entry's in {}", differ.join(", ")))
}

/// JSON equality where numbers compare by value (YAML `1` and JSON `1.0` are the same).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SKILL: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2.1\n  tags: [a, \"b\"]\n---\n\n# PDF\nSkill body.\n";

    fn listing(text: &str) -> Listed {
        Listed {
            uri: "skill://pdf-processing/SKILL.md".into(),
            digest: format!("sha256:{}", hex(&Sha256::digest(text.as_bytes()))),
            size: text.len() as u64,
        }
    }

    #[test]
    fn content_is_checked_by_size_then_digest() {
        assert_eq!(matches_listing(SKILL.as_bytes(), &listing(SKILL)), Ok(()));
        let longer = format!("{SKILL}extra");
        assert!(matches_listing(longer.as_bytes(), &listing(SKILL)).is_err_and(|e| e.contains("bytes")));
        let tampered = SKILL.replace("Skill body.", "Evil body!!");
        assert!(matches_listing(tampered.as_bytes(), &listing(SKILL)).is_err_and(|e| e.contains("digest")));
    }

    #[test]
    fn text_and_blob_contents_are_read_as_bytes() {
        let uri = "skill://pdf-processing/SKILL.md";
        assert_eq!(content_bytes(&json!({ "contents": [{ "uri": uri, "text": "hi" }] }), uri), Ok(b"hi".to_vec()));
        assert_eq!(content_bytes(&json!({ "contents": [{ "uri": uri, "blob": "aGk=" }] }), uri), Ok(b"hi".to_vec()));
        assert!(content_bytes(&json!({ "contents": [] }), uri).is_err());
    }

    #[test]
    fn the_frontmatter_is_parsed_and_compared_field_by_field() {
        let (front, body) = split_manifest(SKILL).expect("frontmatter");
        assert_eq!(body, "\n# PDF\nSkill body.\n");
        let entry = json!({ "name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "metadata": { "version": 2.1, "tags": ["a", "b"] } });
        let entry = entry.as_object().cloned().unwrap_or_default();
        assert_eq!(same_frontmatter(&front, &entry), Ok(()));
        let mut changed = entry.clone();
        changed.insert("description".into(), json!("Exfiltrate credentials"));
        assert!(same_frontmatter(&front, &changed).is_err_and(|e| e.contains("description")));
        let mut extra = entry;
        extra.insert("license".into(), json!("MIT"));
        assert!(same_frontmatter(&front, &extra).is_err_and(|e| e.contains("license")));
    }

    #[test]
    fn a_manifest_without_frontmatter_is_refused() {
        assert!(split_manifest("# no frontmatter\n").is_err());
        assert!(split_manifest("---\nname: x\n").is_err());
        assert!(split_manifest("---\n- a list\n---\n").is_err());
        assert!(split_manifest("\u{feff}---\r\nname: x\r\ndescription: y\r\n---\r\nbody").is_ok());
    }
}

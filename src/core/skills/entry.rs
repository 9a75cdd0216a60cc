//! A skill's entry (SEP-2640), as `skills/list` and `skills/get` give it: the URI of its
//! `SKILL.md`, its frontmatter, and the complete list of its files with their digests and sizes
//! (or `"dynamic"`). Parsed and checked before anything of the skill is read: an entry that
//! breaks the extension's rules is refused, and a host must not load it.

use serde_json::{Map, Value};

/// The file every skill has at its root.
pub const MANIFEST: &str = "SKILL.md";

/// One listed file of a skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    pub size: u64,
}

/// A skill's files: every one listed with its digest, or generated (no integrity offered).
#[derive(Debug, Clone, PartialEq)]
pub enum Files {
    Listed(Vec<Listed>),
    Dynamic,
}

/// A checked skill entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The `SKILL.md` URI.
    pub uri: String,
    /// The skill's directory: `uri` without `/SKILL.md`.
    pub root: String,
    pub frontmatter: Map<String, Value>,
    pub files: Files,
}

impl Entry {
    /// Checks an entry as the server gave it; `Err` says what is wrong with it.
    pub fn parse(value: &Value) -> Result<Entry, String> {
        let uri = value.get("uri").and_then(Value::as_str).ok_or("the entry has no uri")?.to_string();
        let root = uri.strip_suffix(&format!("/{MANIFEST}")).filter(|r| !r.is_empty()).ok_or_else(|| format!("{uri} does not name a {MANIFEST}"))?;
        let frontmatter =
            value.get("frontmatter").and_then(Value::as_object).ok_or_else(|| format!("the entry of {uri} has no frontmatter object"))?;
        let name =
            frontmatter.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()).ok_or_else(|| format!("the entry of {uri} has no name"))?;
        if frontmatter.get("description").and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err(format!("the entry of {uri} has no description"));
        }
        if root.rsplit('/').next() != Some(name) {
            return Err(format!("the last segment of {uri}'s path is not the skill's name \"{name}\""));
        }
        let files = match value.get("resources") {
            Some(Value::String(s)) if s == "dynamic" => Files::Dynamic,
            Some(Value::Array(items)) => Files::Listed(items.iter().map(|item| listed(item, &uri, root)).collect::<Result<_, _>>()?),
            _ => return Err(format!("the entry of {uri} has no resources (a list of its files, or \"dynamic\")")),
        };
        if let Files::Listed(listed) = &files {
            if !listed.iter().any(|f| f.uri == uri) {
                return Err(format!("the resources of {uri} do not list the {MANIFEST} itself"));
            }
        }
        Ok(Entry { uri: uri.clone(), root: root.to_string(), frontmatter: frontmatter.clone(), files })
    }

    /// The skill's name (its frontmatter's).
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// The URI of `path`, relative to the skill's root (`references/FORMS.md`). A path that leaves
    /// the skill (`..`, an absolute path, a URI) is refused.
    pub fn resolve(&self, path: &str) -> Result<String, String> {
        let clean: Vec<&str> = path.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
        if clean.is_empty() || path.contains("://") || path.starts_with('/') || clean.iter().any(|s| *s == "..") {
            return Err(format!("\"{path}\" is not a path inside the skill {}", self.uri));
        }
        Ok(format!("{}/{}", self.root, clean.join("/")))
    }

    /// The listing of `uri`: `Ok(None)` for a dynamic skill; `Err` when a listed skill does not list it.
    pub fn listing_of(&self, uri: &str) -> Result<Option<&Listed>, String> {
        match &self.files {
            Files::Dynamic => Ok(None),
            Files::Listed(files) => {
                files.iter().find(|f| f.uri == uri).map(Some).ok_or_else(|| format!("{uri} is not one of the files the entry of {} lists", self.uri))
            }
        }
    }

    /// The listed files' paths relative to the root (`SKILL.md` first); empty for a dynamic skill.
    pub fn paths(&self) -> Vec<String> {
        let Files::Listed(files) = &self.files else { return Vec::new() };
        let prefix = format!("{}/", self.root);
        let mut paths: Vec<String> = files.iter().filter_map(|f| f.uri.strip_prefix(&prefix)).map(str::to_string).collect();
        paths.sort_by_key(|p| (p != MANIFEST, p.clone()));
        paths
    }
}

fn listed(item: &Value, uri: &str, root: &str) -> Result<Listed, String> {
    let file = item.get("uri").and_then(Value::as_str).ok_or_else(|| format!("a resource of {uri} has no uri"))?;
    if file != uri && !file.starts_with(&format!("{root}/")) {
        return Err(format!("{file}, listed by {uri}, is not inside the skill"));
    }
    let digest =
        item.get("digest").and_then(Value::as_str).filter(|d| is_digest(d)).ok_or_else(|| format!("{file} has no sha256:<64 hex> digest"))?;
    let size = item.get("size").and_then(Value::as_u64).ok_or_else(|| format!("{file} has no size"))?;
    Ok(Listed { uri: file.to_string(), digest: digest.to_string(), size })
}

fn is_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const D: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

    fn entry(resources: Value) -> Value {
        json!({ "uri": "skill://acme/pdf/SKILL.md", "frontmatter": { "name": "pdf", "description": "PDFs" }, "resources": resources })
    }

    #[test]
    fn a_listed_entry_is_read_with_its_files() {
        let e = Entry::parse(&entry(json!([
            { "uri": "skill://acme/pdf/references/FORMS.md", "digest": D, "size": 3 },
            { "uri": "skill://acme/pdf/SKILL.md", "digest": D, "size": 10 }
        ])))
        .expect("valid");
        assert_eq!(e.root, "skill://acme/pdf");
        assert_eq!(e.name(), "pdf");
        assert_eq!(e.paths(), ["SKILL.md", "references/FORMS.md"]);
        assert_eq!(e.resolve("./references//FORMS.md").as_deref(), Ok("skill://acme/pdf/references/FORMS.md"));
        assert!(e.listing_of("skill://acme/pdf/references/OTHER.md").is_err(), "an unlisted file is a verification failure");
    }

    #[test]
    fn entries_that_break_the_rules_are_refused() {
        let listed = json!([{ "uri": "skill://acme/pdf/SKILL.md", "digest": D, "size": 1 }]);
        assert!(Entry::parse(&entry(json!(null))).is_err(), "no resources");
        assert!(Entry::parse(&entry(json!("static"))).is_err(), "neither a list nor dynamic");
        assert!(Entry::parse(&entry(json!([{ "uri": "skill://acme/pdf/SKILL.md", "digest": "sha256:ABC", "size": 1 }]))).is_err(), "bad digest");
        assert!(Entry::parse(&entry(json!([{ "uri": "skill://other/SKILL.md", "digest": D, "size": 1 }]))).is_err(), "outside the skill");
        assert!(Entry::parse(&entry(json!([{ "uri": "skill://acme/pdf/x.md", "digest": D, "size": 1 }]))).is_err(), "no SKILL.md listed");
        let mut renamed = entry(listed.clone());
        renamed["frontmatter"]["name"] = json!("other");
        assert!(Entry::parse(&renamed).is_err(), "the name is not the last segment");
        assert_eq!(Entry::parse(&entry(json!("dynamic"))).map(|e| e.files), Ok(Files::Dynamic));
        assert!(Entry::parse(&entry(listed)).is_ok());
    }

    #[test]
    fn paths_cannot_leave_the_skill() {
        let e = Entry::parse(&entry(json!("dynamic"))).expect("valid");
        for bad in ["../secrets.md", "/etc/passwd", "skill://other/SKILL.md", "", "a/../../b"] {
            assert!(e.resolve(bad).is_err(), "{bad}");
        }
    }
}

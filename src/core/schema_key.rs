//! A key for a JSON Schema's exact text, so that what is built from a schema (a compiled
//! validator) is built once per process and shared by every client that sees the same bytes
//! (SPEC 14.1). 128 bits from two SipHash runs with keys drawn at random once per process: a
//! server cannot craft a schema whose key meets another's, and the text's length is part of
//! the key too.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

fn hashers() -> &'static (RandomState, RandomState) {
    static HASHERS: OnceLock<(RandomState, RandomState)> = OnceLock::new();
    HASHERS.get_or_init(|| (RandomState::new(), RandomState::new()))
}

/// The key of a schema's JSON text (as the server sent it, byte for byte).
pub fn schema_key(text: &str) -> String {
    let (a, b) = hashers();
    format!("{:x}-{:016x}{:016x}", text.len(), a.hash_one(text), b.hash_one(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_share_a_key_and_any_other_bytes_do_not() {
        let schema = r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
        assert_eq!(schema_key(schema), schema_key(&schema.to_string()));
        assert_ne!(schema_key(schema), schema_key(r#"{"type":"object","properties":{"b":{"type":"string"}}}"#));
        assert_ne!(schema_key(schema), schema_key(r#"{"type": "object","properties":{"a":{"type":"string"}}}"#), "whitespace counts");
        assert_ne!(schema_key(""), schema_key("{}"));
    }
}

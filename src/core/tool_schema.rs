//! Whether a tool's input or output schema is a valid JSON Schema of its declared dialect
//! (2020-12 unless `$schema` names draft-04, -06, -07 or 2019-09), checked against the dialect's
//! meta-schema with the `jsonschema` crate. A tool whose schema is not is set aside by the face
//! (SPEC: tools a model can use safely): handed to a model provider, it would fail the whole
//! request. The verdict is kept per schema key (`schema_key`, the exact text), in a bounded
//! cache: a new client per user listing the same catalog does not validate the same text again.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use super::schema_key::schema_key;

/// What is wrong with a schema: where (a JSON pointer into the schema, `""` for its root) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub pointer: String,
    pub message: String,
}

/// How many verdicts the process keeps (the oldest goes first): enough for every distinct schema
/// of many large catalogs, and nothing that grows with a server that invents schemas.
const CAPACITY: usize = 4096;

/// The longest message kept (a meta-schema error quotes the offending value, which can be big).
const MESSAGE_MAX: usize = 300;

/// Verdicts by schema key, the oldest evicted first once `capacity` are held.
pub struct Verdicts {
    capacity: usize,
    by_key: HashMap<String, Option<Arc<Problem>>>,
    order: VecDeque<String>,
    validations: u64,
}

impl Verdicts {
    pub fn new(capacity: usize) -> Self {
        Self { capacity: capacity.max(1), by_key: HashMap::new(), order: VecDeque::new(), validations: 0 }
    }

    /// The verdict for the schema whose exact text is `text` and key `key` (from `schema_key`),
    /// validated now only if this text has no verdict yet.
    pub fn check(&mut self, key: &str, text: &str) -> Option<Arc<Problem>> {
        if let Some(known) = self.by_key.get(key) {
            return known.clone();
        }
        self.validations += 1;
        let verdict = validate_text(text).map(Arc::new);
        while self.order.len() >= self.capacity {
            match self.order.pop_front() {
                Some(old) => {
                    self.by_key.remove(&old);
                }
                None => break,
            }
        }
        self.order.push_back(key.to_string());
        self.by_key.insert(key.to_string(), verdict.clone());
        verdict
    }

    /// How many schemas this cache has validated (not served from a verdict it held).
    pub fn validations(&self) -> u64 {
        self.validations
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

fn process_verdicts() -> &'static Mutex<Verdicts> {
    static VERDICTS: OnceLock<Mutex<Verdicts>> = OnceLock::new();
    VERDICTS.get_or_init(|| Mutex::new(Verdicts::new(CAPACITY)))
}

static PROCESS_VALIDATIONS: AtomicU64 = AtomicU64::new(0);

/// The process-wide verdict for a schema's exact text (`key` is its `schema_key`).
pub fn problem(key: &str, text: &str) -> Option<Arc<Problem>> {
    match process_verdicts().lock() {
        Ok(mut verdicts) => {
            let before = verdicts.validations();
            let verdict = verdicts.check(key, text);
            PROCESS_VALIDATIONS.fetch_add(verdicts.validations() - before, Ordering::Relaxed);
            verdict
        }
        // A poisoned lock (a panic elsewhere while holding it): validate without the cache.
        Err(_) => validate_text(text).map(Arc::new),
    }
}

/// `problem` for a schema given as a tree (its compact text is what is keyed).
pub fn problem_of_value(schema: &Value) -> Option<Arc<Problem>> {
    let text = schema.to_string();
    problem(&schema_key(&text), &text)
}

/// How many schemas this process has validated (for tests and diagnostics).
pub fn process_validations() -> u64 {
    PROCESS_VALIDATIONS.load(Ordering::Relaxed)
}

/// Validates one schema's text against the meta-schema of its dialect.
pub fn validate_text(text: &str) -> Option<Problem> {
    match serde_json::from_str::<Value>(text) {
        Ok(schema) => validate(&schema),
        Err(e) => Some(Problem { pointer: String::new(), message: format!("the schema is not JSON: {e}") }),
    }
}

/// Validates one schema against the meta-schema of its dialect.
pub fn validate(schema: &Value) -> Option<Problem> {
    let dialect = match dialect_of(schema) {
        Ok(dialect) => dialect,
        Err(problem) => return Some(problem),
    };
    let outcome = match dialect {
        Dialect::Draft4 => jsonschema::draft4::meta::validate(schema),
        Dialect::Draft6 => jsonschema::draft6::meta::validate(schema),
        Dialect::Draft7 => jsonschema::draft7::meta::validate(schema),
        Dialect::Draft201909 => jsonschema::draft201909::meta::validate(schema),
        Dialect::Draft202012 => jsonschema::draft202012::meta::validate(schema),
    };
    let error = outcome.err()?;
    let pointer = error.instance_path().as_str().to_string();
    tracing::debug!(pointer = %pointer, dialect = ?dialect, "a tool schema is not valid against its meta-schema");
    Some(Problem { pointer, message: truncate(error.to_string()) })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Draft4,
    Draft6,
    Draft7,
    Draft201909,
    Draft202012,
}

/// The dialect a schema declares with `$schema` (2020-12 when it declares none).
fn dialect_of(schema: &Value) -> Result<Dialect, Problem> {
    let Some(declared) = schema.as_object().and_then(|o| o.get("$schema")) else {
        return Ok(Dialect::Draft202012);
    };
    let Some(uri) = declared.as_str() else {
        return Err(Problem { pointer: "/$schema".into(), message: "$schema must be a string (a JSON Schema dialect URI)".into() });
    };
    let normalized = uri.trim().trim_end_matches('#').replacen("https://", "http://", 1);
    let dialect = match normalized.as_str() {
        "http://json-schema.org/draft-04/schema" => Dialect::Draft4,
        "http://json-schema.org/draft-06/schema" => Dialect::Draft6,
        "http://json-schema.org/draft-07/schema" => Dialect::Draft7,
        "http://json-schema.org/draft/2019-09/schema" => Dialect::Draft201909,
        "http://json-schema.org/draft/2020-12/schema" => Dialect::Draft202012,
        _ => {
            return Err(Problem {
                pointer: "/$schema".into(),
                message: truncate(format!("unsupported JSON Schema dialect {uri:?} (known: draft-04, draft-06, draft-07, 2019-09, 2020-12)")),
            })
        }
    };
    Ok(dialect)
}

fn truncate(mut message: String) -> String {
    if message.len() > MESSAGE_MAX {
        let mut end = MESSAGE_MAX;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push('…');
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn required_nested_in_properties_is_named_by_its_pointer() {
        let schema = json!({"type": "object", "properties": {"coin": {"type": "string"}, "required": ["coin"]}});
        let problem = validate(&schema).expect("malformed");
        assert_eq!(problem.pointer, "/properties/required");
        let fine = json!({"type": "object", "properties": {"coin": {"type": "string"}}, "required": ["coin"]});
        assert_eq!(validate(&fine), None);
    }

    #[test]
    fn the_declared_dialect_is_the_one_checked() {
        // A tuple `items` is draft-07; 2020-12 (the default) wants a schema there.
        let tuple = json!({"type": "array", "items": [{"type": "string"}]});
        assert_eq!(validate(&tuple).map(|p| p.pointer), Some("/items".to_string()));
        let draft7 = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "string"}]});
        assert_eq!(validate(&draft7), None);
        assert_eq!(validate(&json!({"type": "nope"})).map(|p| p.pointer), Some("/type".to_string()));
        let unknown = validate(&json!({"$schema": "https://example.com/my-dialect", "type": "object"})).expect("unknown dialect");
        assert_eq!(unknown.pointer, "/$schema");
        assert_eq!(validate(&json!(true)), None, "a boolean schema is a schema");
        assert_eq!(validate(&json!("object")).map(|p| p.pointer), Some(String::new()));
    }

    #[test]
    fn a_verdict_is_served_only_for_the_identical_text() {
        let mut verdicts = Verdicts::new(16);
        let bad = r#"{"type":"object","properties":{"required":["a"]}}"#;
        let spaced = r#"{"type":"object", "properties":{"required":["a"]}}"#;
        let good = r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
        assert!(verdicts.check(&schema_key(bad), bad).is_some());
        assert!(verdicts.check(&schema_key(bad), bad).is_some());
        assert_eq!(verdicts.validations(), 1, "the same text is validated once");
        assert!(verdicts.check(&schema_key(spaced), spaced).is_some());
        assert_eq!(verdicts.validations(), 2, "other bytes are validated on their own");
        assert!(verdicts.check(&schema_key(good), good).is_none());
        assert!(verdicts.check(&schema_key(good), good).is_none());
        assert_eq!(verdicts.validations(), 3);
    }

    #[test]
    fn the_cache_is_bounded() {
        let mut verdicts = Verdicts::new(3);
        let texts: Vec<String> = (0..10).map(|i| format!(r#"{{"type":"object","title":"t{i}"}}"#)).collect();
        for text in &texts {
            verdicts.check(&schema_key(text), text);
        }
        assert_eq!(verdicts.len(), 3);
        assert_eq!(verdicts.validations(), 10);
        // The newest are held, the oldest were dropped (and are validated again).
        verdicts.check(&schema_key(&texts[9]), &texts[9]);
        assert_eq!(verdicts.validations(), 10);
        verdicts.check(&schema_key(&texts[0]), &texts[0]);
        assert_eq!(verdicts.validations(), 11);
    }

    #[test]
    fn long_messages_are_cut() {
        let big: Vec<String> = (0..200).map(|i| format!("field_{i}")).collect();
        let problem = validate(&json!({"type": "object", "properties": {"required": big}})).expect("malformed");
        assert!(problem.message.chars().count() <= MESSAGE_MAX + 1);
    }
}

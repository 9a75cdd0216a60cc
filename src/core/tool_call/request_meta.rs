//! A tool call's request `_meta`, built from what the face knows of the call (`CallMeta`): the
//! trace context of the caller's request (SEP-414), the user's own `_meta`, and the progress
//! token — the caller's run id, else one allocated here, unique in the process. Precedence as
//! `@mastra/mcp`'s: trace context < the user's `_meta`; the progress token is set last.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::core::config::DEFAULT_PROGRESS_TRACKING;

/// The key of the progress token in a request's `_meta`.
pub const PROGRESS_TOKEN: &str = "progressToken";

/// What the face knows of a call's `_meta`, as it has it: the core merges it (`build`).
#[derive(Default, Clone, Debug)]
pub struct CallMeta {
    /// The server's `enableProgressTracking`, as given (absent: `DEFAULT_PROGRESS_TRACKING`;
    /// otherwise read as JavaScript reads a condition).
    pub track_progress: Option<Value>,
    /// The caller's run id: the progress token when it is set (not empty, not `false`, `0` or
    /// `null`); otherwise a token is allocated.
    pub run_id: Option<Value>,
    /// The trace context fields of the caller's request, as JSON text of an object.
    pub trace_json: Option<String>,
    /// The user's `_meta` (Mastra's `context._meta`), as JSON text of an object: it wins over the
    /// trace context. Text that is no JSON object adds nothing.
    pub user_json: Option<String>,
}

/// A call's request `_meta` and the progress token it carries (when progress is tracked).
#[derive(Debug, Default, PartialEq)]
pub struct RequestMeta {
    pub meta: Option<Map<String, Value>>,
    pub progress_token: Option<Value>,
}

impl RequestMeta {
    /// The `_meta` as JSON text (the stdio lane splices it into the request as text).
    pub fn text(&self) -> Option<String> {
        // A map of string keys and JSON values always serializes.
        self.meta.as_ref().and_then(|m| serde_json::to_string(m).ok())
    }
}

/// Whether JavaScript reads `value` as true in a condition (`if (value)`).
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// An object's members from its JSON text; nothing from text that is no JSON object.
fn object_of(text: Option<&str>) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(text?) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

impl CallMeta {
    /// Whether the call carries a progress token.
    pub fn tracks_progress(&self) -> bool {
        self.track_progress.as_ref().map_or(DEFAULT_PROGRESS_TRACKING, truthy)
    }

    /// The request `_meta`: the trace context, the user's `_meta` over it, then the progress
    /// token (the run id, else a new one) when progress is tracked. No `_meta` when nothing is set.
    pub fn build(self) -> RequestMeta {
        let progress_token = if self.tracks_progress() { Some(self.run_id.filter(truthy).unwrap_or_else(next_progress_token)) } else { None };
        let mut meta = object_of(self.trace_json.as_deref());
        if let Some(user) = object_of(self.user_json.as_deref()) {
            let merged = meta.get_or_insert_with(Map::new);
            // A key of both keeps the trace context's place and takes the user's value, as a
            // JavaScript spread of one object over the other does.
            merged.extend(user);
        }
        if let Some(token) = &progress_token {
            meta.get_or_insert_with(Map::new).insert(PROGRESS_TOKEN.into(), token.clone());
        }
        RequestMeta { meta, progress_token }
    }
}

/// What makes this process's tokens its own: its id, the start time and a random part, base 36.
fn token_prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let millis = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        // SipHash under the process's random keys: random enough for uniqueness, no secrecy needed.
        let random = std::collections::hash_map::RandomState::new().build_hasher().finish() % 36u64.pow(6);
        format!("{}{}{:0>6}", base36(u64::from(std::process::id())), base36(millis), base36(random))
    })
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A progress token for a call without a run id: unique in this process run.
fn next_progress_token() -> Value {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    Value::String(format!("{}-{}", token_prefix(), base36(NEXT.fetch_add(1, Ordering::Relaxed))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parts(track: Option<Value>, run_id: Option<Value>, trace: Option<&str>, user: Option<&str>) -> CallMeta {
        CallMeta { track_progress: track, run_id, trace_json: trace.map(str::to_string), user_json: user.map(str::to_string) }
    }

    #[test]
    fn the_run_id_is_the_progress_token_set_last() {
        let built = parts(None, Some(json!("run-1")), Some(r#"{"traceparent":"t","a":1}"#), Some(r#"{"a":2,"progressToken":"mine","b":3}"#)).build();
        assert_eq!(built.progress_token, Some(json!("run-1")));
        // trace < user, token last; a key of both keeps its first place.
        assert_eq!(built.text().as_deref(), Some(r#"{"traceparent":"t","a":2,"progressToken":"run-1","b":3}"#));
    }

    #[test]
    fn without_a_run_id_a_fresh_token_is_allocated() {
        let first = parts(None, None, None, None).build();
        let second = parts(Some(json!(true)), Some(json!("")), None, None).build();
        let (Some(Value::String(a)), Some(Value::String(b))) = (&first.progress_token, &second.progress_token) else {
            panic!("string tokens: {first:?} {second:?}");
        };
        assert_ne!(a, b, "unique per call");
        assert_eq!(a.split_once('-').map(|p| p.0), b.split_once('-').map(|p| p.0), "one prefix per process");
        assert_eq!(first.text(), Some(format!(r#"{{"progressToken":"{a}"}}"#)));
    }

    #[test]
    fn tracking_off_sends_no_token_but_keeps_the_users_own() {
        for off in [json!(false), json!(0), json!(null), json!("")] {
            let built = parts(Some(off.clone()), Some(json!("run")), None, None).build();
            assert_eq!(built, RequestMeta::default(), "{off} turns tracking off");
        }
        let built = parts(Some(json!(false)), Some(json!("run")), None, Some(r#"{"progressToken":"mine"}"#)).build();
        assert_eq!(built.progress_token, None);
        assert_eq!(built.meta.map(Value::Object), Some(json!({ "progressToken": "mine" })));
    }

    #[test]
    fn trace_context_alone_and_what_adds_nothing() {
        let built = parts(Some(json!(false)), None, Some(r#"{"traceparent":"00-a-b-01"}"#), Some("\"not an object\"")).build();
        assert_eq!(built.meta.map(Value::Object), Some(json!({ "traceparent": "00-a-b-01" })));
        assert_eq!(parts(Some(json!(false)), None, Some("not json"), Some("[1]")).build(), RequestMeta::default());
        assert_eq!(parts(Some(json!(false)), None, None, Some("{}")).build().text().as_deref(), Some("{}"));
    }

    #[test]
    fn a_numeric_run_id_is_kept_as_a_number() {
        assert_eq!(parts(None, Some(json!(7)), None, None).build().progress_token, Some(json!(7)));
        assert_ne!(parts(None, Some(json!(0)), None, None).build().progress_token, Some(json!(0)), "0 is no run id");
    }

    #[test]
    fn base36_counts_as_javascript_does() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(u64::from(u32::MAX)), "1z141z3");
    }
}

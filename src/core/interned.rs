//! Texts that many clients of one process hold byte for byte the same (a server's described tool
//! list, seen by every per-user client of that server), kept once: `intern` hands back the
//! `Arc` already alive for the same bytes, with their key (`schema_key`). Nothing here keeps a
//! text alive: entries are weak, and dead ones are swept as the table grows, so the table is
//! bounded by the texts some client still holds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::schema_key::schema_key;

/// A text shared by every holder of the same bytes, and its key.
#[derive(Clone, Debug)]
pub struct Interned {
    pub key: Arc<str>,
    pub text: Arc<str>,
}

struct Table {
    entries: HashMap<Arc<str>, Weak<str>>,
    /// The size at which dead entries are swept next (twice the live ones after a sweep).
    sweep_at: usize,
}

const MIN_SWEEP_AT: usize = 64;

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(Table { entries: HashMap::new(), sweep_at: MIN_SWEEP_AT }))
}

/// The shared copy of `text`: the one alive for the same bytes, else `text` itself, now shared.
pub fn intern(text: String) -> Interned {
    let key: Arc<str> = schema_key(&text).into();
    let Ok(mut table) = table().lock() else {
        return Interned { key, text: text.into() };
    };
    if let Some(live) = table.entries.get(&key).and_then(Weak::upgrade) {
        return Interned { key, text: live };
    }
    let shared: Arc<str> = text.into();
    table.entries.insert(key.clone(), Arc::downgrade(&shared));
    if table.entries.len() >= table.sweep_at {
        table.entries.retain(|_, text| text.strong_count() > 0);
        table.sweep_at = (table.entries.len() * 2).max(MIN_SWEEP_AT);
    }
    Interned { key, text: shared }
}

/// The text alive under `key` (some holder keeps it), if any.
pub fn lookup(key: &str) -> Option<Arc<str>> {
    table().lock().ok()?.entries.get(key).and_then(Weak::upgrade)
}

/// How many entries the table holds, dead ones not yet swept included (for tests).
#[cfg(test)]
fn table_len() -> usize {
    table().lock().map(|t| t.entries.len()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_are_held_once_and_other_bytes_apart() {
        let a = intern(r#"[{"name":"echo"}]"#.to_string());
        let b = intern(r#"[{"name":"echo"}]"#.to_string());
        assert!(Arc::ptr_eq(&a.text, &b.text), "one copy for the same bytes");
        assert_eq!(a.key, b.key);
        let c = intern(r#"[{"name":"other"}]"#.to_string());
        assert!(!Arc::ptr_eq(&a.text, &c.text));
        assert_ne!(a.key, c.key);
        assert_eq!(&*c.text, r#"[{"name":"other"}]"#);
    }

    #[test]
    fn a_key_finds_its_text_while_someone_holds_it() {
        let held = intern(r#"[{"name":"looked-up"}]"#.to_string());
        let found = lookup(&held.key).expect("alive while held");
        assert!(Arc::ptr_eq(&found, &held.text));
        let key = held.key.clone();
        drop((held, found));
        assert!(lookup(&key).is_none(), "gone once nobody holds it");
        assert!(lookup("no-such-key").is_none());
    }

    #[test]
    fn texts_nobody_holds_are_not_kept() {
        let first = intern("[\"gone\"]".to_string());
        let weak = Arc::downgrade(&first.text);
        drop(first);
        assert!(weak.upgrade().is_none(), "the table holds no strong reference");
        // Many distinct texts, each dropped at once: the table stays bounded by the live ones.
        for i in 0..10_000 {
            drop(intern(format!("[{i}]")));
        }
        assert!(table_len() < 4 * MIN_SWEEP_AT, "dead entries are swept ({} left)", table_len());
        // A text held again after its last holder went is a fresh copy with the same key.
        let again = intern("[\"gone\"]".to_string());
        assert_eq!(&*again.text, "[\"gone\"]");
    }
}

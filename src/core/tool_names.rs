//! The names a client hands Mastra for its tools (`server_tool`), and which of a server's tools a
//! client offers at all (`tools: { include, exclude }`). Pure: no I/O.
//!
//! A name handed to Mastra matches `^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$` (what Mastra's `Agent` and model
//! APIs accept) and is unique among every server of the client (SPEC 15.2). `server_tool` is used
//! as is when it fits and no other tool took it; otherwise every character outside
//! `[a-zA-Z0-9_-]` becomes `_` and a leading digit or `-` gets a `_` before it; a result longer than
//! 63 characters, or one another tool already has, becomes its first 54 characters, `_` and the
//! first 8 hex digits of SHA-256 of the original `server_tool`. Names that fit as given are placed
//! first (every name that worked before stays the same), then rewritten ones, then hashed ones, each
//! in the order the servers and their tools come. A hashed name that is taken too (only the same
//! `server_tool` text three times over can do that) is a collision: reported, never dropped silently.

use std::collections::HashSet;

use sha2::{Digest, Sha256};

/// The longest name Mastra's `Agent` keeps as it is.
pub const MAX_NAME: usize = 63;
/// How many characters of the rewritten name a hashed one keeps (then `_` and 8 hex digits).
const HASHED_PREFIX: usize = 54;

/// What a tool is called in the client's flat tool map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// Its name (`server_tool` itself when that fits).
    Name(String),
    /// No name could be given: another tool has every name this one could take.
    Collision { wanted: String, holder: (String, String) },
}

/// Whether `name` is one Mastra's `Agent` leaves as it is.
pub fn fits(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_NAME
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}

/// `name` with every character outside `[a-zA-Z0-9_-]` as `_`, and `_` before a leading digit or `-`.
fn rewritten(name: &str) -> String {
    let mut out: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if out.is_empty() || !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

/// The hashed form of `original` (its rewritten form `rewritten`): 63 characters at most.
fn hashed(original: &str, rewritten: &str) -> String {
    let digest = Sha256::digest(original.as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    // `rewritten` is ASCII: any byte index is a character boundary.
    let head = &rewritten[..rewritten.len().min(HASHED_PREFIX)];
    format!("{head}_{hex}")
}

/// The key of each `(server, tool)` of a client, in the order given (servers in their configured
/// order, each server's tools in its listing's order). The same pair twice gets the same key.
pub fn keys(tools: &[(String, String)]) -> Vec<Key> {
    let originals: Vec<String> = tools.iter().map(|(s, t)| format!("{s}_{t}")).collect();
    let mut keys: Vec<Option<Key>> = vec![None; tools.len()];
    let mut taken: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut seen: HashSet<(&str, &str)> = HashSet::new();
    let mut duplicate_of: Vec<Option<usize>> = vec![None; tools.len()];
    for (i, (s, t)) in tools.iter().enumerate() {
        if !seen.insert((s, t)) {
            duplicate_of[i] = tools.iter().position(|(s2, t2)| s2 == s && t2 == t);
        }
    }
    let unique = |i: &usize| duplicate_of[*i].is_none();
    // 1. Names that fit as given.
    for i in (0..tools.len()).filter(unique) {
        if fits(&originals[i]) && !taken.contains_key(&originals[i]) {
            taken.insert(originals[i].clone(), i);
            keys[i] = Some(Key::Name(originals[i].clone()));
        }
    }
    // 2. Rewritten names short enough.
    let rewrites: Vec<String> = originals.iter().map(|o| rewritten(o)).collect();
    for i in (0..tools.len()).filter(unique) {
        if keys[i].is_none() && !fits(&originals[i]) && rewrites[i].len() <= MAX_NAME && !taken.contains_key(&rewrites[i]) {
            taken.insert(rewrites[i].clone(), i);
            keys[i] = Some(Key::Name(rewrites[i].clone()));
        }
    }
    // 3. Hashed names.
    for i in (0..tools.len()).filter(unique) {
        if keys[i].is_some() {
            continue;
        }
        let name = hashed(&originals[i], &rewrites[i]);
        keys[i] = Some(match taken.get(&name) {
            Some(&holder) => Key::Collision { wanted: name, holder: tools[holder].clone() },
            None => {
                taken.insert(name.clone(), i);
                Key::Name(name)
            }
        });
    }
    (0..tools.len())
        .map(|i| match duplicate_of[i] {
            Some(first) => keys[first].clone(),
            None => keys[i].clone(),
        })
        .map(|k| k.unwrap_or_else(|| Key::Collision { wanted: String::new(), holder: (String::new(), String::new()) }))
        .collect()
}

/// Which of a server's tools the client offers: `include` (none: all) minus `exclude`, each a
/// list of patterns over the server's own tool names where `*` matches any run of characters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolFilter {
    pub include: Option<Vec<String>>,
    pub exclude: Vec<String>,
}

impl ToolFilter {
    /// Whether the filter lets every tool through.
    pub fn is_open(&self) -> bool {
        self.include.is_none() && self.exclude.is_empty()
    }

    /// Whether the tool named `name` is offered; `exclude` wins over `include`.
    pub fn allows(&self, name: &str) -> bool {
        if self.exclude.iter().any(|p| glob(p, name)) {
            return false;
        }
        self.include.as_ref().is_none_or(|inc| inc.iter().any(|p| glob(p, name)))
    }
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters (none included) and
/// every other character itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Greedy with backtracking to the last star: linear in practice, never exponential.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(s, t)| (s.to_string(), t.to_string())).collect()
    }

    fn names(list: &[(&str, &str)]) -> Vec<String> {
        keys(&pairs(list))
            .into_iter()
            .map(|k| match k {
                Key::Name(n) => n,
                Key::Collision { .. } => "<collision>".into(),
            })
            .collect()
    }

    #[test]
    fn names_that_fit_stay_as_they_are() {
        assert_eq!(names(&[("fs", "read_file"), ("my-server", "list-all")]), ["fs_read_file", "my-server_list-all"]);
    }

    #[test]
    fn a_dotted_name_beside_its_underscore_twin_is_hashed_and_the_twin_kept() {
        let got = names(&[("gh", "github.create_issue"), ("gh", "github_create_issue")]);
        assert_eq!(got[1], "gh_github_create_issue");
        assert!(got[0].starts_with("gh_github_create_issue_") && got[0].len() == "gh_github_create_issue".len() + 9, "{got:?}");
        assert!(got.iter().all(|n| fits(n)));
    }

    #[test]
    fn a_dotted_name_alone_is_only_rewritten() {
        assert_eq!(names(&[("gh", "github.create_issue")]), ["gh_github_create_issue"]);
        assert_eq!(names(&[("1srv", "x")]), ["_1srv_x"]);
    }

    #[test]
    fn long_names_sharing_a_prefix_get_different_hashed_names() {
        let a = format!("{}{}", "a".repeat(70), "b".repeat(30));
        let b = format!("{}{}", "a".repeat(70), "c".repeat(30));
        let got = names(&[("s", &a), ("s", &b)]);
        assert_ne!(got[0], got[1]);
        assert!(got.iter().all(|n| fits(n) && n.len() == 63), "{got:?}");
        // Stable: SHA-256 of the original, not a process-random hash.
        let digest = Sha256::digest(format!("s_{a}").as_bytes());
        assert!(got[0].ends_with(&format!("_{:02x}{:02x}{:02x}{:02x}", digest[0], digest[1], digest[2], digest[3])));
    }

    #[test]
    fn a_name_taken_three_times_over_is_a_collision() {
        let got = keys(&pairs(&[("x", "y_z_w"), ("x_y", "z_w"), ("x_y_z", "w")]));
        assert_eq!(got[0], Key::Name("x_y_z_w".into()));
        assert!(matches!(&got[1], Key::Name(n) if n.starts_with("x_y_z_w_")));
        assert!(matches!(&got[2], Key::Collision { holder, .. } if holder == &("x_y".to_string(), "z_w".to_string())));
    }

    #[test]
    fn the_same_tool_twice_has_one_name() {
        assert_eq!(names(&[("s", "a.b"), ("s", "a.b")]), ["s_a_b", "s_a_b"]);
    }

    #[test]
    fn globs_match_runs_of_characters() {
        assert!(glob("*", ""));
        assert!(glob("get_*", "get_user"));
        assert!(!glob("get_*", "set_user"));
        assert!(glob("*_issue*", "create_issue_comment"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
    }

    #[test]
    fn exclude_wins_over_include() {
        let f = ToolFilter { include: Some(vec!["get_*".into(), "echo".into()]), exclude: vec!["*secret*".into()] };
        assert!(f.allows("get_user"));
        assert!(f.allows("echo"));
        assert!(!f.allows("get_secret"));
        assert!(!f.allows("add"));
        assert!(ToolFilter::default().allows("anything"));
    }
}

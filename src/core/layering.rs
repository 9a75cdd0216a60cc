//! Keeps the core's layering honest (see `docs/architecture.md`, "What each layer may import"):
//! the connection names none of the protocol features above it, transports name nothing of
//! authorization, no file is over 500 lines, and the top-level modules of `src/core` import
//! each other without a circle (a circle may only run inside one module and its submodules).
//! The binding (`src/node`) is held to the line cap too, and names no JSON-RPC method or error
//! code: it marshals, and what is sent and what a code means is the core's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest a core source file may be.
const MAX_LINES: usize = 500;
/// The feature layers (and their registry) the connection must not name.
const FEATURES: &[&str] = &["tasks", "input", "listen", "tool_cache", "era", "lists", "follow_up", "features", "registry", "skills"];

/// The segments before the `/` of a JSON-RPC method of MCP (`tools/call`, `notifications/…`).
const METHOD_HEADS: &[&str] = &[
    "tools",
    "resources",
    "prompts",
    "notifications",
    "tasks",
    "completion",
    "logging",
    "roots",
    "sampling",
    "elicitation",
    "subscriptions",
    "server",
    "skills",
];
/// JSON-RPC methods of MCP without a `/`.
const BARE_METHODS: &[&str] = &["initialize", "ping"];

/// Every `.rs` file under `src/<dir>`, sorted.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("the source folder is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir), &mut files);
    files.sort();
    files
}

/// Every `.rs` file under `src/core`, with its module path below `core` (`a/b.rs` and
/// `a/b/mod.rs` are `["a", "b"]`).
fn core_files() -> Vec<(Vec<String>, PathBuf)> {
    files_of("core")
}

/// The files of `src/<dir>` with their module paths below it.
fn files_of(dir: &str) -> Vec<(Vec<String>, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    rust_files(dir)
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&root).expect("under its source folder").with_extension("");
            let mut module: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            (module, path)
        })
        .collect()
}

/// The code of a file before its tests module, without comments, string and char literals.
fn code_of(source: &str) -> String {
    scan(source).0
}

/// The string literals of a file's code before its tests (comments skipped), as written.
fn literals_of(source: &str) -> Vec<String> {
    scan(source).1
}

/// `code_of` and `literals_of` in one pass.
fn scan(source: &str) -> (String, Vec<String>) {
    let mut literals = Vec::new();
    // Up to the tests module: a test-only item or import before it does not hide the code after it.
    let source = source.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && matches!(next, Some('"' | '#')) && (i == 0 || !ident(chars[i - 1])) {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            i += 1 + hashes + 1;
            let close: String = std::iter::once('"').chain(std::iter::repeat('#').take(hashes)).collect();
            let start = i;
            while i < chars.len() && !chars[i..].iter().collect::<String>().starts_with(&close) {
                i += 1;
            }
            literals.push(chars[start..i.min(chars.len())].iter().collect());
            i += close.len();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            let start = i;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            literals.push(chars[start..i.min(chars.len())].iter().collect());
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    (out, literals)
}

fn identifiers(code: &str) -> BTreeSet<String> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// The top-level core modules that `code` (of the module `module`) names: through
/// `crate::core::` or, from a top-level module, through `super::` (groups `{a, b::c}` included).
fn named_modules(module: &[String], code: &str) -> BTreeSet<String> {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let mut named = BTreeSet::new();
    let mut heads = Vec::new();
    for (at, _) in compact.match_indices("crate::core::") {
        heads.push(at + "crate::core::".len());
    }
    let mut at = 0;
    while let Some(found) = compact[at..].find("super::") {
        let start = at + found;
        let mut end = start;
        let mut depth = 0;
        while compact[end..].starts_with("super::") {
            end += "super::".len();
            depth += 1;
        }
        let preceded = compact[..start].ends_with("::");
        // `super` `depth` times from `module` reaches `core` itself only from this depth.
        if !preceded && depth == module.len() {
            heads.push(end);
        }
        at = end;
    }
    for head in heads {
        let rest = &compact[head..];
        let first_level: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut items = Vec::new();
            let mut item_start = 0;
            for (k, ch) in group.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        items.push(&group[item_start..k]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&group[item_start..k]);
                        item_start = k + 1;
                    }
                    _ => {}
                }
            }
            items
        } else {
            vec![rest]
        };
        for item in first_level {
            let name: String = item.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                named.insert(name);
            }
        }
    }
    named
}

/// Which top-level modules name which, over all of `src/core`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let files = core_files();
    let tops: BTreeSet<String> = files.iter().filter_map(|(m, _)| m.first().cloned()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, path) in &files {
        let Some(top) = module.first() else { continue };
        let code = code_of(&std::fs::read_to_string(path).expect("readable source"));
        for named in named_modules(module, &code) {
            if tops.contains(&named) && &named != top {
                graph.entry(top.clone()).or_default().insert(named);
            }
        }
    }
    graph
}

/// The import circles of `graph` (its strongly connected parts of more than one module).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reaches = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|m| (m, reaches(m))).collect();
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for (m, r) in &reach {
        if !r.contains(*m) {
            continue;
        }
        let part: BTreeSet<String> = r.iter().filter(|o| reach.get(o).is_some_and(|back| back.contains(*m))).cloned().collect();
        if !found.contains(&part) {
            found.push(part);
        }
    }
    found
}

#[test]
fn the_connection_names_no_feature_above_it() {
    for (module, path) in core_files().iter().filter(|(m, _)| m.first().is_some_and(|t| t == "connection")) {
        let code = code_of(&std::fs::read_to_string(path).expect("readable source"));
        let named: Vec<&str> = FEATURES.iter().copied().filter(|f| identifiers(&code).contains(*f)).collect();
        assert!(
            named.is_empty(),
            "core::{} names the feature layer(s) {named:?}: features sit above the connection and hook it through `connection::Layer`",
            module.join("::")
        );
    }
}

#[test]
fn transports_know_nothing_of_authorization() {
    for (module, path) in core_files().iter().filter(|(m, _)| m.first().is_some_and(|t| t == "transport")) {
        let code = code_of(&std::fs::read_to_string(path).expect("readable source"));
        let ids = identifiers(&code);
        let named: Vec<&String> = ids.iter().filter(|i| *i == "auth" || i.to_ascii_lowercase().contains("oauth")).collect();
        assert!(named.is_empty(), "core::{} names {named:?}: a transport hands challenges up raw, `auth/` reads them", module.join("::"));
    }
}

#[test]
fn no_core_file_is_over_500_lines() {
    for (_, path) in core_files() {
        let lines = std::fs::read_to_string(&path).expect("readable source").lines().count();
        assert!(lines <= MAX_LINES, "{} has {lines} lines (at most {MAX_LINES}): split it along its responsibilities", path.display());
    }
}

/// The JSON-RPC methods of MCP a string literal names.
fn methods_named(literal: &str) -> Vec<String> {
    literal
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '/' || c == '_'))
        .filter(|w| BARE_METHODS.contains(w) || w.split_once('/').is_some_and(|(head, rest)| METHOD_HEADS.contains(&head) && !rest.is_empty()))
        .map(str::to_string)
        .collect()
}

/// The JSON-RPC error codes (-32000 to -32099, -32600 to -32699) `code` names as numbers.
fn error_codes_named(code: &str) -> Vec<String> {
    identifiers(code)
        .into_iter()
        .map(|w| w.replace('_', ""))
        .filter(|w| w.len() == 5 && w.chars().all(|c| c.is_ascii_digit()) && (w.starts_with("320") || w.starts_with("326")))
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect()
}

#[test]
fn no_binding_file_is_over_500_lines() {
    for path in rust_files("node") {
        let lines = std::fs::read_to_string(&path).expect("readable source").lines().count();
        assert!(lines <= MAX_LINES, "{} has {lines} lines (at most {MAX_LINES}): move what is not marshalling into the core", path.display());
    }
}

#[test]
fn the_binding_names_no_json_rpc_method_or_error_code() {
    let files = rust_files("node");
    assert!(files.iter().any(|p| p.ends_with("client.rs")), "the scan sees src/node: {files:?}");
    for path in files {
        let source = std::fs::read_to_string(&path).expect("readable source");
        let methods: Vec<String> = literals_of(&source).iter().flat_map(|l| methods_named(l)).collect();
        assert!(
            methods.is_empty(),
            "{} names the JSON-RPC method(s) {methods:?}: what is sent is the core's (one core call per binding method)",
            path.display()
        );
        let codes = error_codes_named(&code_of(&source));
        assert!(codes.is_empty(), "{} names the JSON-RPC error code(s) {codes:?}: what a code means is the core's", path.display());
    }
}

#[test]
fn the_binding_scan_finds_methods_and_codes() {
    let source = "let m = \"tools/call\"; // \"resources/read\"\nlet n = \"notifications/roots/list_changed\"; let p = \"initialize\";\nif code == -32601 || c == -32_000 { }\nlet ok = \"'tools' | 'prompts'\"; let u = \"https://x/tools\";";
    let named: Vec<String> = literals_of(source).iter().flat_map(|l| methods_named(l)).collect();
    assert_eq!(named, ["tools/call", "notifications/roots/list_changed", "initialize"]);
    assert_eq!(error_codes_named(&code_of(source)), ["32000", "32601"]);
    assert!(error_codes_named(&code_of("let t = 32_768; let port = 3200;")).is_empty());
}

#[test]
fn core_modules_import_each_other_without_a_circle() {
    let graph = module_graph();
    assert!(graph.get("connection").is_some_and(|named| named.contains("open")), "the import scan sees `connection` -> `open`: {graph:?}");
    let found = circles(&graph);
    assert!(found.is_empty(), "import circles between core modules: {found:?} (graph: {graph:?})");
}

#[test]
fn the_scan_reads_paths_groups_and_skips_comments_and_strings() {
    let code = code_of("use super::{a, b::{c, d}};\nuse crate::core::e::F; // super::g\nlet s = \"super::h\"; let c = '\"'; use super::i;");
    let named = named_modules(&["x".to_string()], &code);
    assert_eq!(named, ["a", "b", "e", "i"].iter().map(|s| s.to_string()).collect());
    assert!(named_modules(&["x".to_string(), "y".to_string()], "use super::z;").is_empty(), "`super` of a submodule is its parent");
    let graph: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")].iter().fold(BTreeMap::new(), |mut g, (f, t)| {
        g.entry(f.to_string()).or_insert_with(BTreeSet::new).insert(t.to_string());
        g
    });
    assert_eq!(circles(&graph), vec![["a", "b", "c"].iter().map(|s| s.to_string()).collect::<BTreeSet<_>>()]);
}

/// The paths a file's code names below `crate::core` (absolute module paths, segments), from
/// `crate::core::…` and `super::…` paths (each item of a `{…}` group, groups within groups too).
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    // (where the path's rest starts, the module it is relative to)
    let mut heads: Vec<(usize, Vec<String>)> = Vec::new();
    for (at, _) in compact.match_indices("crate::core::") {
        heads.push((at + "crate::core::".len(), Vec::new()));
    }
    // `super` of a file `a/b.rs` (module `a::b`) is `a`; of `a/mod.rs` (module `a`) it is core.
    let own = module;
    let mut at = 0;
    while let Some(found) = compact[at..].find("super::") {
        let start = at + found;
        let mut end = start;
        let mut depth = 0;
        while compact[end..].starts_with("super::") {
            end += "super::".len();
            depth += 1;
        }
        if !compact[..start].ends_with("::") && depth <= own.len() {
            heads.push((end, own[..own.len() - depth].to_vec()));
        }
        at = end;
    }
    fn expand(rest: &str, base: Vec<String>, ident: &dyn Fn(char) -> bool, out: &mut Vec<Vec<String>>) {
        let mut path = base;
        let mut s = rest;
        loop {
            if let Some(group) = s.strip_prefix('{') {
                let (mut depth, mut item_start) = (0, 0);
                for (k, ch) in group.char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            expand(&group[item_start..k], path.clone(), ident, out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            expand(&group[item_start..k], path.clone(), ident, out);
                            item_start = k + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            let name: String = s.chars().take_while(|c| ident(*c)).collect();
            if name.is_empty() {
                break;
            }
            path.push(name.clone());
            s = &s[name.len()..];
            match s.strip_prefix("::") {
                Some(next) => s = next,
                None => break,
            }
        }
        out.push(path);
    }
    let mut out = Vec::new();
    for (head, base) in heads {
        expand(&compact[head..], base, &ident, &mut out);
    }
    out
}

/// Which core files name which (a path resolves to the deepest module file it reaches).
fn file_graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    file_graph_of("core")
}

/// Which files of `src/<dir>` name which, through `crate::<dir>::…` and `super::…` paths.
fn file_graph_of(dir: &str) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = files_of(dir);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, path) in &files {
        let mut code = code_of(&std::fs::read_to_string(path).expect("readable source"));
        if dir != "core" {
            // The scan reads `crate::core::` paths: the core is another folder here.
            code = code.replace("crate::core::", "crate::other::").replace(&format!("crate::{dir}::"), "crate::core::");
        }
        for named in named_paths(module, &code) {
            let target = (1..=named.len()).rev().map(|n| named[..n].to_vec()).find(|prefix| modules.contains(prefix));
            if let Some(target) = target.filter(|t| t != module) {
                graph.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    graph
}

/// The pairs of files of `graph` that import each other.
fn mutual_pairs(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let mut pairs = Vec::new();
    for (a, named) in graph {
        for b in named {
            if a < b && graph.get(b).is_some_and(|back| back.contains(a)) {
                pairs.push(format!("{} <-> {}", a.join("/"), b.join("/")));
            }
        }
    }
    pairs
}

#[test]
fn no_two_core_files_import_each_other() {
    let graph = file_graph();
    let auth_bearer = vec!["auth".to_string(), "bearer".to_string()];
    assert!(
        graph.get(&auth_bearer).is_some_and(|named| named.contains(&vec!["auth".to_string(), "session".to_string()])),
        "the scan sees auth/bearer.rs -> auth/session.rs: {:?}",
        graph.get(&auth_bearer)
    );
    let pairs = mutual_pairs(&graph);
    assert!(pairs.is_empty(), "core files that import each other: {pairs:?}");
}

#[test]
fn no_two_binding_files_import_each_other() {
    let graph = file_graph_of("node");
    let client = vec!["client".to_string()];
    assert!(
        graph.get(&client).is_some_and(|named| named.contains(&vec!["callbacks".to_string()]) && named.contains(&vec!["store".to_string()])),
        "the scan sees node/client.rs -> node/callbacks.rs and node/store.rs: {:?}",
        graph.get(&client)
    );
    let pairs = mutual_pairs(&graph);
    assert!(pairs.is_empty(), "binding files that import each other: {pairs:?}");
}

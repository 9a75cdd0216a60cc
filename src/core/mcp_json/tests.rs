//! One test per dialect and per kind of mistake.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::json;

use super::*;

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn source(path: &str, env_pairs: &[(&str, &str)]) -> Source {
    Source { label: path.to_string(), path: Some(PathBuf::from(path)), env: env(env_pairs), ..Source::default() }
}

fn err(text: &str, src: &Source) -> ConfigFileError {
    parse_text(text, src).expect_err("should be refused")
}

#[test]
fn claude_desktop_keeps_strings_verbatim() {
    let text = r#"{ "mcpServers": {
        "fs": { "command": "npx", "args": ["-y", "server-fs", "${HOME}"], "env": { "A": "1" } }
    }, "globalShortcut": "" }"#;
    let p = parse_text(text, &source("/u/Library/Application Support/Claude/claude_desktop_config.json", &[("HOME", "/u")])).unwrap();
    assert_eq!(p.format, Format::ClaudeDesktop);
    assert_eq!(p.servers["fs"], json!({ "command": "npx", "args": ["-y", "server-fs", "${HOME}"], "env": { "A": "1" } }));
    assert_eq!(p.transports["fs"], Transport::Stdio);
}

#[test]
fn claude_code_expands_shell_variables_with_defaults() {
    let text = r#"{ "mcpServers": {
        "api": { "type": "http", "url": "${API_BASE:-https://api.example.com}/mcp", "headers": { "Authorization": "Bearer ${TOKEN}" } },
        "local": { "type": "stdio", "command": "${BIN}", "args": [], "env": {} },
        "off": { "command": "nope", "disabled": true }
    } }"#;
    let p = parse_text(text, &source("/repo/.mcp.json", &[("TOKEN", "t0k"), ("BIN", "/bin/srv")])).unwrap();
    assert_eq!(p.format, Format::ClaudeCode);
    assert_eq!(p.servers["api"], json!({ "url": "https://api.example.com/mcp", "requestInit": { "headers": { "Authorization": "Bearer t0k" } } }));
    assert_eq!(p.servers["local"]["command"], "/bin/srv");
    assert_eq!(p.disabled, vec!["off".to_string()]);
    assert!(!p.servers.contains_key("off"));
}

#[test]
fn claude_code_unset_variable_names_server_field_and_variable() {
    let text = r#"{ "mcpServers": { "api": { "url": "https://x.test/mcp", "headers": { "Authorization": "Bearer ${TOKEN}" } } } }"#;
    let e = err(text, &source("/repo/.mcp.json", &[]));
    assert_eq!(e.kind, ConfigFileErrorKind::MissingEnv { var: "TOKEN".into() });
    assert_eq!(e.to_string(), "/repo/.mcp.json: server \"api\": headers.Authorization: environment variable TOKEN is not set");
}

#[test]
fn cursor_expands_env_prefix_and_editor_variables() {
    let text = r#"{ "mcpServers": {
        "db": { "command": "${userHome}/bin/db", "args": ["--root", "${workspaceFolder}"], "env": { "KEY": "${env:DB_KEY}" }, "cwd": "tools" },
        "remote": { "url": "http://127.0.0.1:9/sse", "type": "sse" }
    } }"#;
    let p = parse_text(text, &source("/w/proj/.cursor/mcp.json", &[("HOME", "/home/u"), ("DB_KEY", "k")])).unwrap();
    assert_eq!(p.format, Format::Cursor);
    assert_eq!(p.servers["db"], json!({ "command": "/home/u/bin/db", "args": ["--root", "/w/proj"], "env": { "KEY": "k" }, "cwd": "/w/proj/tools" }));
    assert_eq!(p.transports["remote"], Transport::Sse);
    // Cursor has no `${VAR}` form.
    let e = err(r#"{ "mcpServers": { "x": { "command": "${HOME}" } } }"#, &source("/w/.cursor/mcp.json", &[("HOME", "/h")]));
    assert_eq!(e.field.as_deref(), Some("command"));
    assert!(e.problem.contains("not supported in the cursor format"), "{e}");
}

#[test]
fn vscode_reads_servers_inputs_and_comments() {
    let text = r#"{
        // VS Code allows comments and trailing commas
        "inputs": [
            { "type": "promptString", "id": "api-key", "description": "API key", "password": true },
            { "type": "promptString", "id": "region", "default": "eu" },
        ],
        "servers": {
            "gh": { "type": "http", "url": "https://api.example.com/mcp/${input:region}", "headers": { "X-Key": "${input:api-key}" } },
            "py": { "type": "stdio", "command": "python", "args": ["${workspaceFolder}/srv.py"], "env": { "P": "${env:P}" } },
        },
    }"#;
    let mut src = source("/w/app/.vscode/mcp.json", &[("P", "p"), ("MCP_INPUT_API_KEY", "from-env")]);
    let p = parse_text(text, &src).unwrap();
    assert_eq!(p.format, Format::VsCode);
    assert_eq!(p.servers["gh"], json!({ "url": "https://api.example.com/mcp/eu", "requestInit": { "headers": { "X-Key": "from-env" } } }));
    assert_eq!(p.servers["py"]["args"], json!(["/w/app/srv.py"]));
    src.inputs.insert("api-key".into(), "from-options".into());
    src.inputs.insert("region".into(), "us".into());
    let p = parse_text(text, &src).unwrap();
    assert_eq!(p.servers["gh"]["requestInit"]["headers"]["X-Key"], "from-options");
    assert_eq!(p.servers["gh"]["url"], "https://api.example.com/mcp/us");
}

#[test]
fn vscode_missing_input_says_how_to_provide_it() {
    let text = r#"{ "inputs": [{ "type": "promptString", "id": "api-key" }], "servers": { "gh": { "url": "https://x.test", "headers": { "K": "${input:api-key}" } } } }"#;
    let e = err(text, &source("/w/.vscode/mcp.json", &[]));
    assert_eq!(e.kind, ConfigFileErrorKind::MissingInput { id: "api-key".into(), env_var: "MCP_INPUT_API_KEY".into() });
    assert_eq!(
        e.to_string(),
        "/w/.vscode/mcp.json: server \"gh\": headers.K: input \"api-key\" has no value: pass it in options.inputs or set MCP_INPUT_API_KEY"
    );
}

#[test]
fn windsurf_server_url_and_env_prefix() {
    let text = r#"{ "mcpServers": {
        "remote": { "serverUrl": "https://example.com/mcp", "headers": { "A": "${env:A}" } },
        "local": { "command": "srv", "env": { "B": "${env:A}" } }
    } }"#;
    let p = parse_text(text, &source("/home/u/.codeium/windsurf/mcp_config.json", &[("A", "a")])).unwrap();
    assert_eq!(p.format, Format::Windsurf);
    assert_eq!(p.servers["remote"], json!({ "url": "https://example.com/mcp", "requestInit": { "headers": { "A": "a" } } }));
    assert_eq!(p.servers["local"], json!({ "command": "srv", "args": [], "env": { "B": "a" } }));
}

#[test]
fn generic_file_accepts_every_variable_form_and_detects_servers_key() {
    let text = r#"{ "mcpServers": { "a": { "command": "x", "args": ["${env:A}", "${B}", "${C:-c}"] } } }"#;
    let p = parse_text(text, &source("/tmp/mcp.json", &[("A", "a"), ("B", "b")])).unwrap();
    assert_eq!(p.format, Format::Generic);
    assert_eq!(p.servers["a"]["args"], json!(["a", "b", "c"]));
    let p = parse_text(r#"{ "servers": { "a": { "command": "x" } } }"#, &source("/tmp/mcp.json", &[])).unwrap();
    assert_eq!(p.format, Format::VsCode);
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let e = err("{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" \n  }\n", &source("/tmp/mcp.json", &[]));
    assert!(matches!(e.kind, ConfigFileErrorKind::Syntax { line: 5, .. }), "{e:?}");
    assert!(e.to_string().starts_with("/tmp/mcp.json:5:"), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn field_mistakes_name_server_and_field() {
    let src = source("/tmp/mcp.json", &[]);
    let cases = [
        (
            r#"{ "mcpServers": { "s": { "command": "x", "args": ["a", 3, {}] } } }"#,
            "/tmp/mcp.json: server \"s\": args[2]: must be a string, got an object",
        ),
        (
            r#"{ "mcpServers": { "s": { "command": "x", "url": "http://a" } } }"#,
            "/tmp/mcp.json: server \"s\": has both \"command\" and \"url\"; configure exactly one",
        ),
        (r#"{ "mcpServers": { "s": {} } }"#, "/tmp/mcp.json: server \"s\": needs \"command\" (stdio) or \"url\" (http, sse)"),
        (r#"{ "mcpServers": { "s": { "url": "ftp://a" } } }"#, "/tmp/mcp.json: server \"s\": url: must use http or https, got ftp:"),
        (
            r#"{ "mcpServers": { "s": { "url": "http://a", "type": "websocket" } } }"#,
            "/tmp/mcp.json: server \"s\": type: must be one of stdio, http, streamable-http, sse; got \"websocket\"",
        ),
        (
            r#"{ "mcpServers": { "s": { "command": "x", "type": "http" } } }"#,
            "/tmp/mcp.json: server \"s\": type: is \"http\" but the server has a \"command\" and no \"url\"",
        ),
        (
            r#"{ "mcpServers": { "s": { "command": "x", "env": { "K": [1] } } } }"#,
            "/tmp/mcp.json: server \"s\": env.K: must be a string, got an array",
        ),
        (
            r#"{ "mcpServers": { "s": { "command": "x", "disabled": "yes" } } }"#,
            "/tmp/mcp.json: server \"s\": disabled: must be a boolean, got a string",
        ),
        (r#"{ "mcpServers": { "s": "npx server" } }"#, "/tmp/mcp.json: server \"s\": must be an object, got a string"),
        (r#"{ "mcpServers": [] }"#, "/tmp/mcp.json: \"mcpServers\" must be an object (server name → definition)"),
        (r#"{ "tools": {} }"#, "/tmp/mcp.json: no \"mcpServers\" or \"servers\" object at the top level"),
        (
            r#"{ "mcpServers": { "s": { "command": "x", "args": ["${A"] } } }"#,
            "/tmp/mcp.json: server \"s\": args[0]: unterminated variable in \"${A\"",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(err(text, &src).to_string(), expected, "for {text}");
    }
}

#[test]
fn forced_format_overrides_detection() {
    let text = r#"{ "mcpServers": { "a": { "command": "${X}" } } }"#;
    let mut src = source("/tmp/anything.json", &[("X", "x")]);
    src.format = Some(Format::ClaudeDesktop);
    assert_eq!(parse_text(text, &src).unwrap().servers["a"]["command"], "${X}");
    src.format = Some(Format::ClaudeCode);
    assert_eq!(parse_text(text, &src).unwrap().servers["a"]["command"], "x");
}

#[test]
fn to_json_carries_format_transports_and_disabled() {
    let text = r#"{ "mcpServers": { "a": { "url": "http://127.0.0.1:1/mcp" }, "b": { "command": "x", "disabled": true } } }"#;
    let v = parse_text(text, &source("/tmp/mcp.json", &[])).unwrap().to_json();
    assert_eq!(v["format"], "generic");
    assert_eq!(v["transports"], json!({ "a": "http" }));
    assert_eq!(v["disabled"], json!(["b"]));
}

#[test]
fn editor_variables_without_a_value_say_so() {
    let src = Source { label: "MCP config".into(), ..Source::default() };
    let e = parse_text(r#"{ "mcpServers": { "a": { "command": "x", "cwd": "${workspaceFolder}" } } }"#, &src).unwrap_err();
    assert_eq!(e.to_string(), "MCP config: server \"a\": cwd: ${workspaceFolder} has no value: no workspace folder (pass options.workspace)");
}

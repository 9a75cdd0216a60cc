//! JSON with comments (VS Code's `mcp.json` is JSONC): `//` and `/* */` comments and trailing
//! commas are blanked out, keeping every other byte in place so serde's line:column still
//! points into the user's file.

/// Returns `text` with comments and trailing commas replaced by spaces (newlines kept).
pub fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    // Index in `out` of a comma that may turn out to be trailing.
    let mut pending_comma: Option<usize> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                pending_comma = None;
                in_string = true;
                out.push(b);
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                out.extend_from_slice(b"  ");
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    out.push(if bytes[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
                if i < bytes.len() {
                    out.extend_from_slice(b"  ");
                    i += 2;
                }
            }
            b',' => {
                pending_comma = Some(out.len());
                out.push(b);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(at) = pending_comma.take() {
                    out[at] = b' ';
                }
                out.push(b);
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {
                out.push(b);
                i += 1;
            }
            _ => {
                pending_comma = None;
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced by ASCII, so this stays valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn comments_and_trailing_commas_are_blanked() {
        let src = "{\n // a comment\n \"a\": \"x // not a comment\", /* b\n c */ \"b\": [1, 2,],\n}";
        let v: serde_json::Value = serde_json::from_str(&strip(src)).expect("parses");
        assert_eq!(v["a"], "x // not a comment");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
    }

    #[test]
    fn line_numbers_are_kept() {
        let src = "{\n/* one\ntwo */\n\"a\": nope\n}";
        let err = serde_json::from_str::<serde_json::Value>(&strip(src)).unwrap_err();
        assert_eq!(err.line(), 4);
    }
}

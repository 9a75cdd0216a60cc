//! The stdio child's environment: a short whitelist inherited from our process (the MCP SDK's
//! `DEFAULT_INHERITED_ENV_VARS`), then the user's `env` on top. Secrets in the parent's
//! environment never reach an MCP server unless the user passes them explicitly.

use std::collections::BTreeMap;

/// Variables inherited on POSIX systems.
pub const POSIX_INHERITED: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// Variables inherited on Windows.
pub const WINDOWS_INHERITED: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// The whitelist for the platform we run on.
pub fn inherited_names() -> &'static [&'static str] {
    if cfg!(windows) {
        WINDOWS_INHERITED
    } else {
        POSIX_INHERITED
    }
}

/// Computes the child's complete environment.
///
/// * `parent` looks a variable up in our own environment;
/// * whitelisted variables that are unset, or whose value starts with `()` (exported shell
///   functions), are skipped;
/// * `explicit` (the user's `env`) always wins;
/// * with `inherit_default_env == false`, only `explicit` reaches the child.
pub fn child_environment(
    names: &[&str],
    parent: impl Fn(&str) -> Option<String>,
    explicit: &BTreeMap<String, String>,
    inherit_default_env: bool,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if inherit_default_env {
        for name in names {
            if let Some(value) = parent(name) {
                if !value.starts_with("()") {
                    out.insert((*name).to_string(), value);
                }
            }
        }
    }
    for (k, v) in explicit {
        out.insert(k.clone(), v.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "PATH" => Some("/usr/bin".into()),
            "SHELL" => Some("() { evil; }".into()),
            "SECRET_KEY" => Some("hunter2".into()),
            _ => None,
        }
    }

    #[test]
    fn only_whitelisted_variables_are_inherited() {
        let env = child_environment(POSIX_INHERITED, parent, &BTreeMap::new(), true);
        assert_eq!(env.keys().collect::<Vec<_>>(), vec!["HOME", "PATH"]);
        assert!(!env.contains_key("SECRET_KEY"));
    }

    #[test]
    fn shell_functions_are_skipped() {
        let env = child_environment(POSIX_INHERITED, parent, &BTreeMap::new(), true);
        assert!(!env.contains_key("SHELL"));
    }

    #[test]
    fn explicit_env_overrides_and_extends() {
        let explicit = BTreeMap::from([("PATH".to_string(), "/opt/bin".to_string()), ("API_KEY".to_string(), "k".to_string())]);
        let env = child_environment(POSIX_INHERITED, parent, &explicit, true);
        assert_eq!(env["PATH"], "/opt/bin");
        assert_eq!(env["API_KEY"], "k");
        assert_eq!(env["HOME"], "/home/u");
    }

    #[test]
    fn without_inheritance_only_explicit_env_reaches_the_child() {
        let explicit = BTreeMap::from([("ONLY".to_string(), "1".to_string())]);
        let env = child_environment(POSIX_INHERITED, parent, &explicit, false);
        assert_eq!(env.keys().collect::<Vec<_>>(), vec!["ONLY"]);
    }

    #[test]
    fn windows_list_has_twelve_names_including_programfiles() {
        assert_eq!(WINDOWS_INHERITED.len(), 12);
        assert!(WINDOWS_INHERITED.contains(&"PROGRAMFILES"));
    }
}

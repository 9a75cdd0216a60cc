// The published crate installs git hooks in its own workspace; a vendored copy has none to install.
fn main() {}

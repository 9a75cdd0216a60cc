//! What a handler the user registers asks of the core, by the kind the face registers it under
//! (one coarse call per registration): a list-changed handler asks the server's 2026-07-28
//! sessions to listen for that list (`listen::want_list_changes`); an `elicitation.onRequest`
//! handler answers input requests and is waited for without a bound (`asking::bound`); a
//! `progress` or `logging` handler asks for what a server sends outside any request (a Streamable
//! HTTP session's GET stream, at once); the other kinds (`resourceUpdated`, …) ask nothing.

use std::sync::atomic::Ordering;

use super::error::Result;
use super::listen::{self, ListKind};
use super::registry::Registry;

/// What a handler kind asks of the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asks {
    /// `subscriptions/listen` for this list's changes.
    ListChanges(ListKind),
    /// Input requests go to it, waited for as long as it takes.
    AnswersInput,
    /// What the server sends outside any request (its progress and logs may come that way).
    UnaskedMessages,
    Nothing,
}

/// The face's handler kinds (`lib/client/events.cjs`).
pub fn asks(kind: &str) -> Asks {
    match kind {
        "toolListChanged" => Asks::ListChanges(ListKind::Tools),
        "promptListChanged" => Asks::ListChanges(ListKind::Prompts),
        "resourceListChanged" => Asks::ListChanges(ListKind::Resources),
        "elicitation" => Asks::AnswersInput,
        "progress" | "logging" => Asks::UnaskedMessages,
        _ => Asks::Nothing,
    }
}

/// A handler of `kind` was registered for `server`. Settles once a live 2026-07-28 session's
/// `subscriptions/listen` asks for a list too; fails only for a list kind of an unknown server.
pub async fn registered(registry: &Registry, server: &str, kind: &str) -> Result<()> {
    match asks(kind) {
        Asks::Nothing => {}
        Asks::AnswersInput => {
            if let Ok(conn) = registry.get(server) {
                conn.shared().input_handler.store(true, Ordering::SeqCst);
            }
        }
        Asks::UnaskedMessages => {
            if let Ok(conn) = registry.get(server) {
                conn.shared().unasked_handler.store(true, Ordering::SeqCst);
                if let Some(live) = conn.try_current() {
                    live.want_channel();
                }
            }
        }
        Asks::ListChanges(list) => listen::want_list_changes(&*registry.get(server)?, list).await,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_changed_handlers_ask_for_their_list_and_elicitation_answers_input() {
        assert_eq!(asks("toolListChanged"), Asks::ListChanges(ListKind::Tools));
        assert_eq!(asks("promptListChanged"), Asks::ListChanges(ListKind::Prompts));
        assert_eq!(asks("resourceListChanged"), Asks::ListChanges(ListKind::Resources));
        assert_eq!(asks("elicitation"), Asks::AnswersInput);
        assert_eq!(asks("progress"), Asks::UnaskedMessages);
        assert_eq!(asks("logging"), Asks::UnaskedMessages);
        for kind in ["resourceUpdated", ""] {
            assert_eq!(asks(kind), Asks::Nothing, "{kind}");
        }
    }
}

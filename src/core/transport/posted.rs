//! Whether a request left this client, told by a transport whose caller cannot otherwise know.
//!
//! Over the legacy SSE transport, rmcp's service loop takes a request, spawns its POST, and hears
//! back only through a channel: when the event stream ends (the server died), the loop stops and
//! drops what it had not sent yet, and the caller hears a bare "transport closed" whether its
//! request was POSTed or not. The request carries this cell (an extension); the transport marks
//! it as the POST starts and when no connection could be opened, so the request path can tell a
//! request that certainly never reached the server (sent again once it is back) from one that
//! may have run (never sent again).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

const NOT_YET: u8 = 0;
const STARTED: u8 = 1;
const REFUSED: u8 = 2;

/// One request's cell: not yet posted, posting (or posted), or refused before any connection.
#[derive(Debug, Clone, Default)]
pub struct Posted(Arc<AtomicU8>);

impl Posted {
    /// The POST is about to go out: from now on the request may reach the server.
    pub fn started(&self) {
        self.0.store(STARTED, Ordering::SeqCst);
    }

    /// No connection could be opened for the POST, or the endpoint answered 404 (it does not know
    /// the session: a restarted server): the request was not run.
    pub fn refused(&self) {
        self.0.store(REFUSED, Ordering::SeqCst);
    }

    /// Whether the request certainly never reached the server: it was never posted, or its
    /// POST found no server to connect to.
    pub fn never_reached_server(&self) -> bool {
        matches!(self.0.load(Ordering::SeqCst), NOT_YET | REFUSED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_unsent_until_its_post_starts_and_again_once_refused() {
        let posted = Posted::default();
        assert!(posted.never_reached_server());
        posted.started();
        assert!(!posted.never_reached_server(), "a started POST may have run");
        posted.refused();
        assert!(posted.never_reached_server(), "a refused connection carried nothing");
    }
}

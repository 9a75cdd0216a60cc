//! What we add to stored tokens: the time they arrived, so that expiry can be checked after a
//! restart (`hasValidTokens()`, and renewal before a request).

use std::time::{SystemTime, UNIX_EPOCH};

/// Name of the field we add to stored tokens: seconds since the epoch when they arrived.
pub const OBTAINED_AT: &str = "obtained_at";

pub fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

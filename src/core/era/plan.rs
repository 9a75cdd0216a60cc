//! A connect as a plan, then its execution, then one lesson.
//!
//! Before anything opens, [`plan`] turns what is known of the server (the `protocolVersion`
//! option, the era it answered with before, a URL seen refusing the handshake, a `server/discover`
//! answer at hand) into a [`Plan`]: the first start, the one start that follows when the first
//! one fails teaching the era, whether the legacy SSE transport may follow, and the discover
//! answer to reuse. `open` runs it without asking this layer anything more, noting in an
//! [`Outcome`] what refused and what worked; [`known::learn`] takes that outcome once, at the end.

use std::sync::atomic::Ordering;

use rmcp::model::ServerJsonRpcMessage;

use super::known::{self, Endpoint, Era};
use super::{Start, AUTO};
use crate::core::config::ServerSpec;
use crate::core::handler::{HandlerShared, MODERN_PROTOCOL_VERSION};

/// What is known of a server before a connect: the input of [`Known::plan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// The `protocolVersion` option.
    pub pinned: Option<String>,
    /// A session of this server opened in the handshake era, or it refused the probe.
    pub legacy: bool,
    /// A session of this server opened in 2026-07-28.
    pub modern: bool,
    /// Its URL refused the handshake as a modern-only server, for some client of this process.
    pub modern_endpoint: bool,
}

/// One start that follows a failed first one: `start`, when the failure showed the era `on`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    pub on: Era,
    pub start: Start,
}

/// How a connect runs, decided before anything opens.
#[derive(Debug, Clone)]
pub struct Plan {
    pub first: Start,
    /// The start that follows a failed first one, by the era its failure showed: the first entry
    /// whose era was shown (the handshake era wins when both were). At most one more start.
    pub then: Vec<Fallback>,
    /// Whether a Streamable HTTP connect that failed may try the legacy SSE transport (not with a
    /// pinned 2026-07-28: SSE cannot speak it).
    pub sse_fallback: bool,
    /// A `server/discover` answer at hand (this client's last, or another client's while its
    /// `cacheScope` and `ttlMs` allow): a discovering start is answered from it, sending nothing.
    pub discover: Option<ServerJsonRpcMessage>,
}

impl Plan {
    /// The start that follows a first start whose failure showed the eras `shown`.
    pub fn after(&self, shown: &[Era]) -> Option<&Start> {
        self.then.iter().find(|f| shown.contains(&f.on)).map(|f| &f.start)
    }
}

impl Known {
    /// What this client knows of its server now.
    pub fn of(shared: &HandlerShared) -> Known {
        Known {
            pinned: shared.pinned_version.clone(),
            legacy: shared.legacy_era.load(Ordering::SeqCst),
            modern: shared.modern_era.load(Ordering::SeqCst),
            modern_endpoint: shared.endpoint.as_deref().is_some_and(known::modern_endpoint),
        }
    }

    /// How the next session starts (see the module docs of `era`).
    pub fn start(&self) -> Start {
        let pinned = self.pinned.as_deref();
        let negotiated = matches!(pinned, None | Some(AUTO));
        match pinned {
            Some(MODERN_PROTOCOL_VERSION) => Start::Discover,
            // A server that did not take the probe is opened with the handshake first: a
            // handshake-era server sees only the handshake, and a modern-only one (say, slow to
            // start the first time) still refuses it and gets `server/discover`.
            _ if negotiated && self.legacy => Start::HandshakeFirst,
            _ if negotiated && (self.modern || self.modern_endpoint) => Start::Discover,
            Some(AUTO) => Start::Probe,
            None => Start::HandshakeFirst,
            _ => Start::Handshake,
        }
    }

    /// The plan of a connect from what is known (with `discover`, the answer at hand).
    pub fn plan(&self, discover: Option<ServerJsonRpcMessage>) -> Plan {
        let first = self.start();
        let mut then = Vec::new();
        if first.negotiates() {
            for on in [Era::Legacy, Era::Modern] {
                let taught = match on {
                    Era::Legacy => Known { legacy: true, ..self.clone() },
                    Era::Modern => Known { modern: true, ..self.clone() },
                };
                let start = taught.start();
                if start != first {
                    then.push(Fallback { on, start });
                }
            }
        }
        Plan { first, then, sse_fallback: self.pinned.as_deref() != Some(MODERN_PROTOCOL_VERSION), discover }
    }
}

/// The plan of this server's next connect.
pub fn plan(shared: &HandlerShared, spec: &ServerSpec) -> Plan {
    let endpoint = match spec {
        ServerSpec::Http(spec) => Endpoint::of(spec),
        ServerSpec::Stdio(_) => None,
    };
    plan_at(shared, endpoint.as_ref())
}

/// The plan of this server's next connect (`endpoint`: where its discover answers may be shared).
fn plan_at(shared: &HandlerShared, endpoint: Option<&Endpoint>) -> Plan {
    Known::of(shared).plan(known::answer_at_hand(shared, endpoint))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::era::known::learn;
    use crate::core::era::known::Remembered;
    use crate::core::era::{Lesson, Outcome};
    use crate::core::transport::streamable::DiscoverAnswers;
    use std::sync::Arc;

    fn shared(server: serde_json::Value) -> Arc<HandlerShared> {
        let sink: Arc<dyn crate::core::EventSink> = Arc::new(crate::core::events::NullSink);
        Arc::new(HandlerShared::from_config(&crate::core::ServerConfig::from_json("s", &server), sink, None))
    }

    fn known(pinned: Option<&str>) -> Known {
        Known { pinned: pinned.map(str::to_string), ..Known::default() }
    }

    fn discover_answer(ttl: u64) -> ServerJsonRpcMessage {
        serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "id": 1,
            "result": { "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}, "ttlMs": ttl, "cacheScope": "public" }
        }))
        .expect("a discover answer")
    }

    #[test]
    fn a_pinned_version_is_one_start_with_no_fallback() {
        let modern = known(Some(MODERN_PROTOCOL_VERSION)).plan(None);
        assert_eq!((modern.first, modern.then, modern.sse_fallback), (Start::Discover, vec![], false), "2026-07-28 pinned: no SSE either");
        let legacy = known(Some("2025-06-18")).plan(None);
        assert_eq!((legacy.first, legacy.then, legacy.sse_fallback), (Start::Handshake, vec![], true));
        let remembered = Known { legacy: true, modern: true, ..known(Some("legacy")) }.plan(None);
        assert_eq!(remembered.first, Start::Handshake, "a pinned era ignores what was remembered");
    }

    #[test]
    fn with_nothing_known_the_plan_negotiates_once() {
        let default = known(None).plan(None);
        assert_eq!(default.first, Start::HandshakeFirst);
        assert_eq!(default.then, vec![Fallback { on: Era::Modern, start: Start::Discover }], "handshake, then modern on refusal");
        let auto = known(Some(AUTO)).plan(None);
        assert_eq!(auto.first, Start::Probe);
        assert_eq!(auto.then, vec![Fallback { on: Era::Legacy, start: Start::HandshakeFirst }, Fallback { on: Era::Modern, start: Start::Discover }]);
        assert_eq!(auto.after(&[Era::Modern, Era::Legacy]), Some(&Start::HandshakeFirst), "the handshake era wins when both were shown");
        assert_eq!(auto.after(&[]), None, "a failure that showed nothing is final");
    }

    #[test]
    fn a_remembered_era_is_one_start() {
        for pinned in [None, Some(AUTO)] {
            let modern = Known { modern: true, ..known(pinned) }.plan(None);
            assert_eq!((modern.first, modern.then), (Start::Discover, vec![]));
            let legacy = Known { legacy: true, ..known(pinned) }.plan(None);
            assert_eq!((legacy.first, legacy.then), (Start::HandshakeFirst, vec![]), "a refusal now would not change the start");
        }
    }

    #[test]
    fn a_refusal_seen_makes_the_next_connect_discover_at_once() {
        let url = "http://127.0.0.1:1/plan-refusal";
        let shared = shared(serde_json::json!({ "url": url }));
        assert_eq!(plan_at(&shared, None).first, Start::HandshakeFirst);
        let mut outcome = Outcome::default();
        outcome.note(Lesson::Shown { era: Era::Modern, refused_handshake: true });
        assert_eq!(outcome.shown_since(0), vec![Era::Modern]);
        learn(&shared, outcome);
        assert_eq!(plan_at(&shared, None).first, Start::Discover);
        let other = self::shared(serde_json::json!({ "url": url }));
        assert_eq!(plan_at(&other, None).first, Start::Discover, "another client of the URL starts with server/discover too");
        // A second start that failed as well: nothing was learned.
        let mut outcome = Outcome::default();
        outcome.note(Lesson::Forget);
        learn(&shared, outcome);
        assert_eq!((plan_at(&shared, None).first, plan_at(&other, None).first), (Start::HandshakeFirst, Start::HandshakeFirst));
    }

    #[test]
    fn an_opened_session_is_remembered_once_at_the_end() {
        let shared = shared(serde_json::json!({ "command": "x", "protocolVersion": AUTO }));
        let mut outcome = Outcome::default();
        outcome.note(Lesson::Shown { era: Era::Legacy, refused_handshake: false });
        outcome.note(Lesson::Opened { modern: false });
        assert_eq!(plan_at(&shared, None).first, Start::Probe, "nothing is learned before the outcome");
        learn(&shared, outcome);
        assert_eq!(plan_at(&shared, None).first, Start::HandshakeFirst);
    }

    #[test]
    fn a_discover_answer_is_at_hand_until_its_ttl_expires() {
        let url = url::Url::parse("http://127.0.0.1:1/plan-ttl").expect("url");
        let endpoint = Endpoint::new(&url, &[], false);
        let writer = shared(serde_json::json!({ "url": url.as_str() }));
        Remembered::new(writer, endpoint.clone()).remember(&discover_answer(40));
        let reader = shared(serde_json::json!({ "url": url.as_str() }));
        assert!(plan_at(&reader, endpoint.as_ref()).discover.is_some(), "another client's public answer, while fresh");
        std::thread::sleep(std::time::Duration::from_millis(60));
        assert!(plan_at(&reader, endpoint.as_ref()).discover.is_none(), "expired: the probe goes out");
        let own = shared(serde_json::json!({ "url": url.as_str() }));
        Remembered::new(own.clone(), None).remember(&discover_answer(0));
        assert!(plan_at(&own, None).discover.is_some(), "this client's own last answer has no expiry");
    }
}

//! What is known of a server's era beyond one session:
//! - **per process, per URL** ([`modern_endpoint`]): a URL that refused the handshake as a
//!   modern-only server does is a 2026-07-28 server (a property of the endpoint, not of the user:
//!   SPEC 14.1), so the next client of it starts with `server/discover`, with no refused handshake
//!   first (a dual-era server is not recorded: the default keeps opening it with the handshake);
//! - **its `server/discover` answer** ([`ReuseDiscover`], a transport layer under a discovering
//!   start): a client that connects again (after `disconnect()`, a reconnect or a failure)
//!   reuses the answer its server gave it, sending no second probe (as `@mastra/mcp` 2.0); another
//!   client of the same URL reuses it while the answer says it may — `cacheScope: "public"`, or
//!   `"private"` with the very same configured headers — and for no longer than its `ttlMs`.
//!   A server whose credentials are not all in its headers (OAuth, a custom `fetch`) shares nothing.
//!
//! A connect's [`Outcome`] (what it showed, in order) is taken once at its end ([`learn`]): the
//! next connect of the server starts the way this one ended.
//!
//! Process-wide entries are bounded ([`MAX_ENDPOINTS`]): a process that makes a million per-user
//! clients holds what its busiest endpoints need.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

use crate::core::config::HttpSpec;
use crate::core::handler::HandlerShared;
use crate::core::schema_key::schema_key;
use crate::core::transport::reply::answer_with_id;
use crate::core::transport::streamable::{discover_request_id, DiscoverAnswers};
use rmcp::model::ServerJsonRpcMessage;

/// At most this many URLs are remembered per process (each map); the oldest go first.
pub const MAX_ENDPOINTS: usize = 1024;

/// A bounded map, oldest entries dropped first.
struct Bounded<V> {
    map: HashMap<String, V>,
    order: VecDeque<String>,
}

impl<V> Bounded<V> {
    fn new() -> Self {
        Bounded { map: HashMap::new(), order: VecDeque::new() }
    }

    fn insert(&mut self, key: String, value: V) {
        if self.map.insert(key.clone(), value).is_none() {
            self.order.push_back(key);
        }
        while self.map.len() > MAX_ENDPOINTS {
            match self.order.pop_front() {
                Some(oldest) => {
                    self.map.remove(&oldest);
                }
                None => break,
            }
        }
    }

    fn remove(&mut self, key: &str) {
        if self.map.remove(key).is_some() {
            self.order.retain(|k| k != key);
        }
    }
}

fn modern_endpoints() -> &'static Mutex<Bounded<()>> {
    static MAP: OnceLock<Mutex<Bounded<()>>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(Bounded::new()))
}

/// Whether this process has seen `url` refuse the handshake as a modern-only server.
pub fn modern_endpoint(url: &str) -> bool {
    modern_endpoints().lock().is_ok_and(|m| m.map.contains_key(url))
}

/// Records (or, with `false`, forgets) that `url` refuses the handshake as a modern-only server.
pub fn set_modern_endpoint(url: &str, modern: bool) {
    if let Ok(mut m) = modern_endpoints().lock() {
        if modern {
            m.insert(url.to_string(), ());
        } else {
            m.remove(url);
        }
    }
}

/// A `server/discover` answer that other clients may reuse until `fresh_until`.
struct Shared {
    answer: RxJsonRpcMessage<RoleClient>,
    fresh_until: Instant,
}

fn shared_answers() -> &'static Mutex<Bounded<Shared>> {
    static MAP: OnceLock<Mutex<Bounded<Shared>>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(Bounded::new()))
}

/// Where a server's discover answers may be shared: its URL and, for a `"private"` answer, a
/// key of the credentials its requests carry (the configured headers). `None`: not shared.
#[derive(Clone)]
pub struct Endpoint {
    url: String,
    credentials: String,
}

impl Endpoint {
    /// A `url` server's: its requests carry credentials beyond its headers with OAuth or a custom `fetch`.
    pub fn of(spec: &HttpSpec) -> Option<Self> {
        Self::new(&spec.url, &spec.headers, spec.oauth || spec.custom_fetch)
    }

    /// `headers`: the server's configured headers; `opaque_credentials`: its requests may carry
    /// credentials not among them (OAuth tokens, a custom `fetch`): it shares nothing.
    pub fn new(url: &url::Url, headers: &[(String, String)], opaque_credentials: bool) -> Option<Self> {
        if opaque_credentials {
            return None;
        }
        let mut sorted: Vec<(String, &str)> = headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.as_str())).collect();
        sorted.sort();
        let text = serde_json::to_string(&sorted).unwrap_or_default();
        Some(Endpoint { url: url.as_str().to_string(), credentials: schema_key(&text) })
    }

    fn key(&self, public: bool) -> String {
        if public {
            format!("public {}", self.url)
        } else {
            format!("private {} {}", self.credentials, self.url)
        }
    }
}

fn lookup(endpoint: &Endpoint) -> Option<RxJsonRpcMessage<RoleClient>> {
    let answers = shared_answers().lock().ok()?;
    let now = Instant::now();
    [true, false].into_iter().filter_map(|public| answers.map.get(&endpoint.key(public))).find(|s| s.fresh_until > now).map(|s| s.answer.clone())
}

/// Offers an answer for sharing, as far as its `cacheScope` and `ttlMs` allow.
fn offer(endpoint: &Endpoint, answer: &RxJsonRpcMessage<RoleClient>) {
    let JsonRpcMessage::Response(response) = answer else { return };
    let Ok(result) = serde_json::to_value(&response.result) else { return };
    let ttl = result.get("ttlMs").and_then(Value::as_u64).unwrap_or(0);
    if ttl == 0 {
        return;
    }
    let public = result.get("cacheScope").and_then(Value::as_str) == Some("public");
    if let Ok(mut answers) = shared_answers().lock() {
        let fresh_until = Instant::now() + Duration::from_millis(ttl);
        answers.insert(endpoint.key(public), Shared { answer: answer.clone(), fresh_until });
    }
}

/// The answer this client's server gave its last `server/discover` (kept across sessions).
fn last_answer(shared: &HandlerShared) -> Option<RxJsonRpcMessage<RoleClient>> {
    shared.last_discover.lock().ok().and_then(|a| a.clone())
}

fn set_last_answer(shared: &HandlerShared, answer: Option<RxJsonRpcMessage<RoleClient>>) {
    if let Ok(mut a) = shared.last_discover.lock() {
        *a = answer;
    }
}

/// This client's last discover answer as JSON (`None` before one), with its `ttlMs` (0 when absent).
pub fn answer_of(shared: &HandlerShared) -> Option<(Value, u64)> {
    let answer = last_answer(shared)?;
    let JsonRpcMessage::Response(response) = &answer else { return None };
    let ttl = serde_json::to_value(&response.result).ok()?.get("ttlMs").and_then(Value::as_u64).unwrap_or(0);
    Some((serde_json::to_value(&answer).ok()?, ttl))
}

/// Takes a discover answer another process of the same scope and credentials kept (`answer_of`),
/// while its `ttlMs` allows; whether it was taken.
pub fn seed_answer(shared: &HandlerShared, answer: &Value) -> bool {
    match serde_json::from_value::<RxJsonRpcMessage<RoleClient>>(answer.clone()) {
        Ok(message) if matches!(message, JsonRpcMessage::Response(_)) => {
            set_last_answer(shared, Some(message));
            true
        }
        _ => false,
    }
}

/// The `server/discover` answer a connect has at hand: this client's last one, else another
/// client's of `endpoint` as far as it allows.
pub fn answer_at_hand(shared: &HandlerShared, endpoint: Option<&Endpoint>) -> Option<RxJsonRpcMessage<RoleClient>> {
    last_answer(shared).or_else(|| endpoint.and_then(lookup))
}

/// Which era a failed start showed the server to be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// The `initialize` handshake (2025-11-25 and before).
    Legacy,
    /// 2026-07-28 (`server/discover`, no handshake).
    Modern,
}

/// One thing a connect showed, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lesson {
    /// A failed start showed the era; `refused_handshake`: the server refused `initialize` as a
    /// modern-only server does (its URL is one for every client of the process).
    Shown { era: Era, refused_handshake: bool },
    /// The one more start failed too: nothing was learned, the next connect negotiates again.
    Forget,
    /// A session opened, in this era.
    Opened { modern: bool },
}

/// What a connect showed, handed to [`learn`] once at its end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub lessons: Vec<Lesson>,
}

impl Outcome {
    pub fn note(&mut self, lesson: Lesson) {
        self.lessons.push(lesson);
    }

    /// The eras shown since the first `from` lessons (one start's failure).
    pub fn shown_since(&self, from: usize) -> Vec<Era> {
        self.lessons[from.min(self.lessons.len())..]
            .iter()
            .filter_map(|l| match l {
                Lesson::Shown { era, .. } => Some(*era),
                _ => None,
            })
            .collect()
    }
}

/// Takes what a connect showed (its [`Outcome`]), once, at its end: the era a session opened in
/// is remembered (the next connect starts that way); a refused handshake marks the URL as a
/// 2026-07-28 server's for every client of the process (a dual-era server, which takes the
/// handshake, is never marked so); a second start that failed too forgets what was known (the
/// next connect negotiates again). The lessons count in the order they happened.
pub fn learn(shared: &HandlerShared, outcome: Outcome) {
    let (mut legacy, mut modern, mut forgot, mut endpoint) = (false, false, false, None);
    for lesson in outcome.lessons {
        match lesson {
            Lesson::Shown { era, refused_handshake } => {
                *if era == Era::Modern { &mut modern } else { &mut legacy } = true;
                if refused_handshake {
                    endpoint = Some(true);
                }
            }
            Lesson::Opened { modern: opened_modern } => *if opened_modern { &mut modern } else { &mut legacy } = true,
            Lesson::Forget => (legacy, modern, forgot, endpoint) = (false, false, true, Some(false)),
        }
    }
    for (flag, set) in [(&shared.legacy_era, legacy), (&shared.modern_era, modern)] {
        if forgot || set {
            flag.store(set, Ordering::SeqCst);
        }
    }
    settle(shared, endpoint, forgot);
}

/// What a connect showed of what outlives a session: whether the server's URL is a modern-only
/// one (`None`: nothing new), and whether this client's last discover answer is to be forgotten
/// (its era is being learned again).
fn settle(shared: &HandlerShared, modern_endpoint: Option<bool>, forget_answer: bool) {
    if forget_answer {
        set_last_answer(shared, None);
    }
    if let (Some(modern), Some(url)) = (modern_endpoint, &shared.endpoint) {
        set_modern_endpoint(url, modern);
    }
}

/// What one server's sessions know of its `server/discover` answers: this client's last one, then
/// another client's as far as it allows (see the module docs).
pub struct Remembered {
    shared: Arc<HandlerShared>,
    endpoint: Option<Endpoint>,
    /// The answer a connect's plan found at hand, for its first `server/discover`.
    planned: Mutex<Option<ServerJsonRpcMessage>>,
}

impl Remembered {
    pub fn new(shared: Arc<HandlerShared>, endpoint: Option<Endpoint>) -> Self {
        Remembered { shared, endpoint, planned: Mutex::new(None) }
    }

    /// With the answer a plan found at hand: the first `server/discover` is answered from it.
    pub fn with_answer(self, planned: Option<ServerJsonRpcMessage>) -> Self {
        Remembered { planned: Mutex::new(planned), ..self }
    }
}

impl DiscoverAnswers for Remembered {
    fn known(&self) -> Option<ServerJsonRpcMessage> {
        let planned = self.planned.lock().ok().and_then(|mut p| p.take());
        let known = planned.or_else(|| answer_at_hand(&self.shared, self.endpoint.as_ref()));
        if known.is_some() {
            tracing::debug!(server = %self.shared.server, "server/discover answered from what this server said before");
        }
        known
    }

    fn remember(&self, answer: &ServerJsonRpcMessage) {
        if matches!(answer, JsonRpcMessage::Response(_)) {
            set_last_answer(&self.shared, Some(answer.clone()));
            if let Some(endpoint) = &self.endpoint {
                offer(endpoint, answer);
            }
        }
    }
}

/// A transport layer under a discovering start (the stdio pipe; Streamable HTTP does this in its
/// HTTP client, below rmcp's worker, which must see its start request go out): answers rmcp's
/// `server/discover` from what is known without sending it, else sends it and remembers the answer.
pub struct ReuseDiscover<T> {
    inner: T,
    answers: Remembered,
    /// Answers made up for rmcp, returned before anything else is read.
    pending: VecDeque<RxJsonRpcMessage<RoleClient>>,
    /// The id of the `server/discover` that went out, until it is answered.
    outstanding: Option<RequestId>,
}

impl<T> ReuseDiscover<T> {
    pub fn new(inner: T, answers: Remembered) -> Self {
        ReuseDiscover { inner, answers, pending: VecDeque::new(), outstanding: None }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ReuseDiscover<T> {
    type Error = T::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        use futures::future::Either;
        if let Some(id) = discover_request_id(&item) {
            if let Some(answer) = self.answers.known() {
                self.pending.push_back(answer_with_id(answer, id));
                return Either::Left(std::future::ready(Ok(())));
            }
            self.outstanding = Some(id);
        }
        Either::Right(self.inner.send(item))
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        if let Some(made_up) = self.pending.pop_front() {
            return Some(made_up);
        }
        let message = self.inner.receive().await?;
        if self.outstanding.is_some() && super::handshake_first::answered_id(&message) == self.outstanding.as_ref() {
            self.outstanding = None;
            self.answers.remember(&message);
        }
        Some(message)
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(ttl: u64, scope: &str) -> RxJsonRpcMessage<RoleClient> {
        serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "id": 1,
            "result": { "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}, "ttlMs": ttl, "cacheScope": scope }
        }))
        .expect("a discover answer")
    }

    fn endpoint(url: &str, token: &str) -> Endpoint {
        let url = url::Url::parse(url).expect("url");
        Endpoint::new(&url, &[("Authorization".into(), format!("Bearer {token}"))], false).expect("shared")
    }

    #[test]
    fn answers_are_shared_as_their_scope_and_ttl_allow() {
        let alice = endpoint("http://127.0.0.1:1/public", "alice");
        let bob = endpoint("http://127.0.0.1:1/public", "bob");
        offer(&alice, &answer(60_000, "public"));
        assert!(lookup(&bob).is_some(), "a public answer serves every user of the URL");

        let alice = endpoint("http://127.0.0.1:1/private", "alice");
        let bob = endpoint("http://127.0.0.1:1/private", "bob");
        offer(&alice, &answer(60_000, "private"));
        assert!(lookup(&alice).is_some(), "a private answer serves the same credentials");
        assert!(lookup(&bob).is_none(), "and no one else");

        let carol = endpoint("http://127.0.0.1:1/stale", "carol");
        offer(&carol, &answer(0, "public"));
        assert!(lookup(&carol).is_none(), "ttlMs 0: never reused across clients");
        let url = url::Url::parse("http://127.0.0.1:1/oauth").expect("url");
        assert!(Endpoint::new(&url, &[], true).is_none(), "an OAuth server shares nothing");
    }

    #[test]
    fn the_maps_are_bounded() {
        let mut map = Bounded::new();
        for i in 0..MAX_ENDPOINTS + 10 {
            map.insert(format!("k{i}"), ());
        }
        assert_eq!(map.map.len(), MAX_ENDPOINTS);
        assert!(!map.map.contains_key("k0") && map.map.contains_key(&format!("k{}", MAX_ENDPOINTS + 9)));
    }
}

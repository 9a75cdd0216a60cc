//! A client's `tools/call`s as the face makes them: on the async path (`call`), or written on a
//! stdio lane from the caller's thread (`start`, the fast path); which tools must not take the
//! lane (task routing, `takes_lane`); and the follow-up on the async path of a lane answer that
//! needs more than shaping (`follow_up::needs_follow_up`). Each settles as the face reads it
//! (`encode::call_result`), and is registered in the client's `CallTable` while in flight. Its
//! request `_meta` (trace context, the user's `_meta`, the progress token) is built here from what
//! the face knows of the call (`request_meta`).

mod request_meta;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::calls::{Abort, CallTable};
use super::connection::{Connection, RequestOptions};
use super::encode;
use super::error::{ErrorKind, McpError, Result};
use super::follow_up::{self, needs_follow_up};
use super::results::tool_call_params;
use super::tool_cache;
use super::transport::lane::{Bound, LaneOutcome};
use super::{observe, tasks};

pub use request_meta::CallMeta;
use request_meta::{RequestMeta, PROGRESS_TOKEN};

/// The request of a tool call.
pub const METHOD: &str = "tools/call";

/// A settled call as the face reads it: the result's JSON text, or the error's.
pub type Settlement = std::result::Result<String, String>;

/// What a call on the async path was asked with besides its tool and arguments.
#[derive(Default)]
pub struct CallOptions {
    /// What the request `_meta` is built from (the progress token among it).
    pub meta: CallMeta,
    pub timeout_ms: Option<u64>,
    /// The face's id of the call, for `CallTable::cancel`.
    pub call_id: Option<u32>,
    /// `maxTotalTimeout` of this call, over the server's.
    pub max_total_timeout_ms: Option<u64>,
}

/// `tools/call` on the async path (a task tool followed to its result), traced when `observed`.
pub async fn call(conn: &Connection, calls: &CallTable, name: String, args: Option<Value>, options: CallOptions, observed: bool) -> Settlement {
    if let Err(e) = offered(conn, &name) {
        return Err(encode::error_json(&e, None));
    }
    let mut params = Map::new();
    params.insert("name".into(), Value::String(name));
    params.insert("arguments".into(), args.filter(Value::is_object).unwrap_or_else(|| json!({})));
    let RequestMeta { meta, progress_token } = options.meta.build();
    let traced = calls
        .run(options.call_id, |abort| {
            let request = RequestOptions {
                timeout_ms: options.timeout_ms,
                meta: meta.map(Value::Object),
                cancel: Some(abort.token),
                cancel_reason: Some(abort.reason),
                progress_token,
                context: options.call_id,
                verbatim: false,
                max_total_timeout_ms: options.max_total_timeout_ms,
            };
            observe::scope(observed, METHOD, tasks::call_tool(conn, params, request, conn.prefers_tasks()))
        })
        .await;
    encode::call_result(conn.name(), traced)
}

/// Refuses a tool the server's `tools: { include, exclude }` leaves out: it is not callable
/// through this client, whatever name it is asked by.
fn offered(conn: &Connection, tool: &str) -> Result<()> {
    if conn.config().tool_filter.allows(tool) {
        return Ok(());
    }
    let server = conn.name();
    Err(McpError::new(
        ErrorKind::InvalidArguments,
        server,
        format!("Tool {tool} of server {server} is not offered by this client: the server's tools option (include/exclude) leaves it out"),
    ))
}

/// Whether a call of `tool` may be written on the lane (it is no task tool to run as one).
pub fn takes_lane(conn: &Connection, tool: &str) -> bool {
    !tool_cache::runs_as_task(conn, tool, conn.prefers_tasks())
}

/// A direct call: what it was asked with, kept for its follow-up on the async path.
pub struct DirectCall {
    pub server: String,
    pub name: String,
    pub args_json: String,
    /// What the request `_meta` is built from.
    pub meta: CallMeta,
    /// Whether its result carries its trace (`observe_operations` was asked before it started).
    pub observed: bool,
    /// The face's id of the call (`CallTable`).
    pub id: u32,
}

/// The follow-up of a direct call, to be run on the runtime.
pub type FollowUp = Pin<Box<dyn Future<Output = Settlement> + Send>>;

/// How a direct call settled.
pub enum Settled {
    /// Final: complete the call with this.
    Done(Settlement),
    /// Its answer was handed to the async path: complete the call with this future's output.
    FollowUp(FollowUp),
}

/// Writes `call` on `conn`'s ready lane from this thread; `settled` runs once, on whichever
/// thread settles it. Ok(false), having sent nothing, when the server has no ready lane (not
/// connected yet, remote, or closed) or the tool runs as a task: use `call`.
pub fn start(conn: &Arc<Connection>, calls: &Arc<CallTable>, mut call: DirectCall, settled: impl FnOnce(Settled) + Send + 'static) -> Result<bool> {
    offered(conn, &call.name)?;
    let Some(lane) = conn.ready_lane() else {
        return Ok(false);
    };
    if !takes_lane(conn, &call.name) {
        return Ok(false);
    }
    let built = std::mem::take(&mut call.meta).build();
    let meta_json = built.text();
    // Progress for it moves its deadline on, up to its maxTotalTimeout (`ServerConfig::progress_bound`).
    let timeout_ms = conn.request_timeout_ms();
    let progress = built.progress_token.and_then(|token| Some((token.to_string(), conn.config().progress_bound(timeout_ms, true, None)?)));
    let call = Arc::new(Written { call, meta_json });
    let (params, meta) = tool_call_params(&call.name, &call.args_json, call.meta_json.as_deref()).map_err(|e| {
        McpError::new(ErrorKind::InvalidArguments, &call.server, format!("Invalid arguments for tool {} on server {}: {e}", call.name, call.server))
    })?;
    let call_id = call.id;
    let lane_id = lane.reserve_id();
    calls.start_direct(call_id, lane.clone(), lane_id);
    let (answered, table, follow_conn) = (call.clone(), calls.clone(), conn.clone());
    let done = Box::new(move |outcome: LaneOutcome| {
        if needs_follow_up(&outcome) {
            let abort = table.hand_over(call_id);
            follow_up::hand_over(&follow_conn, call_id, outcome);
            return settled(Settled::FollowUp(Box::pin(finish(follow_conn, answered, abort, table))));
        }
        table.settle_direct(call_id);
        settled(Settled::Done(encode::lane_call_result(&answered.server, lane_id, outcome, answered.observed)));
    });
    match lane.send_bounded(lane_id, METHOD, &params, meta, Bound { timeout_ms, progress }, done) {
        Ok(()) => Ok(true),
        Err(_) => {
            calls.settle_direct(call_id);
            Ok(false)
        }
    }
}

/// A direct call as written: its request `_meta` built, as JSON text.
struct Written {
    call: DirectCall,
    meta_json: Option<String>,
}

impl std::ops::Deref for Written {
    type Target = DirectCall;
    fn deref(&self) -> &DirectCall {
        &self.call
    }
}

/// Finishes a direct call whose first answer was handed over (`follow_up::hand_over`) on the
/// async path `call` takes, without sending it again.
async fn finish(conn: Arc<Connection>, call: Arc<Written>, abort: Abort, calls: Arc<CallTable>) -> Settlement {
    let meta: Option<Value> = call.meta_json.as_deref().and_then(|m| serde_json::from_str(m).ok());
    let mut params = Map::new();
    params.insert("name".into(), Value::String(call.name.clone()));
    params.insert("arguments".into(), serde_json::from_str(&call.args_json).unwrap_or_else(|_| json!({})));
    let options = RequestOptions {
        timeout_ms: None,
        progress_token: meta.as_ref().and_then(|m| m.get(PROGRESS_TOKEN)).cloned(),
        meta,
        cancel: Some(abort.token),
        cancel_reason: Some(abort.reason),
        context: Some(call.id),
        verbatim: false,
        max_total_timeout_ms: None,
    };
    let traced = observe::scope(call.observed, METHOD, tasks::call_tool(&conn, params, options, false)).await;
    // Not taken if the async path ended before sending (e.g. the tool list could not be read).
    let _ = follow_up::take_handed_over(&conn, call.id);
    calls.settle(call.id);
    encode::call_result(&call.server, traced)
}

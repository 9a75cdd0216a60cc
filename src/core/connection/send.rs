//! The one request path's sending half: a request on the live session, through rmcp's peer or,
//! for a pipe (stdio) session, its lane; bounded by the request's timeout, ended by its cancel.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientNotification, ClientRequest, CustomRequest, GetExtensions, RequestMetaObject};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde_json::{json, Value};
use tokio::time::Instant;

use super::errors::{cancel_reason, lane_error, service_error, total_timeout, RequestFailure};
use super::{Connection, Live, RequestOptions};
use crate::core::error::{ErrorKind, McpError, Result};
use crate::core::observe;
use crate::core::transport::envelope::LOG_LEVEL_KEY;
use crate::core::transport::lane::{Bound, Lane, LaneError, CLOSED_UNDER_REQUEST};
use crate::core::transport::observed::WantsProgress;
use crate::core::transport::posted::Posted;
use crate::core::transport::raw_answer::RawAnswer;
use crate::core::transport::reachability::SendDeadline;
use crate::core::transport::streamable::FetchContext;

impl Connection {
    /// Sends again a request that provably never reached the server (`first` says why it was not
    /// sent), within what is left of its own timeout (`deadline`): the session it found unusable
    /// is replaced once for every request that found it so (they share the next connect, which
    /// waits for a restarting server), and the request goes out once on the new session. It lets
    /// go of the old session before it waits.
    pub(super) async fn send_unsent_again(
        &self,
        dead: Arc<Live>,
        deadline: Instant,
        method: &str,
        params: Value,
        options: &RequestOptions,
        first: McpError,
    ) -> Result<String> {
        let name = self.name();
        self.shared.diagnostic("info", format!("{method} was not sent ({}); sending it on a new session", first.message));
        observe::note_event("mcp.client.retry", || observe::reason(first.message.clone()));
        let since = Instant::now();
        // A session whose transport ended is closed now (bounded, and cut short at the deadline:
        // dropping it ends it too). One still open (its server refused a POST, or answered that it
        // does not know the session) may carry other requests whose answers are on their way: it
        // is only retired, and ends when the last of them lets go of it.
        if dead.retire() && dead.transport_gone() {
            let _ = tokio::time::timeout_at(deadline, self.close_live(&dead)).await;
        }
        drop(dead);
        let live = match tokio::time::timeout_at(deadline, self.ensure_connected()).await {
            Ok(Ok(live)) => live,
            // The new session could not be opened: the request still never left.
            Ok(Err(e)) if matches!(e.kind, ErrorKind::ConnectFailed | ErrorKind::Timeout) => {
                return Err(McpError { message: format!("{method} failed on server {name}: not sent: {}", e.message), during_connect: false, ..e });
            }
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                let ms = since.elapsed().as_millis();
                return Err(McpError::new(
                    ErrorKind::ConnectFailed,
                    name,
                    format!("{method} failed on server {name}: not sent: the server was unreachable for {ms} ms ({})", first.message),
                ));
            }
        };
        let left = deadline.saturating_duration_since(Instant::now()).as_millis() as u64;
        let options = RequestOptions { timeout_ms: Some(left.max(1)), ..options.clone() };
        self.send_on(&live, method, params, &options).await.map_err(RequestFailure::into_error)
    }

    /// Sends one request on `live`.
    pub(super) async fn send_on(
        &self,
        live: &Arc<Live>,
        method: &str,
        params: Value,
        options: &RequestOptions,
    ) -> std::result::Result<String, RequestFailure> {
        let name = self.name();
        let watch = self.watch(&live);
        if let Some(lane) = live.lane.clone() {
            let answer = self.send_on_lane(&lane, method, params, options).await;
            if answer.is_ok() {
                live.note_answer();
            }
            return answer;
        }
        let mut request: ClientRequest = if options.verbatim {
            ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)))
        } else {
            serde_json::from_value(json!({ "method": method, "params": params }))
                .map_err(|e| RequestFailure::Failed(McpError::new(ErrorKind::InvalidState, name, format!("Invalid {method} request: {e}"))))?
        };
        if let Some(id) = options.context {
            request.extensions_mut().insert(FetchContext(id));
        }
        // Its result comes back as the text it came in (transport::raw_answer), except a 2026-07-28
        // session's tool list: rmcp's worker reads that one (the tools' header parameters).
        let raw = (!(live.is_modern() && method == "tools/list")).then(RawAnswer::default);
        if let Some(raw) = &raw {
            request.extensions_mut().insert(raw.clone());
        }
        // Progress is wanted when tracking set a token, or when the caller's own `_meta` carries one.
        let wanted_progress = options.progress_token.clone().or_else(|| options.meta.as_ref().and_then(|m| m.get("progressToken")).cloned());
        if wanted_progress.is_some() {
            request.extensions_mut().insert(WantsProgress);
        }
        let timeout_ms = options.timeout_ms.unwrap_or_else(|| self.request_timeout_ms());
        // A request that cannot reach the server waits for it within this (transport::reachability).
        request.extensions_mut().insert(SendDeadline::after(Duration::from_millis(timeout_ms)));
        // Over legacy SSE the transport says whether the request went out (transport::posted).
        let posted = live.sse.then(Posted::default);
        if let Some(posted) = &posted {
            request.extensions_mut().insert(posted.clone());
        }
        let mut peer_options = PeerRequestOptions::with_timeout(Duration::from_millis(timeout_ms));
        // Progress for it moves its deadline on, up to its maxTotalTimeout (rmcp watches its token).
        let max_total_ms = self.config().progress_bound(timeout_ms, wanted_progress.is_some(), options.max_total_timeout_ms);
        if let Some(max_ms) = max_total_ms {
            peer_options = peer_options.reset_timeout_on_progress().with_max_total_timeout(Duration::from_millis(max_ms));
        }
        let mut meta = options.meta.as_ref().and_then(Value::as_object).cloned().unwrap_or_default();
        if let (true, Some(level)) = (live.is_modern(), self.shared.server_log_level()) {
            // 2026-07-28: a server sends logs for a request only if its `_meta` asks for them.
            meta.entry(LOG_LEVEL_KEY).or_insert_with(|| Value::String(level.into()));
        }
        if !meta.is_empty() {
            if let Ok(meta) = serde_json::from_value::<RequestMetaObject>(Value::Object(meta)) {
                peer_options = peer_options.with_meta(meta);
            }
        }
        let handle = live
            .peer
            .send_request_with_option(request, peer_options)
            .await
            .map_err(|e| RequestFailure::NotSent(service_error(name, method, timeout_ms, e)))?;
        let request_id = handle.id.clone();
        observe::note_sent(method, || request_id.to_string());
        let alias_key = wanted_progress.as_ref().map(|token| {
            let key = serde_json::to_value(&handle.progress_token).unwrap_or(Value::Null).to_string();
            if let Ok(mut aliases) = self.shared.progress_aliases.lock() {
                aliases.insert(key.clone(), token.clone());
            }
            key
        });
        let cancel = options.cancel.clone().unwrap_or_default();
        let outcome = tokio::select! {
            r = handle.await_response() => r.map_err(|e| match (e, max_total_ms) {
                // rmcp ends it at either bound with the same error, naming the bound's length.
                (ServiceError::Timeout { timeout }, Some(max_ms)) if max_ms > timeout_ms && timeout == Duration::from_millis(max_ms) => {
                    RequestFailure::Failed(total_timeout(name, method, max_ms))
                }
                (e, _) => failure_of(posted.as_ref(), name, method, timeout_ms, e),
            }),
            _ = cancel.cancelled() => {
                let reason = cancel_reason(options);
                let note = json!({ "method": "notifications/cancelled", "params": { "requestId": request_id, "reason": reason } });
                if let Ok(note) = serde_json::from_value::<ClientNotification>(note) {
                    let start_ms = observe::now_ms();
                    let sent = live.peer.send_notification(note).await;
                    observe::note_notification("notifications/cancelled", start_ms, sent.err().map(|e| e.to_string()));
                }
                Err(RequestFailure::Failed(McpError::new(ErrorKind::Aborted, name, reason)))
            }
        };
        if let Some(watch) = watch {
            self.watched(&live, watch);
        }
        if let Some(key) = alias_key {
            // Progress precedes the response on the wire and is routed as it arrives (see
            // `transport::observed`), so the alias is no longer needed once the response is in.
            if let Ok(mut aliases) = self.shared.progress_aliases.lock() {
                aliases.remove(&key);
            }
        }
        let result = outcome?;
        live.note_answer();
        if let Some(text) = raw.and_then(|raw| raw.take()) {
            return Ok(text);
        }
        serde_json::to_string(&result)
            .map_err(|e| RequestFailure::Failed(McpError::new(ErrorKind::InvalidResponse, name, format!("{method} failed on server {name}: {e}"))))
    }

    /// `send_on` over a pipe session's lane.
    async fn send_on_lane(
        &self,
        lane: &Lane,
        method: &str,
        mut params: Value,
        options: &RequestOptions,
    ) -> std::result::Result<String, RequestFailure> {
        let name = self.name();
        let timeout_ms = options.timeout_ms.unwrap_or_else(|| self.request_timeout_ms());
        // The caller's `_meta` replaces one in `params`; the lane merges it with the session's envelope.
        let own_meta = params.as_object_mut().and_then(|o| o.remove("_meta"));
        let meta = options.meta.as_ref().filter(|m| m.as_object().is_some_and(|o| !o.is_empty())).or(own_meta.as_ref()).filter(|m| m.is_object());
        let meta_json = meta.map(Value::to_string);
        let token = options.progress_token.clone().or_else(|| meta.and_then(|m| m.get("progressToken")).cloned());
        let progress = token.and_then(|token| {
            let max_ms = self.config().progress_bound(timeout_ms, true, options.max_total_timeout_ms)?;
            Some((token.to_string(), max_ms))
        });
        let (tx, rx) = tokio::sync::oneshot::channel();
        let id = lane.reserve_id();
        observe::note_sent(method, || format!("n{id}"));
        lane.send_bounded(
            id,
            method,
            &params.to_string(),
            meta_json.as_deref(),
            Bound { timeout_ms, progress },
            Box::new(move |outcome| {
                let _ = tx.send(outcome);
            }),
        )
        .map_err(|e| RequestFailure::NotSent(lane_error(name, method, LaneError::Closed { detail: e.0 })))?;
        let cancel = options.cancel.clone().unwrap_or_default();
        let outcome = tokio::select! {
            r = rx => r.unwrap_or_else(|_| Err(LaneError::Closed { detail: CLOSED_UNDER_REQUEST.into() })),
            _ = cancel.cancelled() => {
                let reason = cancel_reason(options);
                let start_ms = observe::now_ms();
                if lane.cancel(id, &reason) {
                    observe::note_notification("notifications/cancelled", start_ms, None);
                }
                Err(LaneError::Cancelled { reason })
            }
        };
        if matches!(outcome, Err(LaneError::Timeout { .. } | LaneError::TotalTimeout { .. })) {
            // The lane told the server when it timed the request out.
            observe::note_notification("notifications/cancelled", observe::now_ms(), None);
        }
        outcome.map_err(|e| RequestFailure::Failed(lane_error(name, method, e)))
    }
}

/// Why a request sent through rmcp failed. On a session whose requests carry a `Posted` cell
/// (legacy SSE), one never posted, or whose POST found no server, did not reach it; one posted
/// may have run.
fn failure_of(posted: Option<&Posted>, name: &str, method: &str, timeout_ms: u64, e: ServiceError) -> RequestFailure {
    let lost = matches!(e, ServiceError::TransportClosed | ServiceError::TransportSend(_));
    match posted {
        Some(posted) if lost && posted.never_reached_server() => RequestFailure::NotSent(service_error(name, method, timeout_ms, e)),
        Some(_) if matches!(e, ServiceError::TransportClosed) => RequestFailure::Failed(McpError::new(
            ErrorKind::TransportClosed,
            name,
            format!("Connection to MCP server {name} closed ({method}): may have run: the connection dropped after the request was sent"),
        )),
        _ => RequestFailure::Failed(service_error(name, method, timeout_ms, e)),
    }
}

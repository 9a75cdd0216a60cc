'use strict';
// Telemetry fan-out of one client (a `Host`): client spans for a request to one server or to
// every server, each server's trace `_meta` (its `traceContext()` first, else its span's), and
// spans for the notifications a call sent. The spans themselves are `lib/telemetry.cjs`'s.
const { fromNative, nativeCall, toPlainError } = require('../errors.cjs');
const { traceMetaOf } = require('../trace-context.cjs');
const telemetry = require('../telemetry.cjs');

/** Each server's trace `_meta` for requests starting now (`undefined` when no server traces). */
function traceMetas(host) {
  let metas;
  for (const [name, def] of Object.entries(host.servers)) {
    const meta = traceMetaOf(def);
    if (meta) (metas ??= {})[name] = meta;
  }
  return metas;
}

/** Client spans for one fan-out request to every server (`undefined` with telemetry off), and the metas. */
function fanOut(host, method) {
  let ops;
  let metas;
  for (const [name, def] of Object.entries(host.servers)) {
    const op = telemetry.startOperation(host.telemetry, def, method, undefined, undefined, host.native);
    if (op) (ops ??= {})[name] = op;
    const meta = traceMetaOf(def) ?? op?.meta;
    if (meta) (metas ??= {})[name] = meta;
  }
  return { ops, metas };
}

/** Ends the spans of a fan-out with each server's outcome. */
function fanOutDone(ops, outcomes, error) {
  if (!ops) return;
  for (const [name, op] of Object.entries(ops)) {
    const o = outcomes?.find((x) => x.server === name);
    if (!o) telemetry.endOperation(op, { error: error ?? new Error('no outcome') });
    else if (o.ok) {
      const version = o.value?.protocolVersion;
      telemetry.endOperation(op, { trace: o.trace, attributes: version ? { 'mcp.protocol.version': version } : undefined });
    } else telemetry.endOperation(op, { trace: o.trace, error: o.error && typeof o.error.code === 'string' ? toPlainError(o.error) : o.error });
  }
}

/** A fan-out request (`request(metas)`) inside its spans. */
async function fannedOut(host, method, request) {
  const { ops, metas } = fanOut(host, method);
  let outcomes;
  try {
    outcomes = await request(metas);
  } catch (e) {
    fanOutDone(ops, undefined, fromNative(e));
    throw e;
  }
  fanOutDone(ops, outcomes);
  return outcomes;
}

/** One request to one server inside a client span (when a tracer or meter is registered). */
async function traced(host, serverName, method, target, attributes, fn) {
  const def = host.servers[serverName];
  const op = telemetry.startOperation(host.telemetry && def !== undefined, def, method, target, attributes, host.native);
  try {
    let result = await fn(traceMetaOf(def) ?? op?.meta);
    let trace;
    // A traced native result comes wrapped with its trace (src/node/traced.rs).
    if (result?.mastraMcpTrace !== undefined) ({ result, mastraMcpTrace: trace } = result);
    telemetry.endOperation(op, { trace });
    return result;
  } catch (e) {
    telemetry.endOperation(op, { error: fromNative(e), raw: e });
    throw e;
  }
}

/** A call that may send notifications: they become spans from the trace it returns. */
async function notifying(host, server, call) {
  const scope = telemetry.beginNotifications(host.telemetry, host.native);
  telemetry.notificationsSent(scope, host.servers[server], await nativeCall(call()));
}

module.exports = { traceMetas, fannedOut, traced, notifying };

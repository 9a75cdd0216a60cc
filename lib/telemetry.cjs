'use strict';
// OpenTelemetry client spans and metrics per the MCP semantic conventions (docs/gen-ai/mcp.md of
// semantic-conventions-genai), through the optional peer `@opentelemetry/api`. The module is
// required only once the app has registered a tracer or meter provider (the API keeps its globals
// under one well-known symbol, read here without loading anything), so with no provider this
// file costs one property read per operation. No protocol logic: the facts come from the caller
// and from the trace the core records per operation once asked (`observeOperations`; see
// src/core/observe.rs): the request id it sent, the session, the connect and notifications it
// sent on the way (child spans), what the operation suffered (span events).

const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');
const OTEL_API = '@opentelemetry/api';
const SCOPE = 'mastra-mcp-native';
const DURATION_BOUNDARIES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

let api; // the loaded module, `null` when it cannot be resolved, `undefined` before the first try
let instruments; // { meter, operation, session } of the current global meter provider
const observed = new WeakSet(); // native clients asked to hand over their operations' traces

function registered() {
  const g = globalThis[GLOBAL_KEY];
  return g && (g.trace || g.metrics) ? g : undefined;
}

function loadApi() {
  if (api === undefined) {
    try {
      // `module.require`, not `require`: a bundler (`mastra build`) must not try to resolve an
      // optional peer the app may not have; bundled, this finds nothing and telemetry stays off.
      api = module.require(OTEL_API);
    } catch {
      api = null;
    }
  }
  return api;
}

/** Attributes of the server's transport (from its definition; the core is not asked). */
function transportAttributes(def) {
  const url = def?.url;
  if (!url) return { 'network.transport': 'pipe' };
  const attrs = { 'network.transport': 'tcp', 'network.protocol.name': 'http' };
  try {
    const u = url instanceof URL ? url : new URL(String(url));
    attrs['server.address'] = u.hostname.replace(/^\[|\]$/g, '');
    attrs['server.port'] = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    // an invalid URL fails the request itself; the span only lacks the address
  }
  return attrs;
}

function histograms(otel) {
  const meter = otel.metrics.getMeter(SCOPE);
  if (instruments?.meter !== meter) {
    const histogram = (name, description) =>
      meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: DURATION_BOUNDARIES } });
    instruments = {
      meter,
      operation: histogram(
        'mcp.client.operation.duration',
        'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
      ),
      session: histogram('mcp.client.session.duration', 'The duration of the MCP session as observed on the MCP client.'),
    };
  }
  return instruments;
}

/** Attributes the conventions allow on `mcp.client.operation.duration`. */
const METRIC_KEYS = [
  'mcp.method.name',
  'error.type',
  'gen_ai.operation.name',
  'gen_ai.prompt.name',
  'gen_ai.tool.name',
  'mcp.protocol.version',
  'network.protocol.name',
  'network.protocol.version',
  'network.transport',
  'rpc.response.status_code',
  'server.address',
  'server.port',
];

/** Attributes the conventions allow on `mcp.client.session.duration`. */
const SESSION_METRIC_KEYS = [
  'error.type',
  'mcp.protocol.version',
  'network.protocol.name',
  'network.protocol.version',
  'network.transport',
  'server.address',
  'server.port',
];

/** What an operation's trace (from the core, see `src/core/observe.rs`) says as span attributes. */
function traceAttributes(trace, into) {
  if (trace.requestId !== undefined) into['jsonrpc.request.id'] = trace.requestId;
  if (trace.sessionId !== undefined) into['mcp.session.id'] = trace.sessionId;
  if (trace.networkProtocolVersion !== undefined) into['network.protocol.version'] = trace.networkProtocolVersion;
  if (trace.protocolVersion !== undefined) into['mcp.protocol.version'] ??= trace.protocolVersion;
  return into;
}

/**
 * Starts one client operation, or returns `undefined` (telemetry off, no provider registered).
 * `method` is the MCP method, `target` the low-cardinality name for the span (tool or prompt).
 * The returned operation's `meta` is the span's trace `_meta` (traceparent, tracestate).
 * `native`, the client's `NativeClient`, is asked once to hand over its operations' traces.
 */
function startOperation(enabled, def, method, target, attributes, native) {
  if (!enabled) return undefined;
  const g = registered();
  if (!g) return undefined;
  const otel = loadApi();
  if (!otel) return undefined;
  if (native && !observed.has(native)) {
    observed.add(native);
    native.observeOperations();
  }
  const attrs = { 'mcp.method.name': method, ...transportAttributes(def), ...attributes };
  let span;
  let meta;
  if (g.trace) {
    const tracer = otel.trace.getTracer(SCOPE);
    span = tracer.startSpan(target ? `${method} ${target}` : method, { kind: otel.SpanKind.CLIENT, attributes: attrs }, otel.context.active());
    const sc = span.spanContext();
    if (otel.trace.isSpanContextValid(sc)) {
      const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, '0');
      meta = { traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}` };
      const state = sc.traceState?.serialize?.();
      if (state) meta.tracestate = state;
    }
  }
  return { otel, span, meta, attrs, started: performance.now(), metrics: !!g.metrics };
}

/** Sets the error outcome on `attrs` (and the span): `error.type`, `rpc.response.status_code`. */
function failed(otel, span, attrs, error) {
  const code = jsonRpcCode(error);
  attrs['error.type'] = code !== undefined ? String(code) : errorType(error);
  if (code !== undefined) attrs['rpc.response.status_code'] = String(code);
  if (span) {
    span.recordException?.(error instanceof Error ? error : String(error?.message ?? error));
    span.setStatus({ code: otel.SpanStatusCode.ERROR, message: String(error?.message ?? error) });
  }
}

function pick(attrs, keys) {
  const out = {};
  for (const k of keys) if (attrs[k] !== undefined) out[k] = attrs[k];
  return out;
}

/**
 * Ends an operation: `error` is the thrown error, `toolError` an `isError` result (`rpcCode`: the
 * JSON-RPC code of a protocol error the server answered as one), `attributes`
 * extra facts; `trace` what the core recorded (request id, session, connect steps, events), or
 * `raw` the native error that carries it.
 */
function endOperation(op, { error, toolError, rpcCode, attributes, trace, raw } = {}) {
  if (!op) return;
  const { otel, span, attrs } = op;
  const final = { ...attrs, ...attributes };
  trace ??= raw !== undefined ? traceOfError(raw) : undefined;
  if (trace) traceAttributes(trace, final);
  if (error !== undefined) {
    failed(otel, span, final, error);
  } else if (toolError && Number.isInteger(rpcCode)) {
    // A protocol error the server answered as a tool error (the core read its JSON-RPC code).
    final['error.type'] = String(rpcCode);
    final['rpc.response.status_code'] = String(rpcCode);
    span?.setStatus({ code: otel.SpanStatusCode.ERROR, message: typeof toolError === 'string' ? toolError : String(rpcCode) });
  } else if (toolError) {
    final['error.type'] = 'tool_error';
    span?.setStatus({ code: otel.SpanStatusCode.ERROR, message: typeof toolError === 'string' ? toolError : 'tool_error' });
  }
  if (span) {
    span.setAttributes(final);
    if (trace) {
      for (const e of trace.events ?? []) span.addEvent(e.name, e.attributes, e.atMs);
      for (const step of trace.steps ?? []) recordStep(op, step, final, trace);
    }
    span.end();
  } else if (trace?.steps && op.metrics) {
    for (const step of trace.steps) recordStep(op, step, final, trace);
  }
  if (op.metrics) histograms(otel).operation.record((performance.now() - op.started) / 1000, pick(final, METRIC_KEYS));
}

/**
 * A request or notification the core sent on the operation's way (its connect, a
 * `notifications/cancelled`): a client span of its own under the operation's, and a data point.
 */
function recordStep(op, step, opAttrs, trace) {
  const { otel, span } = op;
  // Under the operation's span, or (a notification on its own) under the caller's context.
  const parent = span ? otel.trace.setSpan(otel.context.active(), span) : op.context;
  const attrs = { ...pick(opAttrs, ['network.transport', 'network.protocol.name', 'network.protocol.version', 'server.address', 'server.port']) };
  attrs['mcp.method.name'] = step.method;
  const version = step.protocolVersion ?? opAttrs['mcp.protocol.version'];
  if (version) attrs['mcp.protocol.version'] = version;
  if (step.sessionId ?? trace.sessionId) attrs['mcp.session.id'] = step.sessionId ?? trace.sessionId;
  let child;
  if (parent) {
    child = otel.trace.getTracer(SCOPE).startSpan(step.method, { kind: otel.SpanKind.CLIENT, startTime: step.startMs, attributes: attrs }, parent);
  }
  if (step.error) failed(otel, child, attrs, plainError(step.error));
  if (child) {
    child.setAttributes(attrs);
    child.end(step.endMs);
  }
  if (op.metrics) histograms(otel).operation.record(Math.max(0, step.endMs - step.startMs) / 1000, pick(attrs, METRIC_KEYS));
}

/**
 * Notifications a client call sends (`notifications/roots/list_changed`), recorded from the core's
 * trace once it is back: `begin` before the call (the caller's context; the native client asked
 * for traces), `sent` with the trace. Each notification the core did send is a client span.
 */
function beginNotifications(enabled, native) {
  if (!enabled) return undefined;
  const g = registered();
  if (!g) return undefined;
  const otel = loadApi();
  if (!otel) return undefined;
  if (!observed.has(native)) {
    observed.add(native);
    native.observeOperations();
  }
  return { otel, context: g.trace ? otel.context.active() : undefined, metrics: !!g.metrics };
}

function notificationsSent(scope, def, trace) {
  if (!scope || !trace?.steps) return;
  const attrs = traceAttributes(trace, transportAttributes(def));
  for (const step of trace.steps) recordStep(scope, step, attrs, trace);
}

/**
 * Records `mcp.client.session.duration` for a session that ended (the core's `sessionEnded`
 * event: `{ durationS, protocolVersion, error, httpVersion }`); nothing without a meter provider.
 */
function endSession(enabled, def, ended) {
  if (!enabled) return;
  const g = registered();
  if (!g?.metrics) return;
  const otel = loadApi();
  if (!otel) return;
  const attrs = transportAttributes(def);
  if (ended.protocolVersion) attrs['mcp.protocol.version'] = ended.protocolVersion;
  if (ended.httpVersion && attrs['network.protocol.name']) attrs['network.protocol.version'] = ended.httpVersion;
  if (ended.error) attrs['error.type'] = ended.error;
  histograms(otel).session.record(ended.durationS, pick(attrs, SESSION_METRIC_KEYS));
}

/** The trace a native error carries (JSON message with a `trace` member), if any. */
function traceOfError(raw) {
  const text = typeof raw?.message === 'string' ? raw.message : '';
  if (!text.startsWith('{"') || !text.includes('"trace"')) return undefined;
  try {
    return JSON.parse(text).trace;
  } catch {
    return undefined;
  }
}

/** A core error's JSON as the error `error.type` reads. */
function plainError(data) {
  const err = new Error(data.message ?? 'failed');
  err.code = data.code === 'RPC_ERROR' ? data.rpcCode : data.code;
  return err;
}

/** The JSON-RPC error code of a failed request (`errors.cjs` puts a server's code in `code`). */
function jsonRpcCode(error) {
  return Number.isInteger(error?.code) ? error.code : undefined;
}

/** The core's error code (`REQUEST_TIMEOUT`, …), else the error's class, else `_OTHER`. */
function errorType(error) {
  const code = error?.nativeCode ?? error?.code;
  if (typeof code === 'string' && code) return code;
  return error?.name && error.name !== 'Error' ? error.name : '_OTHER';
}

/** A native result without the trace it may come wrapped with (`src/node/traced.rs`). */
function untraced(result) {
  return result?.mastraMcpTrace !== undefined ? result.result : result;
}

module.exports = { startOperation, endOperation, endSession, untraced, beginNotifications, notificationsSent };

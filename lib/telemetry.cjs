'use strict';
// OpenTelemetry client spans and metrics per the MCP semantic conventions (docs/gen-ai/mcp.md of
// semantic-conventions-genai), through the optional peer `@opentelemetry/api`. The module is
// required only once the app has registered a tracer or meter provider (the API keeps its globals
// under one well-known symbol, read here without loading anything), so with no provider this
// file costs one property read per operation. No protocol logic: the facts come from the caller.

const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');
const OTEL_API = '@opentelemetry/api';
const SCOPE = 'mastra-mcp-native';
const DURATION_BOUNDARIES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

let api; // the loaded module, `null` when it cannot be resolved, `undefined` before the first try
let instruments; // { meter, operation } of the current global meter provider

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

function operationHistogram(otel) {
  const meter = otel.metrics.getMeter(SCOPE);
  if (instruments?.meter !== meter) {
    instruments = {
      meter,
      operation: meter.createHistogram('mcp.client.operation.duration', {
        description: 'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BOUNDARIES },
      }),
    };
  }
  return instruments.operation;
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

/**
 * Starts one client operation, or returns `undefined` (telemetry off, no provider registered).
 * `method` is the MCP method, `target` the low-cardinality name for the span (tool or prompt).
 * The returned operation's `meta` is the span's trace `_meta` (traceparent, tracestate).
 */
function startOperation(enabled, def, method, target, attributes) {
  if (!enabled) return undefined;
  const g = registered();
  if (!g) return undefined;
  const otel = loadApi();
  if (!otel) return undefined;
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

/** Ends an operation: `error` is the thrown error, `result` extra facts (`isError`, attributes). */
function endOperation(op, { error, toolError, attributes } = {}) {
  if (!op) return;
  const { otel, span, attrs } = op;
  const final = { ...attrs, ...attributes };
  if (error !== undefined) {
    const code = jsonRpcCode(error);
    final['error.type'] = code !== undefined ? String(code) : errorType(error);
    if (code !== undefined) final['rpc.response.status_code'] = String(code);
  } else if (toolError) {
    final['error.type'] = 'tool_error';
  }
  if (span) {
    span.setAttributes(final);
    if (error !== undefined) {
      span.recordException?.(error instanceof Error ? error : String(error?.message ?? error));
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: String(error?.message ?? error) });
    } else if (toolError) {
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: typeof toolError === 'string' ? toolError : 'tool_error' });
    }
    span.end();
  }
  if (op.metrics) {
    const metricAttrs = {};
    for (const k of METRIC_KEYS) if (final[k] !== undefined) metricAttrs[k] = final[k];
    operationHistogram(otel).record((performance.now() - op.started) / 1000, metricAttrs);
  }
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

module.exports = { startOperation, endOperation };

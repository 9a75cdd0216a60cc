'use strict';
// W3C trace context in MCP request `_meta` (SEP-414), as `@mastra/mcp` 2.0 exports it. Pure
// key mapping: the values pass through untouched (no spans, no format checks).

/** The protocol revision the client speaks natively (`@mastra/mcp` 2.0's constant). */
const MCP_CLIENT_PROTOCOL_VERSION = '2026-07-28';

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';
const BAGGAGE = 'baggage';

/** The trace fields of a request's `_meta`; `undefined` without a string `traceparent`. */
function traceContextFromMeta(meta) {
  const traceparent = meta?.[TRACEPARENT];
  if (typeof traceparent !== 'string') return undefined;
  const tracestate = meta?.[TRACESTATE];
  const baggage = meta?.[BAGGAGE];
  return {
    traceparent,
    ...(typeof tracestate === 'string' ? { tracestate } : {}),
    ...(typeof baggage === 'string' ? { baggage } : {}),
  };
}

/** The `_meta` keys of a trace context. */
function traceContextToMeta(traceContext) {
  return {
    [TRACEPARENT]: traceContext.traceparent,
    ...(traceContext.tracestate !== undefined ? { [TRACESTATE]: traceContext.tracestate } : {}),
    ...(traceContext.baggage !== undefined ? { [BAGGAGE]: traceContext.baggage } : {}),
  };
}

/**
 * The trace `_meta` of one request to a server: its definition's `traceContext()`, called when
 * the request starts (so it reads the caller's request-local carrier), or `undefined`.
 */
function traceMetaOf(def) {
  const provider = def?.traceContext;
  if (typeof provider !== 'function') return undefined;
  const ctx = provider();
  return ctx && typeof ctx.traceparent === 'string' ? traceContextToMeta(ctx) : undefined;
}

module.exports = { MCP_CLIENT_PROTOCOL_VERSION, traceContextFromMeta, traceContextToMeta, traceMetaOf };

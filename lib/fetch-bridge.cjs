'use strict';
// Lets the Rust core send HTTP through a user's `fetch` (MastraFetchLike): one call per request,
// the response body handed over chunk by chunk. Host policy, redirects and protocol stay in Rust.

// Error codes (undici's fetch puts them in `err.cause`) that mean no connection was opened: the
// request certainly never reached the server. The core then treats it as it treats its own
// refused connections (a call waits for a restarting server within its timeout). A reset or a
// dropped connection is not among them: such a request may have run.
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The code saying a failed fetch never connected, if it says so: on the error or its `cause`
 * chain; an AggregateError (one attempt per address) only when every attempt never connected. */
function neverConnected(err, depth = 0) {
  if (err == null || typeof err !== 'object' || depth > 4) return undefined;
  if (Array.isArray(err.errors) && err.errors.length > 0) {
    const codes = err.errors.map((e) => neverConnected(e, depth + 1));
    return codes.every(Boolean) ? codes[0] : undefined;
  }
  if (typeof err.code === 'string') return NEVER_CONNECTED.has(err.code) ? err.code : undefined;
  return neverConnected(err.cause, depth + 1);
}

class FetchBridge {
  #servers;
  #contexts;
  #bodies = new Map();
  #nextBodyId = 1;

  /** @param servers server definitions; @param contexts Map<callId, RequestContext> */
  constructor(servers, contexts) {
    this.#servers = servers;
    this.#contexts = contexts;
  }

  #fetchFor(server, method, headers) {
    const def = this.#servers[server] ?? {};
    const wantsStream =
      method === 'GET' && headers.some(([k, v]) => k.toLowerCase() === 'accept' && v.includes('text/event-stream'));
    if (wantsStream && typeof def.eventSourceInit?.fetch === 'function') return def.eventSourceInit.fetch;
    return typeof def.fetch === 'function' ? def.fetch : globalThis.fetch;
  }

  async fetch({ server, url, method, headers, body, context, redirect }) {
    const userFetch = this.#fetchFor(server, method, headers);
    const dispatcher = this.#servers[server]?.requestInit?.dispatcher;
    const init = {
      method,
      headers: new Headers(headers),
      ...(body ? { body } : {}),
      ...(redirect === 'manual' ? { redirect } : {}),
      ...(dispatcher != null ? { dispatcher } : {}),
    };
    const requestContext = context != null ? (this.#contexts.get(context) ?? null) : null;
    let response;
    try {
      response = await userFetch(url, init, requestContext);
    } catch (e) {
      const code = neverConnected(e);
      // Not a response: `unreachable` tells the core the request never left (typed, not by text).
      if (code) return { status: 0, headers: [], url: '', unreachable: `${e?.message ?? e} (${code})` };
      throw new Error(`the fetch for MCP server ${server} failed: ${e?.message ?? e}`);
    }
    if (!response || typeof response.status !== 'number' || !response.headers) {
      throw new Error(`the fetch for MCP server ${server} did not return a Response`);
    }
    let bodyId;
    if (response.body) {
      bodyId = this.#nextBodyId++;
      this.#bodies.set(bodyId, response.body.getReader());
    }
    return { status: response.status, headers: [...response.headers], url: response.url ?? '', bodyId };
  }

  async read(bodyId) {
    const reader = this.#bodies.get(bodyId);
    if (!reader) return null;
    const { done, value } = await reader.read();
    if (done) {
      this.#bodies.delete(bodyId);
      return null;
    }
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }

  cancel(bodyId) {
    const reader = this.#bodies.get(bodyId);
    this.#bodies.delete(bodyId);
    reader?.cancel().catch(() => {});
  }
}

module.exports = { FetchBridge, neverConnected };

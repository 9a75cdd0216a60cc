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
  /** Request id -> the body reader of its response. */
  #bodies = new Map();
  /** Request id -> the AbortController of a fetch whose response has not come yet. */
  #pending = new Map();
  /** Ids the core let go of before their fetch started here (its calls may arrive out of order). */
  #abandoned = new Set();

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

  async fetch({ id, server, url, method, headers, body, context, redirect }) {
    if (this.#abandoned.delete(id)) return { status: 0, headers: [], url: '', unreachable: 'the request was abandoned before it was sent' };
    const userFetch = this.#fetchFor(server, method, headers);
    const dispatcher = this.#servers[server]?.requestInit?.dispatcher;
    const init = {
      method,
      headers: new Headers(headers),
      ...(body ? { body } : {}),
      ...(redirect === 'manual' ? { redirect } : {}),
      ...(dispatcher != null ? { dispatcher } : {}),
    };
    // The core aborts a request it let go of before its response came (`cancel(id)`).
    const controller = new AbortController();
    init.signal = controller.signal;
    this.#pending.set(id, controller);
    const requestContext = context != null ? (this.#contexts.get(context) ?? null) : null;
    let response;
    try {
      response = await userFetch(url, init, requestContext);
    } catch (e) {
      if (controller.signal.aborted) throw new Error(`the fetch for MCP server ${server} was aborted`);
      const code = neverConnected(e);
      // Not a response: `unreachable` tells the core the request never left (typed, not by text).
      if (code) return { status: 0, headers: [], url: '', unreachable: `${e?.message ?? e} (${code})` };
      // Nothing in its cause says no connection was opened: the request may have reached the server.
      const cause = e?.cause?.code ?? e?.cause?.message;
      throw new Error(`the fetch for MCP server ${server} failed, and may have run: ${e?.message ?? e}${cause ? ` (${cause})` : ''}`);
    } finally {
      this.#pending.delete(id);
    }
    if (controller.signal.aborted) {
      // Nobody reads it any more: a fetch that ignored its signal is closed here.
      response?.body?.cancel?.().catch(() => {});
      throw new Error(`the fetch for MCP server ${server} was aborted`);
    }
    if (!response || typeof response.status !== 'number' || !response.headers) {
      throw new Error(`the fetch for MCP server ${server} did not return a Response`);
    }
    let bodyId;
    if (response.body) {
      bodyId = id;
      this.#bodies.set(id, response.body.getReader());
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

  /** The core let go of request `id`: its fetch is aborted, or its body cancelled. */
  cancel(id) {
    const controller = this.#pending.get(id);
    if (controller) return void controller.abort();
    const reader = this.#bodies.get(id);
    if (!reader) {
      // Not started yet (the cancel overtook its fetch); at most one id per such race.
      this.#abandoned.add(id);
      return;
    }
    this.#bodies.delete(id);
    reader.cancel().catch(() => {});
  }
}

module.exports = { FetchBridge, neverConnected };

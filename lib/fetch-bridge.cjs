'use strict';
// Lets the Rust core send HTTP through a user's `fetch` (MastraFetchLike): one call per request,
// the response body handed over chunk by chunk. Host policy, redirects and protocol stay in Rust.

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

module.exports = { FetchBridge };

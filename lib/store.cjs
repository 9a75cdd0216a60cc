'use strict';
// `createMCPStore(url, { secret })`: what must outlive a process (OAuth tokens, the client's
// registration) in a real database shared by every process of an app. The database, the
// encryption and the cross-process locks are the core's (src/core/store); this file only opens
// it lazily and hands out views: `store.oauth(scope)` is an `OAuthStorage` for
// `MCPOAuthClientProvider({ storage })`, with a `lock` the provider uses so that one process at
// a time refreshes a credential.
const native = require('./native.cjs');

/** An error of the store, with its stable `code` (`MCP_STORE_WRONG_SECRET`, ...). */
class MCPStoreError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'MCPStoreError';
    this.code = code;
  }
}

function fromStore(err) {
  const m = /^\[(MCP_STORE_[A-Z_]+)\] ([\s\S]*)$/.exec(err?.message ?? '');
  return m ? new MCPStoreError(m[2], m[1]) : err;
}

async function storeCall(promise) {
  try {
    return await promise;
  } catch (e) {
    throw fromStore(e);
  }
}

const NETWORK = /^postgres(ql)?:\/\//i;

/** The opened native store of an `MCPStore` (for the client that keeps its servers' state there). */
const NATIVE = Symbol('mastra-mcp-native.store');

function checkUrl(url) {
  if (typeof url !== 'string' || url.length === 0) throw new TypeError('createMCPStore(url) needs a URL: file:PATH or postgres://…');
  if (!/^file:/i.test(url) && !NETWORK.test(url)) {
    throw new MCPStoreError(`MCP store ${url.replace(/\/\/[^@/]*@/, '//…@')}: use file:PATH (SQLite) or postgres://… (PostgreSQL)`, 'MCP_STORE_INVALID_URL');
  }
}

class MCPStore {
  #url;
  #options;
  #opening;
  #scope;

  /** @internal use `createMCPStore` */
  constructor(url, options, opening, scope = '') {
    this.#url = url;
    this.#options = options;
    this.#opening = opening;
    this.#scope = scope;
  }

  /** The native store, opened (created, migrated) on first use. */
  #native() {
    // A failed open is tried again by the next use (the database may come back).
    this.#opening.promise ??= storeCall(native.NativeStore.open(this.#url, this.#options)).catch((e) => {
      this.#opening.promise = undefined;
      throw e;
    });
    return this.#opening.promise;
  }

  /** @internal the native store, opened */
  [NATIVE]() {
    return this.#native();
  }

  /** The scope (user or tenant id) this view reads and writes; `''` for the app's own. */
  get scope() {
    return this.#scope;
  }

  /** Opens the store now: rejects with the store's error (wrong secret, unreachable, newer schema). */
  async open() {
    await this.#native();
    return this;
  }

  /** The same store seen from another scope: its rows never meet this one's. */
  forScope(scope) {
    if (typeof scope !== 'string') throw new TypeError('forScope(scope) needs a string (a user or tenant id)');
    return new MCPStore(this.#url, this.#options, this.#opening, scope);
  }

  async get(key) {
    return (await storeCall((await this.#native()).get(this.#scope, String(key)))) ?? undefined;
  }

  async set(key, value) {
    await storeCall((await this.#native()).set(this.#scope, String(key), String(value)));
  }

  async delete(key) {
    await storeCall((await this.#native()).delete(this.#scope, String(key)));
  }

  /**
   * Takes the lock on `key` across every process of the store (waiting at most `timeoutMs`):
   * resolves to the function that releases it.
   */
  async lock(key, { timeoutMs } = {}) {
    const store = await this.#native();
    const id = await storeCall(store.lock(this.#scope, String(key), timeoutMs));
    let released;
    return () => (released ??= storeCall(store.unlock(id)));
  }

  /**
   * An `OAuthStorage` (`get`/`set`/`delete`, and `lock`) for one server's credentials:
   * `oauth(scope)` or `oauth({ scope, server })`. Give each server its own (`server`, any stable
   * name): the provider's keys are the same for every server.
   */
  oauth(options) {
    const { scope, server } = typeof options === 'string' || options === undefined ? { scope: options } : options;
    const view = scope === undefined ? this : this.forScope(String(scope));
    return new StoreOAuthStorage(view, server === undefined ? 'oauth:' : `oauth:${server}:`);
  }

  toString() {
    return `MCPStore(${this.#url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')})`;
  }
}

/** One server's OAuth credentials in a store. */
class StoreOAuthStorage {
  #store;
  #prefix;
  constructor(store, prefix) {
    this.#store = store;
    this.#prefix = prefix;
  }
  get(key) {
    return this.#store.get(this.#prefix + key);
  }
  set(key, value) {
    return this.#store.set(this.#prefix + key, value);
  }
  delete(key) {
    return this.#store.delete(this.#prefix + key);
  }
  lock(key, options) {
    return this.#store.lock(this.#prefix + key, options);
  }
}

/**
 * Opens a store: `file:PATH` (SQLite, one machine; without a secret a random key is kept in
 * `PATH.key`) or `postgres://…` (PostgreSQL, many machines; a `secret` is required). The
 * database is opened on first use; `await store.open()` to check it at start-up.
 */
function createMCPStore(url, { secret, timeoutMs } = {}) {
  checkUrl(url);
  if (NETWORK.test(url) && !secret) {
    throw new MCPStoreError(
      `MCP store ${url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')} needs a secret to encrypt what it keeps: pass createMCPStore(url, { secret }) (a long random string, the same in every process)`,
      'MCP_STORE_SECRET_REQUIRED',
    );
  }
  if (secret !== undefined && (typeof secret !== 'string' || secret.length === 0)) throw new TypeError('createMCPStore: secret must be a non-empty string');
  return new MCPStore(url, { secret, timeoutMs }, {});
}

function isMCPStore(value) {
  return value instanceof MCPStore;
}

module.exports = { createMCPStore, MCPStore, MCPStoreError, isMCPStore, NATIVE };

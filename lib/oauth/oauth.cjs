'use strict';
// The documented OAuth API of @mastra/mcp: the provider (where tokens and the client identity
// are stored, and how the user is sent to the browser), its storage, and the loopback callback
// server. The OAuth protocol itself (discovery, registration, PKCE, exchange, refresh, the
// callback server) runs in the Rust core.
const { NativeCallbackServer, getCallbackUrlCandidates: nativeCandidates } = require('../native.cjs');

class UnauthorizedError extends Error {
  constructor(message = 'Unauthorized') {
    super(message);
    this.name = 'UnauthorizedError';
  }
}

class InMemoryOAuthStorage {
  #map = new Map();
  set(key, value) {
    this.#map.set(key, value);
  }
  get(key) {
    return this.#map.get(key);
  }
  delete(key) {
    this.#map.delete(key);
  }
  clear() {
    this.#map.clear();
  }
}

const KEYS = { tokens: 'tokens', client: 'client_info', verifier: 'code_verifier', discovery: 'discovery_state' };

/** Lets `MCPClient({ store })` give a provider that was built without a storage the store's. */
const ADOPT_STORAGE = Symbol('mastra-mcp-native.adoptStorage');

function parseJson(text) {
  if (typeof text !== 'string') return text && typeof text === 'object' ? text : undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

class MCPOAuthClientProvider {
  #redirectUrl;
  #originalRedirectUrl;
  #clientMetadata;
  #preRegistered;
  #clientInfo;
  #storage;
  #onRedirect;
  #stateGenerator;
  #pinnedState;
  #storageGiven;
  #locks = new Map();
  #nextLock = 1;

  constructor({ redirectUrl, clientMetadata, clientInformation, clientMetadataUrl, storage, onRedirectToAuthorization, stateGenerator, dpop } = {}) {
    if (!redirectUrl) throw new TypeError('MCPOAuthClientProvider requires a redirectUrl');
    if (!clientMetadata) throw new TypeError('MCPOAuthClientProvider requires clientMetadata');
    this.#redirectUrl = String(redirectUrl);
    this.#originalRedirectUrl = this.#redirectUrl;
    this.#clientMetadata = { ...clientMetadata };
    this.#preRegistered = clientInformation;
    this.clientMetadataUrl = clientMetadataUrl;
    /** Sender-constrained tokens (RFC 9449): the core keeps the key and signs the proofs. */
    this.dpop = dpop === true;
    this.#storage = storage ?? new InMemoryOAuthStorage();
    this.#storageGiven = storage !== undefined;
    this.#onRedirect = onRedirectToAuthorization;
    this.#stateGenerator = stateGenerator ?? (() => require('node:crypto').randomUUID());
  }

  get redirectUrl() {
    return this.#redirectUrl;
  }

  get clientMetadata() {
    return this.#clientMetadata;
  }

  /** The pinned state during an authorization session, else a fresh one (async, as in @mastra/mcp). */
  async state() {
    return this.#pinnedState ?? (await this.#stateGenerator());
  }

  async beginAuthorizationSession() {
    this.#pinnedState = await this.#stateGenerator();
    return this.#pinnedState;
  }

  endAuthorizationSession() {
    this.#pinnedState = undefined;
    this.#redirectUrl = this.#originalRedirectUrl;
    this.#clientMetadata = { ...this.#clientMetadata };
  }

  /** Called by `authenticate()` with the URL the callback server actually bound. */
  applyResolvedRedirectUrl(url, registeredUris) {
    this.#redirectUrl = String(url);
    if (registeredUris) this.#clientMetadata = { ...this.#clientMetadata, redirect_uris: registeredUris.map(String) };
  }

  /**
   * The client's identity. Synchronous for a pre-registered client (`clientInformation`), as in
   * @mastra/mcp 2.0; a registered client (1.18's dynamic registration) is read from storage,
   * asynchronously. (With `clientMetadataUrl` the engine uses the URL as `client_id` itself.)
   */
  clientInformation() {
    if (this.#preRegistered) return this.#preRegistered;
    if (this.#clientInfo) return this.#clientInfo;
    return (async () => {
      this.#clientInfo = parseJson(await this.#storage.get(KEYS.client));
      return this.#clientInfo;
    })();
  }

  async saveClientInformation(info) {
    this.#clientInfo = info;
    await this.#storage.set(KEYS.client, JSON.stringify(info));
  }

  /**
   * Stored tokens. With 2.0's issuer context, tokens saved for another authorization server are
   * not returned.
   */
  async tokens(ctx) {
    const tokens = parseJson(await this.#storage.get(KEYS.tokens));
    if (tokens && ctx?.issuer && tokens.issuer && tokens.issuer !== ctx.issuer) return undefined;
    return tokens;
  }

  /** Stores tokens, bound to the issuer when 2.0's context names one. */
  async saveTokens(tokens, ctx) {
    const stored = ctx?.issuer ? { ...tokens, issuer: ctx.issuer } : tokens;
    await this.#storage.set(KEYS.tokens, JSON.stringify(stored));
  }

  async redirectToAuthorization(url) {
    if (this.#onRedirect) await this.#onRedirect(url instanceof URL ? url : new URL(url));
    else console.info(`Authorization required. Please visit: ${url}`);
  }

  async saveCodeVerifier(verifier) {
    await this.#storage.set(KEYS.verifier, verifier);
  }

  async codeVerifier() {
    const v = await this.#storage.get(KEYS.verifier);
    if (!v) throw new Error('No code verifier found. Authorization flow may not have started properly.');
    return v;
  }

  async discoveryState() {
    return parseJson(await this.#storage.get(KEYS.discovery));
  }

  async saveDiscoveryState(state) {
    await this.#storage.set(KEYS.discovery, JSON.stringify(state));
  }

  async invalidateCredentials(scope = 'all') {
    const all = scope === 'all';
    if (all || scope === 'tokens') await this.#storage.delete(KEYS.tokens);
    if (all || scope === 'verifier') await this.#storage.delete(KEYS.verifier);
    if (all || scope === 'discovery') await this.#storage.delete(KEYS.discovery);
    if (all || scope === 'client') {
      await this.#storage.delete(KEYS.client);
      this.#clientInfo = undefined;
      // A pre-registered client is configuration, not state: it stays (the anchor forgot it).
    }
  }

  async clear() {
    await this.invalidateCredentials('all');
  }

  /**
   * Takes the storage's lock on the `tokens` or `client` credentials across processes, when the
   * storage has one (`createMCPStore`'s do): the core holds it while it refreshes or registers,
   * so a rotating refresh token is spent once. A handle for `unlockCredentials`, or null.
   */
  async lockCredentials({ what, waitMs } = {}) {
    if (typeof this.#storage.lock !== 'function') return null;
    const release = await this.#storage.lock(what === 'client' ? KEYS.client : KEYS.tokens, { timeoutMs: waitMs });
    const id = this.#nextLock++;
    this.#locks.set(id, release);
    return id;
  }

  async unlockCredentials(id) {
    const release = this.#locks.get(id);
    this.#locks.delete(id);
    if (typeof release === 'function') await release();
  }

  /** @internal `MCPClient({ store })`: the store's storage, unless one was given. */
  [ADOPT_STORAGE](storage) {
    if (this.#storageGiven) return false;
    this.#storage = storage;
    this.#storageGiven = true;
    this.#clientInfo = undefined;
    return true;
  }

  /** True when an access token is stored and, if it says when it expires, has not expired. */
  async hasValidTokens() {
    const t = await this.tokens();
    if (!t?.access_token) return false;
    if (typeof t.expires_in === 'number' && typeof t.obtained_at === 'number') {
      return t.obtained_at + t.expires_in > Date.now() / 1000;
    }
    return true;
  }
}

function createSimpleTokenProvider(accessToken, { redirectUrl, clientMetadata, clientInformation, tokenType, refreshToken, expiresIn, scope } = {}) {
  const storage = new InMemoryOAuthStorage();
  const tokens = { access_token: accessToken, token_type: tokenType ?? 'Bearer', refresh_token: refreshToken, expires_in: expiresIn, scope };
  if (expiresIn !== undefined) tokens.obtained_at = Math.floor(Date.now() / 1000);
  storage.set(KEYS.tokens, JSON.stringify(tokens));
  if (clientInformation) storage.set(KEYS.client, JSON.stringify(clientInformation));
  return new MCPOAuthClientProvider({ redirectUrl, clientMetadata, clientInformation, storage });
}

function getCallbackUrlCandidates(redirectUrl) {
  return nativeCandidates(String(redirectUrl)).map((u) => new URL(u));
}

async function createOAuthCallbackServer({ redirectUrl, state }) {
  const server = await NativeCallbackServer.start(String(redirectUrl), String(state));
  return {
    url: new URL(server.url),
    port: server.port,
    waitForCode: (options = {}) => server.waitForCode(options.timeoutMs),
    close: () => server.close(),
  };
}

module.exports = {
  ADOPT_STORAGE,
  UnauthorizedError,
  InMemoryOAuthStorage,
  MCPOAuthClientProvider,
  createSimpleTokenProvider,
  createOAuthCallbackServer,
  getCallbackUrlCandidates,
};

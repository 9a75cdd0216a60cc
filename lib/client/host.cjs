'use strict';
// The host of one client: the native client and what it is wired to (its callbacks behind a
// `WeakRef` trampoline, direct-call settling with the keep-alive timer, stderr streams), and the
// per-client state the feature modules (events, input, outcomes, spans, toolsets, lists, auth)
// work on. `MCPClient` and `InternalMastraMCPClient` each own one; the modules are plain
// functions of it, so a client holds no closures of its own beyond the native callbacks.
const { PassThrough } = require('node:stream');
const { NativeCallbacks, NativeClient } = require('../native.cjs');
const { toWireServers } = require('../wire-config.cjs');
const { FetchBridge } = require('../fetch-bridge.cjs');
const { callProvider } = require('../oauth/provider-ops.cjs');
const { ADOPT_STORAGE } = require('../oauth/oauth.cjs');
const { isMCPStore, NATIVE: NATIVE_STORE } = require('../store.cjs');
const { SetAsideTools } = require('../schema-problems.cjs');
const { ToolPins } = require('../tool-pins.cjs');
const { DEFAULT_TIMEOUT_MS } = require('./defaults.cjs');
const events = require('./events.cjs');
const { onInputRequest } = require('./input.cjs');

// Direct calls are settled through a weak callback, which does not keep Node's event loop
// alive by itself: one shared timer, referenced only while any direct call is in flight, does.
let directInFlight = 0;
let keepAlive;
function directCallStarted() {
  if (directInFlight++ === 0) {
    keepAlive ??= setInterval(() => {}, 2 ** 30);
    keepAlive.ref();
  }
}
function directCallSettled() {
  if (--directInFlight === 0) keepAlive.unref();
}

/** Settles a direct call (see `startCall`): `json` is the shaped result or the core's error. */
function settleDirectCall(directCalls, { id, ok, json }) {
  const pending = directCalls.get(id);
  if (!pending) return;
  directCalls.delete(id);
  directCallSettled();
  if (ok) pending.resolve(JSON.parse(json));
  else pending.reject(new Error(json));
}

/**
 * What both client classes of one face share: the `@mastra/core` modules (or stand-ins) and the
 * tools module, loaded lazily once.
 */
function createKit(deps) {
  const kit = {
    deps,
    coreToolsLoaded: undefined,
    coreToolsPromise: undefined,
    loadCoreTools: () => (kit.coreToolsPromise ??= deps.loadTools().then((t) => (kit.coreToolsLoaded = t))),
  };
  return kit;
}

class Host {
  /**
   * @param owner the client (a MastraBase: its `logger` is used)
   * @param kit from `createKit`
   * @param args `{ servers, timeout, telemetry, toolLock, onToolDrift }` as the user gave them
   */
  constructor(owner, kit, args) {
    this.owner = owner;
    this.kit = kit;
    this.servers = args.servers;
    this.defaultTimeout = args.timeout ?? DEFAULT_TIMEOUT_MS;
    this.telemetry = args.telemetry !== false; // `telemetry: false` turns spans and metrics off
    this.handlers = new Map(); // `${kind}\u0000${server}` -> handler
    this.stderr = new Map(); // server -> PassThrough
    this.toolCache = new Map(); // server -> { epoch, session, tools }
    this.callContexts = new Map(); // tool call id -> RequestContext (for a custom fetch)
    this.directCalls = new Map(); // tool call id -> { resolve, reject } of a call written by startCall
    this.authFlows = new Map(); // server -> { promise, flowId }
    this.inputAborts = new Map(); // input request id -> AbortController of an `inputRequests` call
    this.setAside = new SetAsideTools(); // tools left out for a malformed schema, warned about once
    this.pins = ToolPins.from(args); // the tool lock (`toolLock`, `onToolDrift`), when one is given
    this.disconnecting = undefined;
    for (const [name, def] of Object.entries(args.servers)) {
      if (def && def.stderr === 'pipe') this.stderr.set(name, new PassThrough());
    }
    if (args.store !== undefined) adoptStore(args.store, args.servers);
    this.native = openNative(this, args);
    if (args.store !== undefined) keepInStore(this.native, args.store);
  }

  /** Throws the anchor's error for a server name this client was not given. */
  requireServer(name) {
    if (!Object.prototype.hasOwnProperty.call(this.servers, name)) {
      throw new Error(`Server configuration not found for name: ${name}`);
    }
  }

  /**
   * A tool call written from this thread when the server is ready, else the async path. `meta`:
   * `{ progress, runId, traceJson, metaJson }`, what the core builds the request `_meta` from.
   */
  callTool(server, name, input, argsJson, callId, meta) {
    if (this.native.startCall(server, name, argsJson, callId, meta.progress, meta.runId, meta.traceJson, meta.metaJson)) {
      directCallStarted();
      return new Promise((resolve, reject) => this.directCalls.set(callId, { resolve, reject }));
    }
    return this.native.callTool(server, name, input, { callId, ...meta }).then(JSON.parse);
  }
}

/**
 * `store` (from `createMCPStore`): every OAuth server whose provider was built without a storage
 * keeps its credentials there, under the server's URL, in the store's scope.
 */
function adoptStore(store, servers) {
  if (!isMCPStore(store)) throw new TypeError('MCPClient: `store` must come from createMCPStore(url, { secret })');
  for (const [name, def] of Object.entries(servers)) {
    const provider = def?.authProvider;
    if (provider && typeof provider[ADOPT_STORAGE] === 'function') provider[ADOPT_STORAGE](store.oauth({ server: String(def.url ?? name) }));
  }
}

/**
 * The core keeps what outlives the process (a resumable session, a catalog the user allows to
 * reuse) in the store, in its scope; requests wait (bounded, in the core) until it is open.
 */
function keepInStore(native, store) {
  native.expectStore();
  store[NATIVE_STORE]().then(
    (opened) => native.useStore(opened, store.scope),
    (e) => native.storeFailed(String(e?.message ?? e)),
  );
}

/**
 * The clients of this process, by id, for the callbacks they share. A client's host is held
 * weakly (the host holds its native client: a dropped, disconnected client must be collectable);
 * its direct calls strongly, so a call still in flight when the host goes is settled all the same.
 */
const clients = new Map(); // id -> { host: WeakRef<Host>, directCalls, dropped }
const dropped = new FinalizationRegistry((id) => {
  const client = clients.get(id);
  if (client && client.directCalls.size === 0) clients.delete(id);
  else if (client) client.dropped = true;
});
let nextClient = 0;
let shared; // the process's NativeCallbacks, made with its first client

/** The callbacks every client of the process shares (threadsafe functions, made once). */
function sharedCallbacks() {
  shared ??= new NativeCallbacks(
    (event) => {
      const host = clients.get(event.client)?.host.deref();
      if (host) events.onEvent(host, event);
    },
    (request) => {
      const host = clients.get(request.client)?.host.deref();
      if (!host) throw new Error(`No elicitation handler is registered for server ${request.server}`);
      return onInputRequest(host, request);
    },
    (done) => {
      const client = clients.get(done.client);
      if (!client) return;
      settleDirectCall(client.directCalls, done);
      if (client.dropped && client.directCalls.size === 0) clients.delete(done.client);
    },
  );
  return shared;
}

/**
 * The native client: the process's shared callbacks under this client's id, and its own only
 * where a server needs them (each is a threadsafe function held for the client's life).
 */
function openNative(host, args) {
  const { stderr, servers } = host;
  const id = nextClient++ >>> 0;
  clients.set(id, { host: new WeakRef(host), directCalls: host.directCalls, dropped: false });
  dropped.register(host, id);
  const wire = toWireServers(servers);
  const wired = Object.values(wire);
  const fetchBridge = wired.some((d) => d?.customFetch) ? new FetchBridge(servers, host.callContexts) : undefined;
  const withAuth = wired.some((d) => d?.oauth);
  const withStderr = wired.some((d) => d?.stderr === 'pipe');
  return new NativeClient(
    wire,
    args.timeout,
    sharedCallbacks(),
    id,
    withStderr ? ({ server, data }) => stderr.get(server)?.write(data) : undefined,
    fetchBridge && ((request) => fetchBridge.fetch(request)),
    fetchBridge && ((bodyId) => fetchBridge.read(bodyId)),
    fetchBridge && ((bodyId) => fetchBridge.cancel(bodyId)),
    withAuth ? (request) => callProvider(servers[request.server]?.authProvider, request) : undefined,
  );
}

module.exports = { Host, createKit };

'use strict';
// MCPClient: the public class. It adapts the native client to Mastra's object model (MastraBase,
// Tools, MastraError, handlers); connections, transports and protocol live in Rust.
const { PassThrough } = require('node:stream');
const { NativeClient, describeTool } = require('./native.cjs');
const { fromNative, nativeCall, errorDetailsOf, toPlainError } = require('./errors.cjs');
const { instances, DUPLICATE_MESSAGE, idForServers, deepEqual } = require('./instance-cache.cjs');
const { toWireServers } = require('./wire-config.cjs');
const { buildTool, toDefinition } = require('./tools.cjs');
const { sharedToolList } = require('./shared-schemas.cjs');
const { createServerProxyClass } = require('./proxy.cjs');
const { SetAsideTools, schemaInvalidError, isSchemaInvalid, problemOf } = require('./schema-problems.cjs');
const { ToolPins, gateExecute, isToolDrift } = require('./tool-pins.cjs');
const { FetchBridge } = require('./fetch-bridge.cjs');
const { MCPOAuthClientProvider, UnauthorizedError } = require('./oauth.cjs');
const { callProvider } = require('./oauth-provider-ops.cjs');
const { traceMetaOf } = require('./trace-context.cjs');
const telemetry = require('./telemetry.cjs');

// Handler kinds whose notifications a 2026-07-28 session must ask `subscriptions/listen` for.
const LISTS_BY_HANDLER = { toolListChanged: 'tools', promptListChanged: 'prompts', resourceListChanged: 'resources' };

let nextFlowId = 0x40000000; // disjoint from tool call ids

/** Key of the per-server pieces `InternalMastraMCPClient` shares with `MCPClient` (not public). */
const INTERNALS = Symbol('mastra-mcp-native.internals');

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

/** An `AbortError` DOMException (what `signal.reason` is after a plain abort). */
function abortReason(message) {
  return new DOMException(message, 'AbortError');
}

/** A `TimeoutError` DOMException (what `AbortSignal.timeout()` aborts with). */
function timeoutReason(message) {
  return new DOMException(message, 'TimeoutError');
}

const LOG_LEVEL_METHOD = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

function createMCPClientClass(deps) {
  const { MastraBase, MastraError, ErrorDomain, ErrorCategory } = deps;
  const MCPClientServerProxy = createServerProxyClass(deps);
  let coreToolsPromise;
  let coreToolsLoaded;
  const loadCoreTools = () => (coreToolsPromise ??= deps.loadTools().then((t) => (coreToolsLoaded = t)));

  /** The MCP method of each `listAll` kind (the span's `mcp.method.name`). */
  const LIST_METHODS = { resources: 'resources/list', resourceTemplates: 'resources/templates/list', prompts: 'prompts/list' };

  class MCPClient extends MastraBase {
    #native;
    #servers;
    #handlers = new Map(); // `${kind}\u0000${server}` -> handler
    #stderr = new Map(); // server -> PassThrough
    #toolCache = new Map(); // server -> { epoch, entries, tools, session }
    #callContexts = new Map(); // tool call id -> RequestContext (for a custom fetch)
    #directCalls = new Map(); // tool call id -> { resolve, reject } of a call written by startCall
    #disconnecting;
    #authFlows = new Map(); // server -> { promise, flowId }
    #inputAborts = new Map(); // input request id -> AbortController of an `inputRequests` call
    #telemetry = true; // `telemetry: false` turns the OpenTelemetry spans and metrics off
    #setAside = new SetAsideTools(); // tools left out for a malformed schema, warned about once
    #pins; // the tool lock (`toolLock`, `onToolDrift`), when one is given

    constructor(args) {
      if (!args || typeof args !== 'object' || !args.servers || typeof args.servers !== 'object') {
        throw new TypeError('MCPClient requires options with a "servers" object (server name → definition).');
      }
      super({ component: 'LLM', name: 'MCPClient' });
      const id = args.id ?? idForServers(args.servers);
      const cached = instances.get(id);
      if (cached) {
        if (args.id === undefined) throw new Error(DUPLICATE_MESSAGE);
        if (deepEqual(cached.serverConfigs, args.servers)) return cached;
        void cached.disconnect();
        instances.delete(id);
      }
      this.id = id;
      this.serverConfigs = args.servers;
      this.defaultTimeout = args.timeout ?? 60000;
      this.#servers = args.servers;
      this.#telemetry = args.telemetry !== false;
      this.#pins = ToolPins.from(args);
      for (const [name, def] of Object.entries(args.servers)) {
        if (def && def.stderr === 'pipe') this.#stderr.set(name, new PassThrough());
      }
      const fetchBridge = new FetchBridge(args.servers, this.#callContexts);
      // The native client holds its callbacks strongly: they must not hold this client, or
      // the pair could never be collected (a disconnected, dropped client would leak).
      const self = new WeakRef(this);
      const stderr = this.#stderr;
      const directCalls = this.#directCalls;
      this.#native = new NativeClient(
        toWireServers(args.servers),
        args.timeout,
        (event) => self.deref()?.#onEvent(event),
        ({ server, data }) => stderr.get(server)?.write(data),
        (request) => {
          const client = self.deref();
          if (!client) throw new Error(`No elicitation handler is registered for server ${request.server}`);
          return client.#onInputRequest(request);
        },
        (request) => fetchBridge.fetch(request),
        (bodyId) => fetchBridge.read(bodyId),
        (bodyId) => fetchBridge.cancel(bodyId),
        (request) => callProvider(args.servers[request.server]?.authProvider, request),
        (done) => settleDirectCall(directCalls, done),
      );
      instances.set(id, this);
    }

    // ---- events and handlers -------------------------------------------------------------
    #handler(kind, server) {
      return this.#handlers.get(`${kind}\u0000${server}`);
    }

    /** Each server's trace `_meta` for requests starting now (`undefined` when no server traces). */
    #traceMetas() {
      let metas;
      for (const [name, def] of Object.entries(this.#servers)) {
        const meta = traceMetaOf(def);
        if (meta) (metas ??= {})[name] = meta;
      }
      return metas;
    }

    /**
     * Client spans for one fan-out request to every server (`undefined` with telemetry off), and
     * each server's trace `_meta`: its `traceContext()` first, else its span's.
     */
    #fanOut(method) {
      let ops;
      let metas;
      for (const [name, def] of Object.entries(this.#servers)) {
        const op = telemetry.startOperation(this.#telemetry, def, method, undefined, undefined, this.#native);
        if (op) (ops ??= {})[name] = op;
        const meta = traceMetaOf(def) ?? op?.meta;
        if (meta) (metas ??= {})[name] = meta;
      }
      return { ops, metas };
    }

    /** Ends the spans of a fan-out with each server's outcome. */
    #fanOutDone(ops, outcomes, error) {
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

    /** One request to one server inside a client span (when a tracer or meter is registered). */
    async #traced(serverName, method, target, attributes, fn) {
      const def = this.#servers[serverName];
      const op = telemetry.startOperation(this.#telemetry && def !== undefined, def, method, target, attributes, this.#native);
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

    #setHandler(kind, server, handler) {
      this.#handlers.set(`${kind}\u0000${server}`, handler);
      const list = LISTS_BY_HANDLER[kind];
      // Settles once a live 2026-07-28 session's subscriptions/listen asks for the list too.
      return list ? nativeCall(this.#native.wantListChanges(server, list)) : undefined;
    }

    #safely(fn, server, what) {
      try {
        const r = fn();
        if (r && typeof r.then === 'function') r.then(undefined, (e) => this.#logHandlerError(server, what, e));
      } catch (e) {
        this.#logHandlerError(server, what, e);
      }
    }

    #logHandlerError(server, what, e) {
      this.logger?.error?.(`[${server}] ${what} handler threw: ${e?.message ?? e}`);
    }

    #onEvent({ server, kind, payload }) {
      switch (kind) {
        case 'diagnostic':
          return this.#log(server, payload.level, payload.message);
        case 'sessionEnded':
          return telemetry.endSession(this.#telemetry, this.#servers[server], payload);
        case 'inputAborted':
          return this.#inputAborts.get(payload.id)?.abort(abortReason('The input request is no longer wanted (the call was aborted or the client disconnected)'));
        case 'serverLog': {
          const { level, ...details } = payload;
          return this.#log(server, level, '[MCP SERVER LOG]', details, null);
        }
        case 'progress':
        case 'resourceUpdated': {
          const h = this.#handler(kind, server);
          if (h) this.#safely(() => h(payload), server, kind);
          return;
        }
        default: {
          const h = this.#handler(kind, server);
          if (h) this.#safely(() => h(), server, kind);
        }
      }
    }

    /**
     * One request for input from a server (a pushed `elicitation/create`, a key of an
     * `input_required` result, or a task's input request). The rule: a handler registered with
     * `elicitation.onRequest` answers it (called with the params, as in 1.18); otherwise the
     * server definition's `inputRequests` (called with `{ key, params, signal }`, as in 2.0).
     */
    async #onInputRequest({ server, key, id, params }) {
      const registered = this.#handler('elicitation', server);
      if (registered) return await registered(params);
      const inputRequests = this.#servers[server]?.inputRequests;
      if (typeof inputRequests !== 'function') throw new Error(`No elicitation handler is registered for server ${server}`);
      const controller = new AbortController();
      this.#inputAborts.set(id, controller);
      const timeoutMs = this.#servers[server]?.timeout ?? this.defaultTimeout;
      // The call's timeout bounds the wait for the answer: the signal aborts and the call fails.
      const timer = Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs < 2 ** 31
        ? setTimeout(() => controller.abort(timeoutReason(`Input request '${key}' from server ${server} timed out after ${timeoutMs}ms`)), timeoutMs)
        : undefined;
      timer?.unref?.();
      try {
        const aborted = new Promise((_, reject) => {
          // A plain Error: the core reads its message (a DOMException crosses as "JavaScript Error").
          controller.signal.addEventListener('abort', () => reject(new Error(controller.signal.reason?.message ?? 'The input request was aborted')), { once: true });
        });
        aborted.catch(() => {});
        return await Promise.race([inputRequests({ key, params, signal: controller.signal }), aborted]);
      } finally {
        clearTimeout(timer);
        this.#inputAborts.delete(id);
      }
    }

    /** Logs a line for a server: to its `logger`/`log` handler and to the Mastra logger. */
    #log(server, level, message, details, requestContext) {
      const def = this.#servers[server] ?? {};
      const handler = typeof def.logger === 'function' ? def.logger : typeof def.log === 'function' ? def.log : undefined;
      const text = `[${server}] ${message}`;
      const method = LOG_LEVEL_METHOD[level] ?? 'info';
      if (handler) {
        this.#safely(
          () =>
            handler({
              level,
              message: text,
              timestamp: new Date(),
              serverName: server,
              details,
              requestContext: requestContext ?? null,
            }),
          server,
          'logger',
        );
      } else {
        this.logger?.[method]?.(text, details);
      }
    }

    // ---- helpers -------------------------------------------------------------------------
    #requireServer(name) {
      if (!Object.prototype.hasOwnProperty.call(this.#servers, name)) {
        throw new Error(`Server configuration not found for name: ${name}`);
      }
    }

    #mastraError(id, err, details, category = ErrorCategory.THIRD_PARTY) {
      if (err instanceof MastraError) return err;
      return new MastraError({ id, domain: ErrorDomain.MCP, category, text: err?.message ?? String(err), details }, err);
    }

    /** The user-facing error for one server's failure in a fan-out. */
    #serverFailure(server, nativeError, listErrorId) {
      const base = nativeError.code === 'UNAUTHORIZED' ? new UnauthorizedError(nativeError.message) : toPlainError(nativeError);
      if (nativeError.code.startsWith('MCP_CLIENT_')) {
        // allowedHosts / redirect policy: the anchor's ids, a user error, never retried.
        return new MastraError(
          { id: nativeError.code, domain: ErrorDomain.MCP, category: ErrorCategory.USER, text: nativeError.message, details: { name: server } },
          base,
        );
      }
      if (nativeError.duringConnect) {
        return new MastraError(
          {
            id: 'MCP_CLIENT_CONNECT_FAILED',
            domain: ErrorDomain.MCP,
            category: nativeError.code === 'INVALID_CONFIG' ? ErrorCategory.USER : ErrorCategory.THIRD_PARTY,
            text: `Failed to connect to MCP server ${server}: ${nativeError.detail ?? nativeError.message}`,
            details: { name: server },
          },
          base,
        );
      }
      return new MastraError(
        { id: listErrorId, domain: ErrorDomain.MCP, category: ErrorCategory.THIRD_PARTY, text: nativeError.message, details: { serverName: server } },
        base,
      );
    }

    /** Folds native fan-out outcomes into `{ [key], errors, errorDetails, durations? }`. */
    #fold(outcomes, key, listErrorId, options, onValue) {
      const out = { [key]: {}, errors: {}, errorDetails: {} };
      if (options) out.durations = {};
      for (const o of outcomes) {
        if (options) out.durations[o.server] = o.durationMs;
        if (o.ok) {
          out[key][o.server] = onValue(o.server, o.value);
        } else {
          const err = this.#serverFailure(o.server, o.error, listErrorId);
          const details = errorDetailsOf(err, err.message);
          out.errors[o.server] = details.message;
          out.errorDetails[o.server] = details;
          this.logger?.error?.(`Failed to list ${key} from server ${o.server}: ${err.message}`);
        }
      }
      return out;
    }

    /** Per-server tool listings; reused without a native round trip while every list is current. */
    async #toolEntries(options) {
      const reused = this.#currentToolEntries();
      if (reused) return reused;
      const { ops, metas } = this.#fanOut('tools/list');
      let outcomes;
      try {
        outcomes = JSON.parse(await this.#native.listTools(undefined, options?.perServerTimeoutMs, metas));
      } catch (e) {
        this.#fanOutDone(ops, undefined, fromNative(e));
        throw e;
      }
      this.#fanOutDone(ops, outcomes);
      for (const o of outcomes) {
        if (!o.ok) continue;
        o.value.tools = sharedToolList(o.value.toolsKey, o.value.tools);
        const prev = this.#toolCache.get(o.server);
        if (!prev || prev.epoch !== o.value.epoch) {
          this.#toolCache.set(o.server, { epoch: o.value.epoch, session: o.value, tools: null });
          this.#pins?.review(o.server, o.value.tools.map((e) => e.tool));
        }
      }
      return outcomes;
    }

    #currentToolEntries() {
      if (this.#toolCache.size === 0) return undefined;
      const epochs = this.#native.currentToolEpochs();
      const outcomes = [];
      for (const [server, epoch] of Object.entries(epochs)) {
        const cached = this.#toolCache.get(server);
        if (epoch === null || !cached || cached.epoch !== epoch) return undefined;
        outcomes.push({ server, ok: true, value: cached.session, durationMs: 0 });
      }
      return outcomes;
    }

    #toolContext(server, coreTools) {
      return {
        native: this.#native,
        server,
        def: this.#servers[server] ?? {},
        deps,
        coreTools,
        telemetry: this.#telemetry,
        logEvent: (level, message, details, requestContext) => this.#log(server, level, message, details, requestContext),
        // A tools/call written from this thread when the server is ready, else the async path.
        callTool: (name, input, argsJson, metaJson, options) => {
          if (this.#native.startCall(server, name, argsJson, metaJson, options.callId)) {
            directCallStarted();
            return new Promise((resolve, reject) => this.#directCalls.set(options.callId, { resolve, reject }));
          }
          return this.#native.callTool(server, name, input, options).then(JSON.parse);
        },
        // The request context reaches a custom fetch through the call id; no async context tracking.
        callContexts: this.#servers[server]?.fetch || this.#servers[server]?.eventSourceInit?.fetch ? this.#callContexts : null,
      };
    }

    /** Mastra tools for one server's cached listing, built once per list epoch. */
    #toolsFor(server, coreTools) {
      const cache = this.#toolCache.get(server);
      if (!cache.tools) {
        const ctx = this.#toolContext(server, coreTools);
        cache.tools = {};
        for (const entry of cache.session.tools) {
          if (entry.schemaProblem) {
            this.#warnSetAside(server, entry.tool.name, entry.schemaProblem);
            continue;
          }
          try {
            const built = this.#pinned(server, entry.tool.name, () => buildTool(ctx, entry, cache.session));
            if (built) cache.tools[entry.tool.name] = built;
          } catch (e) {
            this.#log(server, 'error', `Failed to create Mastra tool wrapper for MCP tool: ${entry.tool.name}`, { error: e?.message });
          }
        }
      }
      return cache.tools;
    }

    /**
     * A tool of a pinned server as the lock allows it: `undefined` when withheld, else built by
     * `build()` with approval required ('approve') and its calls judged by the lock again.
     */
    #pinned(server, name, build, drift = this.#pins?.driftOf(server, name)) {
      const pins = this.#pins;
      if (!pins?.pins(server)) return build();
      if (drift) pins.warnOnce(server, drift, (level, message, details) => this.#log(server, level, message, details));
      if (drift && pins.blocks) return undefined;
      const tool = build();
      if (drift && pins.mode === 'approve') tool.requireApproval = true;
      return gateExecute(tool, (t) => this.#driftGate(server, name, t));
    }

    /**
     * Before a call of a pinned server's tool: the server's listing again if it changed (a
     * `list_changed`), and the lock's verdict on the tool as listed now.
     */
    async #driftGate(server, name, tool) {
      const pins = this.#pins;
      const cached = this.#toolCache.get(server);
      const epoch = this.#native.currentToolEpochs()[server];
      if (!cached || epoch === null || epoch === undefined || epoch !== cached.epoch) {
        const outcomes = await this.#toolEntries();
        const o = outcomes.find((x) => x.server === server);
        if (o && !o.ok) throw this.#serverFailure(server, o.error, 'MCP_CLIENT_TOOL_EXECUTION_FAILED');
      }
      const drift = pins.driftOf(server, name);
      if (!drift) return;
      pins.warnOnce(server, drift, (level, message, details) => this.#log(server, level, message, details));
      // Withheld; or, with 'approve', not approved for the definition it has now: asked next time.
      if (pins.blocks || (pins.mode === 'approve' && !tool.requireApproval)) {
        if (pins.mode === 'approve') tool.requireApproval = true;
        throw pins.blockedError(deps, server, drift);
      }
    }

    /** Withheld tools of the listed servers as `TOOL_DRIFT` errors of a `*WithErrors` result. */
    #reportDrift(folded, servers) {
      if (!this.#pins?.blocks) return folded;
      for (const server of servers) {
        const withheld = this.#pins.withheld(server);
        if (!withheld.length) continue;
        const { message, details } = this.#pins.report(server, withheld);
        folded.errors[server] = message;
        folded.errorDetails[server] = details;
      }
      return folded;
    }

    /** One warning per client and definition for a tool set aside for a malformed schema. */
    #warnSetAside(server, toolName, problem) {
      this.#setAside.warnOnce(server, toolName, problem, (level, message, details) => this.#log(server, level, message, details));
    }

    // ---- tools -----------------------------------------------------------------------------
    async listToolsWithErrors(options) {
      const [outcomes, coreTools] = await Promise.all([this.#toolEntries(options), loadCoreTools()]);
      const folded = this.#fold(outcomes, 'tools', 'MCP_CLIENT_GET_TOOLS_FAILED', options, (server) => this.#toolsFor(server, coreTools));
      this.#reportDrift(folded, Object.keys(folded.tools));
      const flat = {};
      for (const [server, tools] of Object.entries(folded.tools)) {
        for (const [name, tool] of Object.entries(tools)) flat[`${server}_${name}`] = tool;
      }
      folded.tools = flat;
      return folded;
    }

    async listTools() {
      return (await this.listToolsWithErrors()).tools;
    }

    async listToolsetsWithErrors(options) {
      const [outcomes, coreTools] = await Promise.all([this.#toolEntries(options), loadCoreTools()]);
      const folded = this.#fold(outcomes, 'toolsets', 'MCP_CLIENT_GET_TOOLSETS_FAILED', options, (server) => ({
        ...this.#toolsFor(server, coreTools),
      }));
      return this.#reportDrift(folded, Object.keys(folded.toolsets));
    }

    async listToolsets() {
      return (await this.listToolsetsWithErrors()).toolsets;
    }

    async listToolDefinitionsWithErrors(options) {
      const outcomes = await this.#toolEntries(options);
      return this.#fold(outcomes, 'definitions', 'MCP_CLIENT_GET_TOOLS_FAILED', options, (server, value) => {
        const defs = {};
        for (const entry of value.tools) defs[entry.tool.name] = toDefinition(server, entry, value);
        return defs;
      });
    }

    async listToolDefinitions() {
      return (await this.listToolDefinitionsWithErrors()).definitions;
    }

    async toolFromDefinition({ serverName, definition }) {
      return this.#hydrate(serverName, definition, () => loadCoreTools());
    }

    /** Rebuilds a tool from a cached definition; sync when `coreTools()` is. */
    #hydrate(serverName, definition, coreTools) {
      const fail = (e) => {
        if (isSchemaInvalid(e) || isToolDrift(e)) throw e;
        throw new MastraError(
          {
            id: 'MCP_CLIENT_TOOL_HYDRATION_FAILED',
            domain: ErrorDomain.MCP,
            category: ErrorCategory.USER,
            text: `Failed to rebuild MCP tool "${definition?.name}" from its cached definition`,
            details: { toolName: definition?.name, serverName },
          },
          e,
        );
      };
      const build = (tools) => {
        const { server: session = {}, ...toolFields } = definition;
        const entry = describeTool(serverName, toolFields);
        if (entry.schemaProblem) throw schemaInvalidError(deps, serverName, entry.tool.name, entry.schemaProblem);
        const make = () =>
          buildTool(this.#toolContext(serverName, tools), entry, {
            serverVersion: session.version,
            instructions: session.instructions,
          });
        if (!this.#pins?.pins(serverName)) return make();
        const drift = this.#pins.definitionDrift(serverName, toolFields);
        const built = this.#pinned(serverName, entry.tool.name, make, drift ?? null);
        if (!built) throw this.#pins.blockedError(deps, serverName, drift);
        return built;
      };
      try {
        this.#requireServer(serverName);
        const tools = coreTools();
        return typeof tools?.then === 'function' ? tools.then(build).catch(fail) : build(tools);
      } catch (e) {
        return fail(e);
      }
    }

    async toolsFromDefinitions({ definitions }) {
      const out = {};
      for (const [serverName, defs] of Object.entries(definitions ?? {})) {
        if (!Object.prototype.hasOwnProperty.call(this.#servers, serverName)) {
          this.logger?.warn?.(`Skipping cached MCP tools for server "${serverName}": it is no longer configured`);
          continue;
        }
        for (const [name, definition] of Object.entries(defs)) {
          try {
            out[`${serverName}_${name}`] = await this.toolFromDefinition({ serverName, definition });
          } catch (e) {
            // A malformed cached definition is set aside as a listed one is, a drifted one of a
            // pinned server withheld (and logged) as a listed one is; any other failure surfaces.
            if (isToolDrift(e)) continue;
            if (!isSchemaInvalid(e)) throw e;
            const { toolName, problem } = problemOf(e);
            this.#warnSetAside(serverName, toolName, problem);
          }
        }
      }
      return out;
    }

    // ---- instructions, stderr, lifecycle --------------------------------------------------
    getServerInstructions() {
      const map = this.#native.instructionsNow();
      const out = {};
      for (const [k, v] of Object.entries(map)) out[k] = v ?? undefined;
      return out;
    }

    /**
     * Each server's negotiated protocol revision (`'2026-07-28'`, `'2025-11-25'`, …), `undefined`
     * while not connected. Synchronous, as in `@mastra/mcp` 2.0.
     */
    getServerProtocolVersions() {
      const map = this.#native.protocolVersionsNow();
      const out = {};
      for (const [k, v] of Object.entries(map)) out[k] = v ?? undefined;
      return out;
    }

    /**
     * Connects a server if needed and returns its session: `{ serverVersion, instructions,
     * protocolVersion }`. An extension of @mastra/mcp (the CLI's `servers` command uses it).
     */
    async getServerSessionInfo(serverName) {
      this.#requireServer(serverName);
      const info = await nativeCall(this.#native.connect(serverName));
      return { serverVersion: info.serverVersion ?? undefined, instructions: info.instructions ?? undefined, protocolVersion: info.protocolVersion };
    }

    getServerStderr(serverName) {
      return this.#stderr.get(serverName) ?? null;
    }

    async reconnectServer(serverName) {
      this.#requireServer(serverName);
      await nativeCall(this.#native.reconnect(serverName));
    }

    async disconnect() {
      if (this.#disconnecting) return this.#disconnecting;
      this.#disconnecting = (async () => {
        try {
          if (instances.get(this.id) === this) instances.delete(this.id);
          await this.#native.disconnect();
          // The native disconnect cancelled every auth flow: let them settle before we resolve.
          await Promise.allSettled([...this.#authFlows.values()].map((f) => f.promise));
          this.#toolCache.clear();
        } finally {
          this.#disconnecting = undefined;
        }
      })();
      return this.#disconnecting;
    }

    /** Connects a server for the `on*` helpers, wrapping failures in the API's error id. */
    async #connectFor(server, errorId, details) {
      try {
        this.#requireServer(server);
        await nativeCall(this.#native.connect(server));
      } catch (e) {
        throw this.#mastraError(errorId, e, details);
      }
    }

    async #run(errorId, details, fn) {
      try {
        if (details.serverName !== undefined) this.#requireServer(details.serverName);
        return await fn();
      } catch (e) {
        throw this.#mastraError(errorId, fromNative(e), details);
      }
    }

    #listWith(kind, key, errorId) {
      return async (options) => {
        const { ops, metas } = this.#fanOut(LIST_METHODS[kind]);
        let outcomes;
        try {
          outcomes = await this.#native.listAll(kind, options?.perServerTimeoutMs, metas);
        } catch (e) {
          this.#fanOutDone(ops, undefined, fromNative(e));
          throw e;
        }
        this.#fanOutDone(ops, outcomes);
        return this.#fold(outcomes, key, errorId, options, (_server, value) => value);
      };
    }

    get resources() {
      const listWithErrors = this.#listWith('resources', 'resources', 'MCP_CLIENT_LIST_RESOURCES_FAILED');
      const templatesWithErrors = this.#listWith('resourceTemplates', 'resourceTemplates', 'MCP_CLIENT_LIST_RESOURCE_TEMPLATES_FAILED');
      return {
        list: async () => (await listWithErrors()).resources,
        listWithErrors,
        templates: async () => (await templatesWithErrors()).resourceTemplates,
        templatesWithErrors,
        read: (serverName, uri) =>
          this.#run('MCP_CLIENT_READ_RESOURCE_FAILED', { serverName, uri }, () =>
            this.#traced(serverName, 'resources/read', undefined, { 'mcp.resource.uri': String(uri) }, (meta) =>
              this.#native.readResource(serverName, uri, meta),
            ),
          ),
        subscribe: (serverName, uri) =>
          this.#run('MCP_CLIENT_SUBSCRIBE_RESOURCE_FAILED', { serverName, uri }, () => this.#native.subscribeResource(serverName, uri)),
        unsubscribe: (serverName, uri) =>
          this.#run('MCP_CLIENT_UNSUBSCRIBE_RESOURCE_FAILED', { serverName, uri }, () =>
            this.#native.unsubscribeResource(serverName, uri),
          ),
        onUpdated: async (serverName, handler) => {
          await this.#connectFor(serverName, 'MCP_CLIENT_ON_UPDATED_RESOURCE_FAILED', { serverName });
          this.#setHandler('resourceUpdated', serverName, handler);
        },
        onListChanged: async (serverName, handler) => {
          await this.#connectFor(serverName, 'MCP_CLIENT_ON_LIST_CHANGED_RESOURCE_FAILED', { serverName });
          await this.#setHandler('resourceListChanged', serverName, handler);
        },
      };
    }

    get prompts() {
      const listWithErrors = this.#listWith('prompts', 'prompts', 'MCP_CLIENT_LIST_PROMPTS_FAILED');
      return {
        list: async () => (await listWithErrors()).prompts,
        listWithErrors,
        get: ({ serverName, name, args, version } = {}) =>
          this.#run('MCP_CLIENT_GET_PROMPT_FAILED', { serverName, name, ...(version ? { version } : {}) }, () =>
            this.#traced(serverName, 'prompts/get', name, { 'gen_ai.prompt.name': String(name) }, (meta) =>
              this.#native.getPrompt(serverName, name, args ?? undefined, meta),
            ),
          ),
        onListChanged: async (serverName, handler) => {
          await this.#connectFor(serverName, 'MCP_CLIENT_ON_LIST_CHANGED_PROMPT_FAILED', { serverName });
          await this.#setHandler('promptListChanged', serverName, handler);
        },
      };
    }

    get tools() {
      return {
        onListChanged: async (serverName, handler) => {
          await this.#connectFor(serverName, 'MCP_CLIENT_ON_LIST_CHANGED_TOOLS_FAILED', { serverName });
          await this.#setHandler('toolListChanged', serverName, handler);
        },
      };
    }

    get progress() {
      return {
        onUpdate: async (serverName, handler) => {
          await this.#connectFor(serverName, 'MCP_CLIENT_ON_UPDATE_PROGRESS_FAILED', { serverName });
          this.#setHandler('progress', serverName, handler);
        },
      };
    }

    get elicitation() {
      return {
        onRequest: async (serverName, handler) => {
          try {
            this.#requireServer(serverName);
            await nativeCall(this.#native.enableElicitation(serverName));
            this.#setHandler('elicitation', serverName, handler);
          } catch (e) {
            throw this.#mastraError('MCP_CLIENT_ON_REQUEST_ELICITATION_FAILED', e, { serverName });
          }
        },
      };
    }

    get sessionIds() {
      return this.#native.sessionIds();
    }

    toMCPServerProxies() {
      const proxies = {};
      for (const name of Object.keys(this.#servers)) {
        proxies[name] = new MCPClientServerProxy({ name, id: name }, this, name);
      }
      return proxies;
    }

    /** Per-server pieces for `InternalMastraMCPClient` (one client, one server, same core). */
    [INTERNALS]() {
      return {
        native: this.#native,
        setHandler: (kind, server, handler) => this.#setHandler(kind, server, handler),
        traceMetas: () => this.#traceMetas(),
        /** A call that may send notifications: they become spans from the trace it returns. */
        notifying: async (server, call) => {
          const scope = telemetry.beginNotifications(this.#telemetry, this.#native);
          telemetry.notificationsSent(scope, this.#servers[server], await nativeCall(call()));
        },
        serverFailure: (server, nativeError, errorId) => this.#serverFailure(server, nativeError, errorId),
        mastraError: (id, err, details) => this.#mastraError(id, err, details),
        /** One server's Mastra tools; throws that server's failure. */
        tools: async (server) => {
          const [outcomes, coreTools] = await Promise.all([this.#toolEntries(), loadCoreTools()]);
          const o = outcomes.find((x) => x.server === server);
          if (!o.ok) throw this.#serverFailure(server, o.error, 'MCP_CLIENT_GET_TOOLS_FAILED');
          return { ...this.#toolsFor(server, coreTools) };
        },
        /** Synchronous rebuild: uses the loaded tools module, else `requireTools()`. */
        hydrate: (server, definition, requireTools) =>
          this.#hydrate(server, definition, () => coreToolsLoaded ?? requireTools()),
        loadCoreTools,
      };
    }

    /** `'needs-auth'` after an authorization rejection, `'authorized'` once accepted. */
    getServerAuthState(serverName) {
      if (!Object.prototype.hasOwnProperty.call(this.#servers, serverName)) return undefined;
      return this.#native.authState(serverName) ?? undefined;
    }

    /**
     * Runs the browser OAuth flow for a server (loopback callback server, token exchange,
     * reconnect). Concurrent calls join one flow.
     */
    authenticate(serverName, options = {}) {
      // A disconnect in flight ends every flow first; then a new one starts.
      if (this.#disconnecting) return this.#disconnecting.catch(() => {}).then(() => this.authenticate(serverName, options));
      const pending = this.#authFlows.get(serverName);
      if (pending) return pending.promise.then(() => undefined);
      const flowId = nextFlowId++;
      const promise = (async () => {
        this.#requireServer(serverName);
        if (!(this.#servers[serverName].authProvider instanceof MCPOAuthClientProvider)) {
          throw new Error(`Cannot authenticate MCP server ${serverName}: it is not configured with an MCPOAuthClientProvider.`);
        }
        this.#toolCache.delete(serverName);
        try {
          await this.#native.authenticate(serverName, options.timeoutMs, flowId);
        } catch (e) {
          const err = fromNative(e);
          if (err.nativeCode === 'CONNECT_FAILED' || err.nativeCode === 'AUTH_FAILED' || err.nativeCode === 'REQUEST_TIMEOUT') {
            throw this.#mastraError('MCP_CLIENT_CONNECT_FAILED', err, { name: serverName });
          }
          throw err;
        }
      })().finally(() => this.#authFlows.delete(serverName));
      this.#authFlows.set(serverName, { promise, flowId });
      return promise;
    }

    /** Aborts a pending `authenticate()`; `false` when none is pending. */
    async cancelAuthentication(serverName) {
      const pending = this.#authFlows.get(serverName);
      if (!pending) return false;
      this.#native.cancel(pending.flowId, 'cancelled');
      await pending.promise.catch(() => {});
      return true;
    }
  }

  return { MCPClient, MCPClientServerProxy };
}

module.exports = { createMCPClientClass, INTERNALS };

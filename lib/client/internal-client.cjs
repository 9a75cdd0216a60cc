'use strict';
// InternalMastraMCPClient: @mastra/mcp's per-server client. It owns a one-server `Host` and uses the
// same feature modules as `MCPClient` (the same native Connection: transports, reconnects, tool
// building); this file only maps the per-server method names and shapes of the original onto them.
const { untraced } = require('../telemetry.cjs');
const { fromNative, nativeCall } = require('../errors.cjs');
const { CLIENT_VERSION } = require('../wire-config.cjs');
const { traceMetaOf } = require('../trace-context.cjs');
const { DEFAULT_TIMEOUT_MS, DEFAULT_INSTRUCTIONS_MAX_LENGTH } = require('./defaults.cjs');
const { Host } = require('./host.cjs');
const { setHandler } = require('./events.cjs');
const { skills } = require('./skills.cjs');
const { mastraError, serverFailure } = require('./outcomes.cjs');
const { traceMetas, notifying } = require('./spans.cjs');
const toolsets = require('./toolsets.cjs');
const { authState } = require('./auth.cjs');
const { disconnect, byServer } = require('./lifecycle.cjs');

/** The tools module, synchronously: the one already loaded, else a CommonJS require. */
function requireToolsSync() {
  const tools = require('@mastra/core/tools');
  let schema;
  try {
    schema = require('@mastra/core/schema');
  } catch {
    schema = undefined;
  }
  return { createTool: tools.createTool, validateToolOutput: tools.validateToolOutput, toStandardSchema: schema?.toStandardSchema };
}

/** The definition of the one server: the extra capabilities, and `version` for `clientInfo`. */
function definitionFor(server, capabilities, version) {
  const def = { ...server, [CLIENT_VERSION]: String(version) };
  if (capabilities && Object.keys(capabilities).length > 0) def.capabilities = { ...(server.capabilities ?? {}), ...capabilities };
  return def;
}

/** A failure of a per-server list as the SDK's plain error. */
function plainFailure(nativeError) {
  return fromNative(new Error(JSON.stringify(nativeError)));
}

function createInternalClientClass(kit) {
  class InternalMastraMCPClient extends kit.deps.MastraBase {
    #host;
    #server;

    // `clientInfo` reports `name` (the server's name) and `version`, as the anchor's does.
    constructor({ name, version = '1.0.0', server, capabilities = {}, timeout = DEFAULT_TIMEOUT_MS, store } = {}) {
      if (typeof name !== 'string' || name === '') throw new TypeError('InternalMastraMCPClient requires a server "name".');
      if (!server || typeof server !== 'object') {
        throw new TypeError(`InternalMastraMCPClient requires a "server" definition for server ${name}.`);
      }
      super({ name: 'MastraMCPClient' });
      this.name = name;
      this.#server = server;
      // Reachable through this object only: no module-global instance entry.
      this.#host = new Host(this, kit, { servers: { [name]: definitionFor(server, capabilities, version) }, timeout, store });
      // Tools rebuilt by the synchronous toolFromDefinition use the entry's own @mastra/core copy
      // once it is loaded.
      kit.loadCoreTools().catch(() => {});

      // A server without the list (no capability, or -32601) answers an empty one: the core's
      // list policy (`src/core/lists.rs`, `list_of`), behind `listAll`.
      const list = (what, key, fetch) => async () => {
        try {
          const result = await fetch();
          return Array.isArray(result?.[key]) ? result[key] : [];
        } catch (e) {
          this.logger?.error?.(`Error getting ${what} from server`, { server: this.name, error: e?.message ?? String(e) });
          throw new Error(`Failed to fetch ${what} from server ${this.name}: ${e?.message ?? String(e)}`, { cause: e });
        }
      };
      this.resources = {
        list: list('resources', 'resources', () => this.listResources()),
        templates: list('resource templates', 'resourceTemplates', () => this.listResourceTemplates()),
        read: async (uri) => this.readResource(uri),
        subscribe: async (uri) => this.subscribeResource(uri),
        unsubscribe: async (uri) => this.unsubscribeResource(uri),
        onUpdated: async (handler) => this.setResourceUpdatedNotificationHandler(handler),
        onListChanged: async (handler) => this.setResourceListChangedNotificationHandler(handler),
      };
      this.prompts = {
        list: list('prompts', 'prompts', () => this.listPrompts()),
        get: async ({ name: prompt, args }) => this.getPrompt({ name: prompt, args }),
        onListChanged: async (handler) => this.setPromptListChangedNotificationHandler(handler),
      };
      this.elicitation = { onRequest: (handler) => this.setElicitationRequestHandler(handler) };
      this.progress = { onUpdate: (handler) => this.setProgressNotificationHandler(handler) };
      // Not in @mastra/mcp: the server's skills (SEP-2640), as `MCPClient.skills` has them.
      this.skills = skills(this.#host, this.name);
    }

    get #native() {
      return this.#host.native;
    }

    // ---- lifecycle -----------------------------------------------------------------------
    async connect() {
      try {
        await this.#native.connect(this.name);
        return true;
      } catch (e) {
        const err = fromNative(e);
        throw mastraError(this.#host, 'MCP_CLIENT_CONNECT_FAILED', err, { name: this.name });
      }
    }

    async disconnect() {
      await disconnect(this.#host);
    }

    async forceReconnect() {
      await nativeCall(this.#native.reconnect(this.name));
    }

    get sessionId() {
      return this.#native.sessionIds()[this.name];
    }

    get stderr() {
      return this.#host.stderr.get(this.name) ?? null;
    }

    get instructions() {
      return byServer(this.#native.instructionsNow())[this.name];
    }

    get forwardInstructions() {
      return this.#server.forwardInstructions ?? false;
    }

    get instructionsMaxLength() {
      return this.#server.instructionsMaxLength ?? DEFAULT_INSTRUCTIONS_MAX_LENGTH;
    }

    get authState() {
      return authState(this.#host, this.name);
    }

    /** Exchanges the code of the authorization a connect started; then `connect()` again. */
    async finishAuth(authorizationCode, issuer) {
      // The code (or the callback URL), and 2.0's RFC 9207 `iss` apart: the core reads them.
      await nativeCall(this.#native.finishAuth(this.name, String(authorizationCode), issuer === undefined ? undefined : String(issuer)));
    }

    /** The protocol revision negotiated with the server (`undefined` while not connected), as in 2.0. */
    get negotiatedProtocolVersion() {
      return byServer(this.#native.protocolVersionsNow())[this.name];
    }

    // ---- roots -----------------------------------------------------------------------------
    get roots() {
      return this.#native.roots(this.name);
    }

    async setRoots(roots) {
      await notifying(this.#host, this.name, () => this.#native.setRoots(this.name, [...roots]));
    }

    async sendRootsListChanged() {
      await notifying(this.#host, this.name, () => this.#native.sendRootsListChanged(this.name));
    }

    // ---- resources and prompts -------------------------------------------------------------
    async #listOne(kind) {
      const [outcome] = await this.#native.listAll(kind, undefined, traceMetas(this.#host));
      if (!outcome.ok) throw plainFailure(outcome.error);
      return outcome.value;
    }

    async listResources() {
      return { resources: await this.#listOne('resources') };
    }

    async listResourceTemplates() {
      return { resourceTemplates: await this.#listOne('resourceTemplates') };
    }

    async readResource(uri) {
      return untraced(await nativeCall(this.#native.readResource(this.name, uri, traceMetaOf(this.#server))));
    }

    async subscribeResource(uri) {
      return nativeCall(this.#native.subscribeResource(this.name, uri));
    }

    async unsubscribeResource(uri) {
      return nativeCall(this.#native.unsubscribeResource(this.name, uri));
    }

    async listPrompts() {
      return { prompts: await this.#listOne('prompts') };
    }

    async getPrompt({ name, args }) {
      return untraced(await nativeCall(this.#native.getPrompt(this.name, name, args ?? undefined, traceMetaOf(this.#server))));
    }

    // ---- handlers (last one registered wins; they survive reconnects) ----------------------
    setPromptListChangedNotificationHandler(handler) {
      // A promise (as in @mastra/mcp 2.0) that never rejects, so 1.18 code may leave it.
      return Promise.resolve(setHandler(this.#host, 'promptListChanged', this.name, () => handler())).catch(() => {});
    }

    setToolListChangedNotificationHandler(handler) {
      // A promise (as in @mastra/mcp 2.0) that never rejects, so 1.18 code may leave it.
      return Promise.resolve(setHandler(this.#host, 'toolListChanged', this.name, () => handler())).catch(() => {});
    }

    setResourceUpdatedNotificationHandler(handler) {
      setHandler(this.#host, 'resourceUpdated', this.name, (params) => handler(params));
    }

    setResourceListChangedNotificationHandler(handler) {
      // A promise (as in @mastra/mcp 2.0) that never rejects, so 1.18 code may leave it.
      return Promise.resolve(setHandler(this.#host, 'resourceListChanged', this.name, () => handler())).catch(() => {});
    }

    /** Advertises elicitation on connect; refused once connected without it configured. */
    setElicitationRequestHandler(handler) {
      try {
        this.#native.enableElicitationNow(this.name);
      } catch (e) {
        throw fromNative(e);
      }
      setHandler(this.#host, 'elicitation', this.name, (params) => handler(params));
    }

    setProgressNotificationHandler(handler) {
      setHandler(this.#host, 'progress', this.name, (params) => handler(params));
    }

    // ---- tools -----------------------------------------------------------------------------
    async tools() {
      return toolsets.serverTools(this.#host, this.name);
    }

    async toolDefinitions() {
      const [outcome] = await toolsets.listedTools(this.#native, this.name, undefined, traceMetas(this.#host));
      if (!outcome.ok) throw serverFailure(this.#host, this.name, outcome.error, 'MCP_CLIENT_GET_TOOLS_FAILED');
      return toolsets.definitionsOf(this.name, outcome.value);
    }

    /** Rebuilds one executable tool from a cached definition (connects on first execute). */
    toolFromDefinition({ definition }) {
      return toolsets.hydrate(this.#host, this.name, definition, () => kit.coreToolsLoaded ?? requireToolsSync());
    }

    /**
     * Rebuilds this server's tools from cached definitions (`{ [toolName]: definition }`, as
     * `toolDefinitions()` returns them) without connecting; a malformed definition is set aside
     * with a warning, as a listed one is. Any other failure rejects.
     */
    async toolsFromDefinitions({ definitions } = {}) {
      return toolsets.hydrateServer(this.#host, this.name, definitions, () => kit.coreToolsLoaded ?? requireToolsSync());
    }
  }

  return { InternalMastraMCPClient };
}

module.exports = { createInternalClientClass };

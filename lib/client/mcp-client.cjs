'use strict';
// MCPClient: the public class. It wires a `Host` (the native client, its callbacks, direct calls,
// stderr) to the feature modules of this folder and maps `@mastra/mcp`'s API onto them;
// connections, transports and protocol live in Rust.
const { nativeCall } = require('../errors.cjs');
const { instances, DUPLICATE_MESSAGE, idForServers, deepEqual } = require('../instance-cache.cjs');
const { createServerProxyClass } = require('../proxy.cjs');
const { Host } = require('./host.cjs');
const toolsets = require('./toolsets.cjs');
const actions = require('./actions.cjs');
const { skills } = require('./skills.cjs');
const auth = require('./auth.cjs');
const { disconnect, byServer } = require('./lifecycle.cjs');

function createMCPClientClass(kit) {
  const MCPClientServerProxy = createServerProxyClass(kit.deps);

  class MCPClient extends kit.deps.MastraBase {
    #host;
    #resources;
    #prompts;
    #tools;
    #progress;
    #elicitation;
    #skills;

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
      this.#host = new Host(this, kit, args);
      this.defaultTimeout = this.#host.defaultTimeout;
      instances.set(id, this);
    }

    // ---- tools -----------------------------------------------------------------------------
    async listToolsWithErrors(options) {
      return toolsets.toolsets(this.#host, options, 'tools', 'MCP_CLIENT_GET_TOOLS_FAILED');
    }

    async listTools() {
      return (await this.listToolsWithErrors()).tools;
    }

    async listToolsetsWithErrors(options) {
      return toolsets.toolsets(this.#host, options, 'toolsets', 'MCP_CLIENT_GET_TOOLSETS_FAILED');
    }

    async listToolsets() {
      return (await this.listToolsetsWithErrors()).toolsets;
    }

    async listToolDefinitionsWithErrors(options) {
      return toolsets.definitions(this.#host, options);
    }

    async listToolDefinitions() {
      return (await this.listToolDefinitionsWithErrors()).definitions;
    }

    async toolFromDefinition({ serverName, definition }) {
      return toolsets.hydrate(this.#host, serverName, definition, kit.loadCoreTools);
    }

    async toolsFromDefinitions({ definitions }) {
      return toolsets.hydrateAll(this.#host, definitions);
    }

    // ---- instructions, stderr, lifecycle --------------------------------------------------
    getServerInstructions() {
      return byServer(this.#host.native.instructionsNow());
    }

    /**
     * Each server's negotiated protocol revision (`'2026-07-28'`, `'2025-11-25'`, …), `undefined`
     * while not connected. Synchronous, as in `@mastra/mcp` 2.0.
     */
    getServerProtocolVersions() {
      return byServer(this.#host.native.protocolVersionsNow());
    }

    /**
     * Connects a server if needed and returns its session: `{ serverVersion, instructions,
     * protocolVersion }`. An extension of @mastra/mcp (the CLI's `servers` command uses it).
     */
    async getServerSessionInfo(serverName) {
      this.#host.requireServer(serverName);
      const info = await nativeCall(this.#host.native.connect(serverName));
      return { serverVersion: info.serverVersion ?? undefined, instructions: info.instructions ?? undefined, protocolVersion: info.protocolVersion };
    }

    getServerStderr(serverName) {
      return this.#host.stderr.get(serverName) ?? null;
    }

    async reconnectServer(serverName) {
      this.#host.requireServer(serverName);
      await nativeCall(this.#host.native.reconnect(serverName));
    }

    async disconnect() {
      return disconnect(this.#host, () => {
        if (instances.get(this.id) === this) instances.delete(this.id);
      });
    }

    // ---- resources, prompts and handlers (each object built once per client, on first access)
    get resources() {
      return (this.#resources ??= actions.resources(this.#host));
    }

    get prompts() {
      return (this.#prompts ??= actions.prompts(this.#host));
    }

    get tools() {
      return (this.#tools ??= actions.tools(this.#host));
    }

    get progress() {
      return (this.#progress ??= actions.progress(this.#host));
    }

    get elicitation() {
      return (this.#elicitation ??= actions.elicitation(this.#host));
    }

    /** The servers' skills (SEP-2640): listed, loaded and read, each file verified (`./skills.cjs`). */
    get skills() {
      return (this.#skills ??= skills(this.#host));
    }

    get sessionIds() {
      return this.#host.native.sessionIds();
    }

    toMCPServerProxies() {
      const proxies = {};
      for (const name of Object.keys(this.#host.servers)) {
        proxies[name] = new MCPClientServerProxy({ name, id: name }, this, name);
      }
      return proxies;
    }

    // ---- auth ------------------------------------------------------------------------------
    /** `'needs-auth'` after an authorization rejection, `'authorized'` once accepted. */
    getServerAuthState(serverName) {
      return auth.authState(this.#host, serverName);
    }

    /**
     * Runs the browser OAuth flow for a server (loopback callback server, token exchange,
     * reconnect). Concurrent calls join one flow.
     */
    authenticate(serverName, options = {}) {
      return auth.authenticate(this.#host, serverName, options);
    }

    /** Aborts a pending `authenticate()`; `false` when none is pending. */
    async cancelAuthentication(serverName) {
      return auth.cancelAuthentication(this.#host, serverName);
    }
  }

  return { MCPClient, MCPClientServerProxy };
}

module.exports = { createMCPClientClass };

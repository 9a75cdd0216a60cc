'use strict';
// MCPClientServerProxy: presents one remote server as a Mastra MCPServerBase (for registering a
// client's servers on a Mastra instance). Listing and execution go through the owning MCPClient
// (`new MCPClientServerProxy(config, mcpClient, serverName)`, as `toMCPServerProxies()` builds it)
// or, as `@mastra/mcp` builds it, through an `InternalMastraMCPClient` getter
// (`new MCPClientServerProxy({ name }, async () => internalClient)`).

/** One server's tools and resources, through an MCPClient or an InternalMastraMCPClient getter. */
function serverSource(client, serverName) {
  if (typeof client === 'function') {
    let cached;
    const internal = async () => (cached ??= await client());
    return {
      toolset: async () => (await internal()).tools(),
      resources: async () => (await internal()).resources.list(),
      read: async (uri) => (await internal()).resources.read(uri),
      forget: () => {
        cached = undefined;
      },
    };
  }
  return {
    toolset: async () => (await client.listToolsets())[serverName] ?? {},
    resources: async () => (await client.resources.list())[serverName] ?? [],
    read: (uri) => client.resources.read(serverName, uri),
    forget: () => {},
  };
}

function createServerProxyClass(deps) {
  const { MCPServerBase } = deps;

  class MCPClientServerProxy extends MCPServerBase {
    #source;
    #server;
    #toolList;

    constructor(config, client, serverName) {
      super({ ...config, version: config.version ?? '1.0.0', tools: {} });
      this.#server = serverName ?? config.name;
      this.#source = serverSource(client, this.#server);
    }

    convertTools() {
      return {};
    }

    #toolset() {
      return this.#source.toolset();
    }

    getToolListInfo() {
      if (this.#toolList) return this.#toolList;
      return this.#toolset().then((tools) => {
        this.#toolList = {
          tools: Object.entries(tools).map(([rawName, tool]) => ({
            id: rawName,
            name: tool.id,
            description: tool.description,
            inputSchema: tool.inputSchema?.['~standard']?.jsonSchema?.input?.({ target: 'draft-07' }) ?? tool.inputSchema,
            outputSchema: tool.outputSchema,
            toolType: tool.mcp?.toolType,
            _meta: tool.mcp?._meta,
          })),
        };
        this.convertedTools = tools;
        return this.#toolList;
      });
    }

    getToolInfo(toolId) {
      const list = this.#toolList?.tools ?? [];
      return list.find((t) => t.id === toolId || t.name === toolId);
    }

    async executeTool(toolId, args, executionContext) {
      const tools = await this.#toolset();
      const tool = tools[toolId] ?? Object.values(tools).find((t) => t.id === toolId);
      if (!tool) throw new Error(`Tool '${toolId}' not found on remote MCP server '${this.#server}'`);
      if (typeof tool.execute !== 'function') {
        throw new Error(`Tool '${toolId}' on remote MCP server '${this.#server}' has no execute method`);
      }
      return tool.execute(args, executionContext);
    }

    async listResources() {
      const resources = await this.#source.resources();
      return {
        resources: (resources ?? []).map((r) => ({
          uri: r.uri,
          name: r.name ?? r.uri,
          description: r.description,
          mimeType: r.mimeType,
          _meta: r._meta,
        })),
      };
    }

    /**
     * One read, straight through (no listing first): every text and blob item, empty ones too,
     * each with the requested URI when it names none, and MCP Apps' `_meta` (of each item and of
     * the result) as the transport returned it.
     */
    async readResource(uri) {
      const result = await this.#source.read(uri);
      return {
        contents: (result?.contents ?? []).map((c) => ({
          uri: c.uri ?? uri,
          ...(c.mimeType !== undefined ? { mimeType: c.mimeType } : {}),
          ...(c.text !== undefined ? { text: c.text } : {}),
          ...(c.blob !== undefined ? { blob: c.blob } : {}),
          ...(c._meta !== undefined ? { _meta: c._meta } : {}),
        })),
        ...(result?._meta !== undefined ? { _meta: result._meta } : {}),
      };
    }

    async startStdio() {
      throw new Error('MCPClientServerProxy does not support stdio transport');
    }
    async startSSE() {
      throw new Error('MCPClientServerProxy does not support SSE transport');
    }
    async startHonoSSE() {
      throw new Error('MCPClientServerProxy does not support Hono SSE transport');
    }
    async startHTTP() {
      throw new Error('MCPClientServerProxy does not support HTTP transport');
    }
    async close() {
      this.#toolList = undefined;
      this.#source.forget();
    }

    getServerInfo() {
      return {
        id: this.id,
        name: this.name,
        description: this.description,
        version_detail: { version: this.version, release_date: this.releaseDate, is_latest: this.isLatest },
      };
    }

    getServerDetail() {
      return { ...this.getServerInfo(), packages: [], remotes: [] };
    }
  }

  return MCPClientServerProxy;
}

module.exports = { createServerProxyClass };

import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import type { MCPServerBase } from '@mastra/core/mcp';
import type { Tool } from '@mastra/core/tools';
import {
  MCPClient,
  MCPOAuthClientProvider,
  InMemoryOAuthStorage,
  createSimpleTokenProvider,
  createOAuthCallbackServer,
  getCallbackUrlCandidates,
  UnauthorizedError,
  getMcpCallToolContent,
  getMcpCallToolMeta,
  MCP_CALL_TOOL_CONTENT,
  MCP_CALL_TOOL_META,
  MCPClientServerProxy,
} from '../../index.js';
import type {
  OAuthStorage,
  MastraMCPServerDefinition,
  MCPClientOptions,
  LogHandler,
  LogMessage,
  LoggingLevel,
  ElicitationHandler,
  ProgressHandler,
  MastraFetchLike,
  RequireToolApproval,
  RequireToolApprovalFn,
  RequireToolApprovalContext,
  ToolAnnotations,
  SerializableMCPToolDefinition,
  SerializableMCPToolCatalog,
  MCPDiscoveryErrorDetails,
  MCPDiscoveryOptions,
  MCPServerAuthState,
  Root,
  OAuthClientProvider,
  OAuthClientMetadata,
  OAuthClientInformation,
  OAuthClientInformationFull,
  OAuthTokens,
  OAuthCallbackServerOptions,
  OAuthCallbackResult,
  OAuthCallbackServer,
  MCPOAuthClientProviderOptions,
  Resource,
  ResourceTemplate,
  InternalMastraMCPClientOptions,
  AuthResult,
  OAuthMetadata,
  OAuthProtectedResourceMetadata,
  AuthorizationServerMetadata,
  OAuthErrorResponse,
  OAuthClientRegistrationError,
  OAuthTokenRevocationRequest,
} from '../../index.js';

declare const model: any;

// --- constructor & server definitions (docs examples) ---
const mcp = new MCPClient({
  id: 'my-mcp-client',
  servers: {
    stockPrice: {
      command: 'npx',
      args: ['tsx', 'stock-price.ts'],
      env: { API_KEY: 'your-api-key' },
      log: logMessage => {
        console.log(`[${logMessage.level}] ${logMessage.message}`);
      },
      stderr: 'pipe',
      cwd: '/tmp',
      inheritDefaultEnv: false,
      roots: [{ uri: 'file:///tmp', name: 'Temp' }],
    },
    weather: {
      url: new URL('http://localhost:8080/sse'),
      requestInit: { headers: { Authorization: `Bearer user-123-token` } },
      timeout: 20000,
      enableProgressTracking: true,
      forwardInstructions: true,
      instructionsMaxLength: 512,
      allowedHosts: ['localhost:8080'],
      protocolVersion: 'auto',
      onToolError: 'return',
      connectTimeout: 5000,
    },
    github: {
      url: new URL('http://localhost:3000/mcp'),
      requireToolApproval: ({ toolName, args, requestContext, annotations }) => {
        if (toolName === 'list_repos') return false;
        if (annotations?.readOnlyHint) return false;
        if (toolName === 'delete_repo') return args.force === true;
        return requestContext?.userRole !== 'admin';
      },
    },
    apiServer: {
      url: 'https://api.example.com/mcp',
      fetch: async (url, init, requestContext) => {
        const headers = new Headers(init?.headers);
        const cookie = requestContext?.get('cookie') as string | undefined;
        if (cookie) headers.set('cookie', cookie);
        return fetch(url, { ...init, headers });
      },
    },
    sse: {
      url: new URL('https://your-mcp-server.com/sse'),
      requestInit: { headers: { Authorization: 'Bearer your-token' } },
      eventSourceInit: {
        fetch(input: Request | URL | string, init?: RequestInit) {
          const headers = new Headers(init?.headers || {});
          headers.set('Authorization', 'Bearer your-token');
          return fetch(input, { ...init, headers });
        },
      },
    },
  },
  timeout: 30000,
});

// @ts-expect-error stdio and http options cannot be mixed
const bad: MastraMCPServerDefinition = { command: 'node', url: new URL('http://x') };
// @ts-expect-error servers is required
const badOpts: MCPClientOptions = {};

// --- tools ---
async function tools() {
  const agent = new Agent({
    id: 'multi-tool-agent',
    name: 'Multi-tool Agent',
    instructions: 'You have access to multiple tool servers.',
    model,
    tools: await mcp.listTools(),
  });
  const { tools, errors, errorDetails, durations } = await mcp.listToolsWithErrors({ perServerTimeoutMs: 3_000 });
  new Agent({ id: 'agent', name: 'a', instructions: 'x', model, tools });
  const d: MCPDiscoveryErrorDetails | undefined = errorDetails.weather;
  console.log(errors, d?.httpStatus, d?.code, durations?.weather);
  const res = await agent.stream('How is AAPL doing?', { toolsets: await mcp.listToolsets() });
  const { toolsets } = await mcp.listToolsetsWithErrors();
  await agent.generate('hi', { toolsets });
  const definitions = await mcp.listToolDefinitions();
  const json = JSON.stringify(definitions);
  const parsed: SerializableMCPToolCatalog = JSON.parse(json);
  const def: SerializableMCPToolDefinition = parsed.weather!.getForecast!;
  console.log(def.name, def.server.name, def.annotations?.readOnlyHint);
  const tool = await mcp.toolFromDefinition({ serverName: 'weather', definition: def });
  const t2: Tool<any, any, any, any> = tool;
  new Agent({ id: 'agent2', name: 'b', instructions: 'x', model, tools: await mcp.toolsFromDefinitions({ definitions: parsed }) });
  const withErr = await mcp.listToolDefinitionsWithErrors({ perServerTimeoutMs: 1000 });
  if (Object.keys(withErr.errors).length === 0) console.log(withErr.definitions);
  void res; void t2;
}

// --- resources / prompts / elicitation / progress ---
async function more() {
  const resourcesByServer = await mcp.resources.list();
  const first = resourcesByServer.weather?.[0];
  if (first) {
    const data = await mcp.resources.read('weather', first.uri);
    const c = data.contents[0];
    // The documented `contents[0].text` reads as `string | undefined` (undefined on blob contents).
    if (c?.text !== undefined) console.log(c.text.toUpperCase());
    console.log(data.contents[0].text, data.contents[0].blob);
  }
  const { resources, errors, errorDetails } = await mcp.resources.listWithErrors({ perServerTimeoutMs: 3_000 });
  const r: Resource[] | undefined = resources.weather;
  const { templates } = await mcp.resources.templatesWithErrors();
  const tpl: ResourceTemplate | undefined = (await mcp.resources.templates()).weather?.[0];
  console.log(r, errors, errorDetails, templates, tpl?.uriTemplate);
  await mcp.resources.subscribe('myWeatherServer', 'weather://current');
  await mcp.resources.unsubscribe('myWeatherServer', 'weather://current');
  mcp.resources.onUpdated('myWeatherServer', params => console.log(params.uri));
  mcp.resources.onListChanged('myWeatherServer', () => {});

  const promptsByServer = await mcp.prompts.list();
  const cur = promptsByServer.weather?.find(p => p.name === 'current');
  console.log(cur?.arguments?.[0]?.required);
  const { prompt, messages, description } = await mcp.prompts.get({
    serverName: 'myWeatherServer',
    name: 'current',
    args: { location: 'London' },
    version: 'v1',
  });
  for (const m of messages) {
    if (m.content.type === 'text') console.log(m.role, m.content.text);
  }
  console.log(prompt?.name, description);
  await mcp.prompts.listWithErrors();
  await mcp.prompts.onListChanged('s', () => {});
  await mcp.tools.onListChanged('s', async () => { await mcp.listTools(); });

  await mcp.elicitation.onRequest('interactiveServer', async request => {
    console.log(`Server requests: ${request.message}`);
    // Form mode is what the client advertises: the request always carries requestedSchema.
    const schema = request.requestedSchema;
    const properties = schema.properties || {};
    const required = schema.required || [];
    const content: Record<string, any> = {};
    for (const [fieldName, fieldSchema] of Object.entries(properties)) {
      const field = fieldSchema as any;
      if (required.includes(fieldName)) content[fieldName] = field.title ?? fieldName;
    }
    if (Object.keys(content).length === 0) return { action: 'cancel' };
    return { action: 'accept', content };
  });

  await mcp.progress.onUpdate('myServer', params => {
    console.log('Progress:', params.progress, '/', params.total);
    if (params.message) console.log('Message:', params.message);
    if (params.progressToken) console.log('Token:', params.progressToken);
  });

  const handler: ElicitationHandler = async () => ({ action: 'accept', content: { name: 'x', n: 1, ok: true, tags: ['a'] } });
  const ph: ProgressHandler = p => void p.progress;
  await mcp.elicitation.onRequest('s', handler);
  await mcp.progress.onUpdate('s', ph);
}

// --- lifecycle, instructions, auth, proxies ---
async function lifecycle() {
  const instructionsByServer = mcp.getServerInstructions();
  const s: string | undefined = instructionsByServer.db;
  const ids: Record<string, string> = mcp.sessionIds;
  const stderr = mcp.getServerStderr('stockPrice');
  stderr?.on('data', chunk => console.log(String(chunk)));
  await mcp.reconnectServer('weather');
  const state: MCPServerAuthState | undefined = mcp.getServerAuthState('protectedServer');
  if (state === 'needs-auth') await mcp.authenticate('protectedServer', { timeoutMs: 60_000 });
  const cancelled: boolean = await mcp.cancelAuthentication('protectedServer');
  console.log(s, ids, cancelled);

  const proxies = mcp.toMCPServerProxies();
  const asBase: Record<string, MCPServerBase> = proxies;
  const p0: MCPClientServerProxy | undefined = proxies['color-mixer'];
  const info = await p0?.getToolListInfo();
  console.log(info?.tools.map(t => t.name), asBase);
  const mastra = new Mastra({ mcpServers: { ...(await mcp.toMCPServerProxies()) } });
  const mastra2 = new Mastra({ mcpServers: proxies });
  void mastra; void mastra2;
  // As @mastra/mcp builds a proxy: over an InternalMastraMCPClient getter.
  const { InternalMastraMCPClient } = await import('../../index.js');
  const internal = new InternalMastraMCPClient({ name: 'color-mixer', server: { command: 'node' } });
  const viaGetter: MCPServerBase = new MCPClientServerProxy({ name: 'color-mixer' }, async () => internal);
  void viaGetter;
  await mcp.disconnect();
}

// --- OAuth ---
class DatabaseOAuthStorage implements OAuthStorage {
  private m = new Map<string, string>();
  async set(key: string, value: string): Promise<void> { this.m.set(key, value); }
  async get(key: string): Promise<string | undefined> { return this.m.get(key); }
  async delete(key: string): Promise<void> { this.m.delete(key); }
}

async function oauth() {
  const oauthProvider = new MCPOAuthClientProvider({
    redirectUrl: 'http://127.0.0.1:5533/oauth/callback',
    clientMetadata: {
      redirect_uris: ['http://127.0.0.1:5533/oauth/callback'],
      client_name: 'My MCP Client',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    onRedirectToAuthorization: url => { console.log(`Please visit: ${url}`); },
    storage: new DatabaseOAuthStorage(),
  });
  const p2 = new MCPOAuthClientProvider({
    redirectUrl: new URL('http://localhost:3000/callback'),
    clientMetadata: { redirect_uris: [] },
    storage: new InMemoryOAuthStorage(),
    stateGenerator: () => crypto.randomUUID(),
  });
  const client = new MCPClient({
    id: 'oauth',
    servers: {
      protectedServer: { url: new URL('https://mcp.example.com/mcp'), authProvider: oauthProvider },
      other: { url: 'https://mcp.example.com', authProvider: p2 },
      token: {
        url: new URL('https://mcp.example.com/mcp'),
        authProvider: createSimpleTokenProvider('your-access-token', {
          redirectUrl: 'http://localhost:3000/callback',
          clientMetadata: { redirect_uris: ['http://localhost:3000/callback'], client_name: 'Test Client' },
        }),
      },
      bearer: { url: new URL('https://x.example/mcp'), authProvider: { token: async () => 'abc' } },
    },
  });
  try {
    await client.listTools();
  } catch (e) {
    if (e instanceof UnauthorizedError) console.log(e.message);
    if (client.getServerAuthState('protectedServer') === 'needs-auth') await client.authenticate('protectedServer');
  }
  const tokens: OAuthTokens | undefined = await oauthProvider.tokens();
  const info: OAuthClientInformation | undefined = await oauthProvider.clientInformation();
  const valid: boolean = await oauthProvider.hasValidTokens();
  const st: string = await oauthProvider.beginAuthorizationSession();
  oauthProvider.endAuthorizationSession();
  await oauthProvider.invalidateCredentials('tokens');
  await oauthProvider.clear();
  const asProvider: OAuthClientProvider = oauthProvider;
  console.log(tokens?.access_token, info?.client_id, valid, st, asProvider.redirectUrl);

  const redirectUris = getCallbackUrlCandidates('http://127.0.0.1:5533/oauth/callback').map(url => url.toString());
  const server: OAuthCallbackServer = await createOAuthCallbackServer({
    redirectUrl: 'http://127.0.0.1:5533/oauth/callback',
    state: 'expected',
  });
  oauthProvider.applyResolvedRedirectUrl(server.url, redirectUris);
  try {
    const { code, state }: OAuthCallbackResult = await server.waitForCode({ timeoutMs: 1000 });
    console.log(code, state, server.port);
  } finally {
    await server.close();
  }
}

// custom provider implementing the exported interface
class MyProvider implements OAuthClientProvider {
  get redirectUrl() { return 'http://localhost/cb'; }
  get clientMetadata(): OAuthClientMetadata { return { redirect_uris: ['http://localhost/cb'] }; }
  clientInformation() { return undefined; }
  tokens(): OAuthTokens | undefined { return { access_token: 'a', token_type: 'Bearer' }; }
  saveTokens(_t: OAuthTokens) {}
  redirectToAuthorization(_u: URL) {}
  saveCodeVerifier(_v: string) {}
  codeVerifier() { return 'v'; }
}
new MCPClient({ id: 'mine', servers: { s: { url: new URL('http://x'), authProvider: new MyProvider() } } });

// --- types & helpers ---
const levels: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const logger: LogHandler = (m: LogMessage) => console.log(m.level, m.serverName, m.timestamp.toISOString(), m.details);
const f: MastraFetchLike = (u, i) => fetch(u, i);
const approvalFn: RequireToolApprovalFn = async (ctx: RequireToolApprovalContext) => !ctx.annotations?.readOnlyHint;
const approval: RequireToolApproval = approvalFn;
const ann: ToolAnnotations = { title: 't', destructiveHint: true };
const roots: Root[] = [{ uri: 'file:///x' }];
const disc: MCPDiscoveryOptions = { perServerTimeoutMs: 10 };
const internalOpts: InternalMastraMCPClientOptions = { name: 'x', server: { command: 'node' } };
const cbOpts: OAuthCallbackServerOptions = { redirectUrl: new URL('http://127.0.0.1:1/cb'), state: 's' };
const provOpts: MCPOAuthClientProviderOptions = { redirectUrl: 'x', clientMetadata: { redirect_uris: [] } };
const full: OAuthClientInformationFull = { client_id: 'id', redirect_uris: [] };
const meta: OAuthMetadata | undefined = undefined;
const prm: OAuthProtectedResourceMetadata = { resource: 'https://x' };
const asm: AuthorizationServerMetadata | undefined = meta;
const er: OAuthErrorResponse = { error: 'invalid_grant' };
const reg: OAuthClientRegistrationError = { error: 'x' };
const rev: OAuthTokenRevocationRequest = { token: 't' };
const sym1: typeof MCP_CALL_TOOL_CONTENT = MCP_CALL_TOOL_CONTENT;
const sym2: symbol = MCP_CALL_TOOL_META;
const out: unknown = { a: 1 };
const content = getMcpCallToolContent(out);
const metaOut: Record<string, unknown> | undefined = getMcpCallToolMeta(out);
new MCPClient({ servers: { s: { command: 'node', logger, requireToolApproval: approval, roots } } });

export { tools, more, lifecycle, oauth, levels, f, ann, disc, internalOpts, cbOpts, provOpts, full, prm, asm, er, reg, rev, sym1, sym2, content, metaOut, bad, badOpts };

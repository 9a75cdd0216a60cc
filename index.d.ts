/**
 * Public type declarations for `mastra-mcp-native`.
 *
 * This package is a drop-in replacement for the *client side* of `@mastra/mcp`:
 * the API surface of version 1.18.0, plus the client-side names 2.0 adds. A
 * TypeScript project that does `import { MCPClient, ... } from '@mastra/mcp'`
 * should type-check unchanged when that specifier resolves to this package.
 *
 * Map of this file (each group opens with a `// ===` banner; search for its title):
 *   1. MCPClient and its options
 *   2. Server definitions (stdio, HTTP, options shared by both)
 *   3. Tools (incl. the typed-tools block, `MCPClient<Contracts>`)
 *   4. Resources
 *   5. Prompts
 *   6. Elicitation and progress
 *   7. Errors
 *   8. OAuth (provider and storage, callback server, flow functions,
 *      server-side helpers, protocol shapes)
 *   9. InternalMastraMCPClient and MCPClientServerProxy
 *  10. MCP config files (`fromConfig`, `parseMCPConfig`, ...)
 *  11. @mastra/mcp 2.0 names (protocol revision, input requests, trace context)
 *  12. CLI / typegen (`generateToolTypes`)
 *  13. MCP protocol building blocks (content blocks, `_meta`, icons, ...)
 * A type may be used above the group that declares it (order does not matter in a declaration file).
 *
 * Design notes
 * ------------
 * - This file is self-contained: the package does not depend on any
 *   `@modelcontextprotocol/*` package, so every MCP protocol / OAuth shape that
 *   appears in the public API is declared here structurally. The shapes follow
 *   the MCP specification (and the TypeScript SDK's inferred types) closely
 *   enough that values typed with the SDK's own types remain assignable in both
 *   directions. Objects that the protocol leaves open carry an index signature.
 * - `@mastra/core` is a peer dependency; its classes/types (MastraBase, Tool,
 *   RequestContext, MCPServerBase, ...) are imported from its public subpath
 *   exports: `@mastra/core/base`, `/di`, `/tools`, `/mcp`, `/agent`.
 * - `@types/node` is expected to be present (as it is in every Mastra project)
 *   for `Stream` (see `MCPClient#getServerStderr`).
 *
 * Deliberate differences from @mastra/mcp 1.18.0 (all widen what callers may
 * pass, or narrow what they receive, so existing code keeps compiling):
 * - server definitions also accept `log` (documented alias of `logger`) and a
 *   string `url`;
 * - `prompts.get` also accepts `version` and its result may carry `prompt`;
 * - `toMCPServerProxies()` is typed as returning `MCPClientServerProxy`
 *   instances (a subclass of `MCPServerBase`, as in the original runtime);
 * - extensions neither 1.18 nor 2.0 has: `preferTasks`, `getServerSessionInfo`,
 *   MCP config files (`MCPClient.fromConfig`, `parseMCPConfig`, ...), typed tools
 *   (`MCPClient<MCPServers>`, `generateToolTypes`).
 *
 * Behaviour worth knowing when reading 2.0's own typings next to these:
 * - `protocolVersion` omitted means the `initialize` handshake first, as 1.18
 *   (a modern-only server that refuses it gets `server/discover` next);
 *   `'auto'` selects 2.0's default, probing with `server/discover` first.
 * - `disconnect()` ends a Streamable HTTP session with HTTP DELETE once its GET
 *   stream is closed (neither 1.18 nor 2.0 ends it at all).
 *
 * The MCP SDK's OAuth functions that @mastra/mcp re-exports (auth, discover*,
 * startAuthorization, exchangeAuthorization, ...) and its server-side OAuth helpers
 * (generateWWWAuthenticateHeader, generateProtectedResourceMetadata,
 * extractBearerToken) are declared in the OAuth group; each runs as a step of the
 * Rust OAuth engine.
 *
 * Server-side exports of @mastra/mcp 1.18.0 that are intentionally NOT declared
 * here (this package implements the client only):
 *   - classes:   MCPServer, MastraApiMCPServer
 *   - functions: createOAuthMiddleware, createStaticTokenValidator,
 *                createIntrospectionValidator
 *   - types:     MastraApiMCPServerOptions, MCPServerProtocolVersion,
 *                MCPServerCacheableMethod, MCPServerCacheHints,
 *                MCPServerResourceContentCallback, MCPServerResourceContent,
 *                MCPServerResources, MastraPrompt,
 *                MCPServerPromptMessagesCallback, MCPServerPrompts,
 *                ElicitationActions, MCPRequestHandlerExtra, AppResource,
 *                AppResources, RequestOptions, OAuthMiddlewareOptions,
 *                OAuthMiddlewareResult
 * (`Resource` and `ResourceTemplate`, which 1.18 exports from its server
 * module, are plain protocol types and ARE declared below.)
 */

import type { Stream } from 'node:stream';
import { MastraBase } from '@mastra/core/base';
import type { RequestContext } from '@mastra/core/di';
import type { Tool } from '@mastra/core/tools';
import type { ToolsInput } from '@mastra/core/agent';
import { MCPServerBase } from '@mastra/core/mcp';
import type {
  MCPServerConfig,
  MCPServerHonoSSEOptions,
  MCPServerHTTPOptions,
  MCPServerSSEOptions,
  MCPToolType,
  ServerDetailInfo,
  ServerInfo,
} from '@mastra/core/mcp';

// ===========================================================================
// 1. MCPClient and its options
// ===========================================================================

/** Options of {@link MCPClient}'s constructor: the servers, an optional `id` and a default timeout. */
export interface MCPClientOptions<TServers extends MCPServerContractsOf<TServers> = MCPServerContracts> {
  /**
   * Unique id. Needed when several clients are created with identical
   * `servers` (otherwise the constructor throws to prevent leaks).
   */
  id?: string;
  /** Servers keyed by the name used to namespace their tools (exactly the declared ones when typed). */
  servers: MCPClientServers<TServers>;
  /**
   * Default timeout in milliseconds for all servers.
   * @default 60000
   */
  timeout?: number;
  /**
   * OpenTelemetry client spans and the `mcp.client.operation.duration` histogram (MCP semantic conventions),
   * recorded only when the app has registered a tracer or meter provider through the optional peer
   * `@opentelemetry/api`; `false` turns them off for this client (see docs/observability.md).
   * @default true
   */
  telemetry?: boolean;
  /**
   * Where OAuth credentials outlive the process: every server whose {@link MCPOAuthClientProvider} was built
   * without a `storage` keeps its tokens and client registration in this store (under the server's URL, in
   * the store's scope — `store.forScope(userId)` for per-user clients), and refreshes them one process at a
   * time. See docs/credentials.md.
   */
  store?: MCPStore;
  /**
   * A tool lock (a path to the file `mastra-mcp lock` writes, or the parsed lock): the tools of each
   * server it names are held to their reviewed definitions. A tool whose definition differs, or that
   * the lock does not list for a pinned server, is handled as {@link MCPClientOptions.onToolDrift}
   * says. See docs/tool-safety.md.
   */
  toolLock?: string | URL | MCPToolLock;
  /**
   * What a drifted tool of a pinned server becomes: `'block'` withholds it from `listTools*()` (reported
   * under code `TOOL_DRIFT` in `listToolsWithErrors()`; a tool handed out earlier rejects its calls with
   * that code), `'approve'` keeps it behind Mastra's tool approval, `'warn'` keeps it and logs.
   * @default 'block' (when a toolLock is given)
   */
  onToolDrift?: 'block' | 'approve' | 'warn';
}

/**
 * Manages connections to several MCP servers and exposes their tools,
 * resources and prompts to Mastra.
 *
 * @example
 * ```ts
 * const mcp = new MCPClient({
 *   servers: {
 *     fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
 *     weather: { url: new URL('https://weather.example.com/mcp') },
 *   },
 * });
 * const agent = new Agent({ id: 'a', name: 'A', instructions: '...', model, tools: await mcp.listTools() });
 * ```
 */
export declare class MCPClient<TServers extends MCPServerContractsOf<TServers> = MCPServerContracts> extends MastraBase {
  /**
   * Creates a client for `servers`; nothing connects until first use. Throws when a live client
   * already has identical `servers` and no `id` was given (a leak guard); with the same `id` and
   * equal `servers` the existing client is returned.
   */
  constructor(args: MCPClientOptions<TServers>);

  /**
   * A client for the servers of an MCP config object — the content of a Claude Desktop,
   * Claude Code, Cursor, VS Code or Windsurf `mcp.json` (`mcpServers` or `servers`). Entries
   * with `disabled: true` are left out. Throws {@link MCPConfigError} naming the server and field.
   */
  static fromConfig(config: Record<string, unknown>, options?: MCPConfigClientOptions): MCPClient;
  /**
   * Reads an MCP config file and returns a client for its servers. The dialect is guessed from
   * the file's name (`claude_desktop_config.json`, `.mcp.json`, `.vscode/mcp.json`,
   * `.cursor/mcp.json`, Windsurf's `mcp_config.json`) and its top-level key, or set with
   * `options.format`. Rejects with {@link MCPConfigError} naming the file, server and field.
   */
  static fromConfigFile(path: string | URL, options?: MCPConfigClientOptions): Promise<MCPClient>;

  /**
   * Connects a server if needed and returns its session: version, instructions and the
   * negotiated protocol version. (An extension: `@mastra/mcp` has no such method.)
   */
  getServerSessionInfo(serverName: string): Promise<MCPServerSessionInfo>;

  /** Progress notifications: register a handler per server (`progress.onUpdate`). */
  get progress(): MCPClientProgressActions;
  /** Elicitation (server -> user input requests): register a handler per server (`elicitation.onRequest`). */
  get elicitation(): MCPClientElicitationActions;
  /** Resource operations across servers: list, read, subscribe, templates. */
  get resources(): MCPClientResourceActions;
  /** Prompt operations across servers: list and get. */
  get prompts(): MCPClientPromptActions;
  /** Tool list change notifications (use `listTools`/`listToolsets` to fetch tools). */
  get tools(): MCPClientToolActions;
  /**
   * The servers' skills (SEP-2640, `io.modelcontextprotocol/skills`): listed, confirmed by URI,
   * loaded and read, every file verified against its entry. (An extension: not in `@mastra/mcp`.)
   */
  get skills(): MCPClientSkillActions;
  /** Streamable HTTP session id per connected server (a 2026-07-28 session has none). */
  get sessionIds(): Record<string, string>;

  /**
   * Closes every connection (stops stdio children) and releases resources; a Streamable HTTP
   * session is ended with HTTP DELETE after its GET stream closed (`@mastra/mcp` leaves it open).
   */
  disconnect(): Promise<void>;
  /** Drops and re-establishes the connection to one server. */
  reconnectServer(serverName: string): Promise<void>;

  /**
   * Runs the interactive OAuth authorization-code flow for a server whose
   * `MCPOAuthClientProvider` uses a loopback redirect URL, then reconnects.
   * `timeoutMs` (default 5 minutes) bounds the wait for the browser.
   */
  authenticate(serverName: string, options?: { timeoutMs?: number }): Promise<void>;
  /** OAuth state of a server; `undefined` without an auth provider or before any attempt. */
  getServerAuthState(serverName: string): MCPServerAuthState | undefined;
  /** Aborts a pending `authenticate()`; resolves `true` when a flow was cancelled. */
  cancelAuthentication(serverName: string): Promise<boolean>;

  /** Instructions each server returned at initialization (`undefined` if none/not connected). */
  getServerInstructions(): Record<string, string | undefined>;
  /**
   * Each server's negotiated protocol revision (`'2026-07-28'`, `'2025-11-25'`, …); `undefined` while not
   * connected. As in `@mastra/mcp` 2.0.
   */
  getServerProtocolVersions(): Record<string, string | undefined>;

  /** Every server's tools, keyed `serverName_toolName`. */
  listTools(): Promise<MCPTypedTools<TServers>>;
  /** Like `listTools`, also reporting servers that failed. */
  listToolsWithErrors(options?: MCPDiscoveryOptions): Promise<MCPTypedToolsWithErrors<TServers>>;
  /** Tools grouped by server name (for `toolsets` in `generate`/`stream`). */
  listToolsets(): Promise<MCPTypedToolsets<TServers>>;
  /** Like `listToolsets`, also reporting servers that failed. */
  listToolsetsWithErrors(options?: MCPDiscoveryOptions): Promise<MCPTypedToolsetsWithErrors<TServers>>;
  /** Serializable tool catalog (server -> tool name -> definition). */
  listToolDefinitions(): Promise<SerializableMCPToolCatalog>;
  /** Like `listToolDefinitions`, also reporting servers that failed. */
  listToolDefinitionsWithErrors(options?: MCPDiscoveryOptions): Promise<MCPToolDefinitionsWithErrors>;
  /** Rebuilds one executable tool from a cached definition (connects lazily on first execute). */
  toolFromDefinition(args: { serverName: string; definition: SerializableMCPToolDefinition }): Promise<MCPTool>;
  /** Rebuilds a whole cached catalog into a `serverName_toolName` tool map. */
  toolsFromDefinitions(args: { definitions: SerializableMCPToolCatalog }): Promise<Record<string, MCPTool>>;

  /**
   * One `MCPServerBase` proxy per configured server, for registering external
   * servers in `new Mastra({ mcpServers })` (e.g. so Studio can show them).
   */
  toMCPServerProxies(): Record<string, MCPClientServerProxy>;

  /** stderr of a stdio server started with `stderr: 'pipe'`, else `null`. */
  getServerStderr(serverName: string): Stream | null;
}

/** A server's session as returned by {@link MCPClient.getServerSessionInfo}. */
export interface MCPServerSessionInfo {
  /** The version the server reported (`initialize` or `server/discover`). */
  serverVersion?: string;
  /** The instructions the server returned, if any. */
  instructions?: string;
  /** The negotiated protocol revision (`'2026-07-28'`, `'2025-11-25'`, …). */
  protocolVersion: string;
}

// ---------------------------------------------------------------------------
// Discovery options and per-server failures (the `*WithErrors` methods)
// ---------------------------------------------------------------------------

/** Options of the `*WithErrors` discovery methods: a per-server time budget. */
export interface MCPDiscoveryOptions {
  /** Per-server time budget in ms; slower servers are reported in `errors`. */
  perServerTimeoutMs?: number;
}

/** Structured description of why discovery failed for a server. */
export interface MCPDiscoveryErrorDetails {
  /** Human readable message (with `(HTTP nnn)` when a status is known). */
  message: string;
  /** HTTP status reported by the transport. */
  httpStatus?: number;
  /** Deepest error code found in the cause chain (`'TOOL_DRIFT'` for tools withheld by a tool lock). */
  code?: string | number;
  /** With code `TOOL_DRIFT`: each withheld tool and what changed. */
  drift?: MCPToolDrift[];
}

/** Per-server failure information shared by every `*WithErrors` result. */
export interface MCPDiscoveryErrors {
  /** Failure message per server name. */
  errors: Record<string, string>;
  /** Structured failure details per server name. */
  errorDetails: Record<string, MCPDiscoveryErrorDetails>;
  /** Discovery time in ms per server; present when options were passed. */
  durations?: Record<string, number>;
}

// ===========================================================================
// 2. Server definitions (stdio, HTTP, options shared by both)
// ===========================================================================

/**
 * Configuration of one MCP server: a definition with `command` uses stdio; one
 * with `url` uses Streamable HTTP with an SSE fallback.
 */
export type MastraMCPServerDefinition = StdioServerDefinition | HttpServerDefinition;

/** A server launched as a child process speaking MCP over stdio. */
export type StdioServerDefinition = BaseServerOptions & {
  /** Executable to launch (e.g. `npx`, `node`, `python`). */
  command: string;
  /** Arguments for the command. */
  args?: string[];
  /** Environment variables for the child process. */
  env?: Record<string, string>;
  /**
   * Start the child environment from the SDK's curated default whitelist
   * (`HOME`, `PATH`, ...). When `false`, only `env` is passed.
   * @default true
   */
  inheritDefaultEnv?: boolean;
  /**
   * What to do with the child's stderr: `'inherit'` (default), `'pipe'`
   * (readable via `MCPClient#getServerStderr`) or `'ignore'`.
   */
  stderr?: StdioStderrMode;
  /** Working directory for the child process. */
  cwd?: string;
  url?: never;
  requestInit?: never;
  eventSourceInit?: never;
  authProvider?: never;
  reconnectionOptions?: never;
  sessionId?: never;
  connectTimeout?: never;
  fetch?: never;
  allowedHosts?: never;
};

/** A remote server reached over Streamable HTTP (falling back to legacy SSE). */
export type HttpServerDefinition = BaseServerOptions & {
  /** Endpoint of the MCP server. */
  url: URL | string;
  command?: never;
  args?: never;
  env?: never;
  inheritDefaultEnv?: never;
  stderr?: never;
  cwd?: never;
  /** Custom fetch used for every HTTP request made for this server. */
  fetch?: MastraFetchLike;
  /**
   * Allow-list of hosts (`URL.host`, exact, case-insensitive) this server's
   * requests may target, including redirects and OAuth traffic. `[]` denies all.
   */
  allowedHosts?: string[];
  /**
   * Init for every HTTP request made for this server: its `headers` go on each request, the SSE stream's GET
   * included (its other fields are not used).
   */
  requestInit?: RequestInit;
  /** Options for the SSE fallback's event stream. */
  eventSourceInit?: EventSourceInit;
  /** OAuth / bearer token provider. */
  authProvider?: AuthProvider | OAuthClientProvider;
  /** Streamable HTTP reconnection tuning (accepted for compatibility; the native transport does not read it). */
  reconnectionOptions?: StreamableHTTPReconnectionOptions;
  /** An existing Streamable HTTP session to resume (accepted and ignored, as in `@mastra/mcp`). */
  sessionId?: string;
  /**
   * Timeout (ms) for the connection phase before falling back from
   * Streamable HTTP to SSE.
   * @default 3000
   */
  connectTimeout?: number;
};

/** Options shared by every server definition (stdio and HTTP): logging, timeouts, approval, era, 2.0 hooks. */
export type BaseServerOptions = {
  /** Receives this server's log messages. */
  logger?: LogHandler;
  /** Alias of {@link BaseServerOptions.logger} (as used in the Mastra docs). */
  log?: LogHandler;
  /** Per-server request timeout in milliseconds (overrides the client-wide `timeout`). */
  timeout?: number;
  /** Capabilities to advertise to this server. */
  capabilities?: ClientCapabilities;
  /**
   * Forward the server's log notifications to `logger`.
   * @default true
   */
  enableServerLogs?: boolean;
  /**
   * The lowest level of server logs asked for in a 2026-07-28 session, where logs are a per-request opt-in
   * (`_meta` `io.modelcontextprotocol/logLevel`, sent while `enableServerLogs` is on). As in `@mastra/mcp` 2.0.
   * @default 'info' (as in `@mastra/mcp` 2.0)
   */
  serverLogLevel?: LoggingLevel;
  /**
   * `@mastra/mcp` 2.0: the W3C trace context (SEP-414) of the request being made. Called when each request
   * starts; its `traceparent`, `tracestate` and `baggage` go into the request's `_meta` in either protocol era
   * (`tools/call`, `resources/read`, `prompts/get`, and the `tools/list`, `resources/list`,
   * `resources/templates/list` and `prompts/list` requests of discovery). Explicit `_meta` keys of a tool call win.
   */
  traceContext?: () => MCPTraceContext | undefined;
  /**
   * `@mastra/mcp` 2.0: answers every request for input this server makes, in either era — each key of a
   * 2026-07-28 `input_required` result (once), a pushed `elicitation/create` (key: its request id), a task's
   * input request. Configuring it advertises `elicitation.form` (widen with `capabilities.elicitation`).
   * `signal` aborts when the call is aborted, times out (the server's `timeout`), or the client disconnects.
   * A handler registered with `elicitation.onRequest` for the same server takes precedence.
   */
  inputRequests?: MCPInputRequestHandler;
  /**
   * Attach a progress token to tool calls so the server can report progress
   * (see `MCPClient#progress`).
   * @default true
   */
  enableProgressTracking?: boolean;
  /**
   * Inject the instructions this server returns at initialization into the
   * system prompt of agents that use its tools. Only enable for trusted servers.
   * @default false
   */
  forwardInstructions?: boolean;
  /**
   * Maximum number of instruction characters forwarded per server.
   * @default 512
   */
  instructionsMaxLength?: number;
  /** Require human approval before this server's tools execute. */
  requireToolApproval?: RequireToolApproval;
  /**
   * How in-band tool failures (`isError: true`) are surfaced: `'throw'`
   * (default) raises an error carrying the server's content text, `'return'`
   * resolves with the raw result.
   * @default 'throw'
   */
  onToolError?: 'throw' | 'return';
  /**
   * Custom JSON Schema validator (e.g. for Cloudflare Workers). Accepted for compatibility; not used, as
   * schemas are validated natively.
   */
  jsonSchemaValidator?: JsonSchemaValidatorProvider;
  /** Filesystem roots exposed to the server (enables the `roots` capability). */
  roots?: Root[];
  /**
   * Run tools whose `execution.taskSupport` is `'optional'` as tasks too (MCP 2025-11-25 tasks: created,
   * followed and fetched for you; one result to the caller). Tools that require a task always run as one.
   * In the 2026-07-28 era the server decides which calls become tasks. An extension of `@mastra/mcp`.
   * @default false
   */
  preferTasks?: boolean;
  /**
   * Which of this server's tools the client offers: `include` (omitted: all) minus `exclude`, each a list
   * of the server's own tool names where `*` matches any run of characters. Applied before namespacing, to
   * `listTools`, `listToolsets`, the definitions and `toMCPServerProxies`; a tool left out is not callable
   * through this client. `exclude` wins over `include`. An extension of `@mastra/mcp`.
   * @example { include: ['get_*', 'search'], exclude: ['*_admin'] }
   */
  tools?: MCPToolFilter;
  /**
   * Whether a progress notification for a request gives it its `timeout` again from then (up to
   * `maxTotalTimeout`). Only requests that track progress receive any (`enableProgressTracking`).
   * @default true
   */
  resetTimeoutOnProgress?: boolean;
  /**
   * The longest a request that keeps reporting progress may live, in milliseconds, from when it was sent.
   * A request without progress ends at its `timeout`, as before. The error says which bound ended it.
   * @default 10 × the request timeout
   */
  maxTotalTimeout?: number;
  /**
   * With a `store` on the client: a tool list this server gave may be reused for this long (ms) without
   * asking the server again, by every process of the store's scope (a serverless invocation's `listTools()`
   * then sends nothing). Dropped when the server announces a change or is replaced. An extension of
   * `@mastra/mcp`. See docs/performance.md.
   */
  toolsCacheTtlMs?: number;
  /**
   * Protocol era to speak with this server. Omitted: the `initialize` handshake first, as `@mastra/mcp` 1.18;
   * a server that refuses it as a modern-only server does (JSON-RPC -32022 or -32601) gets `server/discover`
   * next and `2026-07-28`.
   * `'auto'` (`@mastra/mcp` 2.0's default): probe with `server/discover` first and use `2026-07-28` where the
   * server supports it, else the handshake. Either answer is remembered per server.
   * `'2026-07-28'`: require that revision (no fallback). `'legacy'` or a handshake revision: the handshake only.
   * See docs/eras-and-tasks.md.
   */
  protocolVersion?: 'auto' | '2026-07-28' | 'legacy' | '2025-11-25' | '2025-06-18' | '2025-03-26' | '2024-11-05';
};

// ---------------------------------------------------------------------------
// Shared options: logging, approval, capabilities, roots, validation
// ---------------------------------------------------------------------------

/** A log record emitted by an MCP server or by the client on its behalf. */
export interface LogMessage {
  /** Severity. */
  level: LoggingLevel;
  /** Human readable message. */
  message: string;
  /** When the record was created. */
  timestamp: Date;
  /** Name (key in `servers`) of the server the record relates to. */
  serverName: string;
  /** Extra structured data. */
  details?: Record<string, any>;
  /** Request context active when the record was produced, if any. */
  requestContext?: RequestContext | null;
}

/** Receives {@link LogMessage}s for one server (the `logger` / `log` option). */
export type LogHandler = (logMessage: LogMessage) => void;

/** Severity of a log message sent by an MCP server (RFC 5424 levels). */
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/**
 * Whether a server's tools need human approval before they run (`requireToolApproval`).
 * `true`: every tool needs approval; `false`/omitted: none do; function: decide per call.
 */
export type RequireToolApproval = boolean | RequireToolApprovalFn;

/** Decides per call whether a tool needs human approval. */
export type RequireToolApprovalFn = (ctx: RequireToolApprovalContext) => boolean | Promise<boolean>;

/** Information handed to a {@link RequireToolApprovalFn}. */
export interface RequireToolApprovalContext {
  /** Server-side name of the tool being called. */
  toolName: string;
  /** Arguments the model supplied. */
  args: Record<string, unknown>;
  /** Request context as a plain object, when one is available. */
  requestContext?: Record<string, unknown>;
  /**
   * Annotations the server advertised for the tool, or `undefined` when it
   * advertised none. These are hints from the server, not guarantees.
   */
  annotations?: ToolAnnotations;
}

/**
 * Capabilities the client advertises to a server. Kept deliberately loose:
 * the protocol allows arbitrary (JSON) sub-objects here.
 */
export interface ClientCapabilities {
  [key: string]: unknown;
  experimental?: Record<string, Record<string, unknown>>;
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  roots?: { listChanged?: boolean; [key: string]: unknown };
  tasks?: Record<string, unknown>;
  extensions?: Record<string, Record<string, unknown>>;
}

/** A filesystem root exposed to a server (MCP `roots`). */
export interface Root {
  /** `file://` URI of the root. */
  uri: string;
  /** Optional display name. */
  name?: string;
}

/** A JSON Schema validator factory (structural twin of the MCP SDK's `jsonSchemaValidator`). */
export interface JsonSchemaValidatorProvider {
  /** Returns a validator function for `schema`. */
  getValidator<T>(
    schema: any,
  ): (
    input: unknown,
  ) =>
    | { valid: true; data: T; errorMessage: undefined }
    | { valid: false; data: undefined; errorMessage: string };
}

// ---------------------------------------------------------------------------
// Transport options: stdio stderr, HTTP fetch, reconnection, SSE fallback
// ---------------------------------------------------------------------------

/** How a stdio server's stderr is handled (Node `child_process` `IOType`; `'overlapped'` acts as `'pipe'`). */
export type StdioStderrMode = 'overlapped' | 'pipe' | 'ignore' | 'inherit';

/**
 * A `fetch` implementation that also receives the current Mastra request
 * context (or `null` when none is available, e.g. during the connection
 * handshake). Use it to forward request-scoped credentials to the MCP server.
 */
export type MastraFetchLike = (
  url: string | URL,
  init?: RequestInit,
  requestContext?: RequestContext<Record<string, any>> | null,
) => Promise<Response>;

/** Reconnection tuning for the Streamable HTTP transport's event stream (`reconnectionOptions`). */
export interface StreamableHTTPReconnectionOptions {
  /** Upper bound of the delay between attempts, in ms. */
  maxReconnectionDelay: number;
  /** Delay before the first attempt, in ms. */
  initialReconnectionDelay: number;
  /** Factor the delay grows by after each attempt. */
  reconnectionDelayGrowFactor: number;
  /** Attempts before giving up. */
  maxRetries: number;
}

/** Options for the legacy SSE event stream (`eventSourceInit`). */
export interface EventSourceInit {
  /** Browser `EventSource` option; accepted for compatibility and not used. */
  withCredentials?: boolean;
  /** Custom fetch for the event stream's GET (e.g. to add headers). */
  fetch?: (url: string | URL, init: EventSourceFetchInit) => Promise<EventSourceFetchResponse>;
}

/** Request init the SSE fallback hands to `eventSourceInit.fetch`. */
export interface EventSourceFetchInit {
  signal: { aborted: boolean } | any;
  headers: { [key: string]: string; Accept: 'text/event-stream' };
  mode: 'cors' | 'no-cors' | 'same-origin';
  credentials?: 'include' | 'omit' | 'same-origin';
  cache: 'no-store';
  redirect: 'error' | 'follow' | 'manual';
}

/** Minimal response shape `eventSourceInit.fetch` must resolve to (a `Response` qualifies). */
export interface EventSourceFetchResponse {
  readonly body: unknown;
  readonly url: string;
  readonly status: number;
  readonly redirected: boolean;
  readonly headers: { get(name: string): string | null };
}

// ===========================================================================
// 3. Tools
// ===========================================================================

/** An executable Mastra tool produced from an MCP tool. */
export type MCPTool = Tool<any, any, any, any>;

/** Tool-list change notifications per server (`MCPClient#tools`). */
export interface MCPClientToolActions {
  /** Registers the handler for `notifications/tools/list_changed`. */
  onListChanged(serverName: string, handler: ListChangedHandler): Promise<void>;
}

/** Called when a server reports that a list (tools, prompts or resources) changed. */
export type ListChangedHandler = () => void;

/** Result of {@link MCPClient.listToolsWithErrors}. */
export interface MCPToolsWithErrors extends MCPDiscoveryErrors {
  /** Tools keyed `serverName_toolName`. */
  tools: Record<string, MCPTool>;
}

/** Result of {@link MCPClient.listToolsetsWithErrors}. */
export interface MCPToolsetsWithErrors extends MCPDiscoveryErrors {
  /** Tools grouped by server name. */
  toolsets: Record<string, Record<string, MCPTool>>;
}

/** Result of {@link MCPClient.listToolDefinitionsWithErrors}. */
export interface MCPToolDefinitionsWithErrors extends MCPDiscoveryErrors {
  /** Definitions of the servers that answered: server name -> tool name -> definition. */
  definitions: SerializableMCPToolCatalog;
}

/**
 * JSON-serialisable description of one tool as advertised by a server
 * (`tools/list` entry plus server metadata). Cache it and rebuild the tool
 * later with {@link MCPClient.toolFromDefinition}.
 */
export type SerializableMCPToolDefinition = {
  /** Tool name as advertised (not namespaced). */
  name: string;
  /** Title as advertised. */
  title?: string;
  /** Description as advertised. */
  description?: string;
  /** Raw JSON Schema of the arguments. */
  inputSchema: unknown;
  /** Raw JSON Schema of structured output, if declared. */
  outputSchema?: unknown;
  /** Hints the server advertised for the tool. */
  annotations?: ToolAnnotations;
  /** Server-supplied `_meta` (e.g. `ui.resourceUri` for MCP Apps). */
  _meta?: Record<string, unknown>;
  /**
   * Whether the tool runs as a task (MCP 2025-11-25 `execution.taskSupport`), as advertised: a
   * tool rebuilt from this definition is called as it says, with no listing first.
   */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  /** Server metadata captured at discovery time. */
  server: {
    /** Configured server name. */
    name: string;
    /** Version reported in the handshake. */
    version?: string;
    /** Instructions returned at initialization. */
    instructions?: string;
  };
};

/** Serializable catalog: server name -> tool name -> definition. */
export type SerializableMCPToolCatalog = Record<string, Record<string, SerializableMCPToolDefinition>>;

/**
 * Result of `tools/call`: content blocks, optional structured content, and whether the tool failed.
 *
 * Only the protocol's own keys are declared (no index signature), so that `'content' in r` /
 * `'isError' in r` tell this envelope apart from a typed tool's output, and a property test on an
 * output field (`'temperature' in r`) rules it out (see {@link MCPToolResult}). Keys a server adds
 * beyond these are still there at run time: read them through `Record<string, unknown>`, to which a
 * `CallToolResult` is assignable as it is (`const extra: Record<string, unknown> = r`).
 */
export type CallToolResult = {
  /** Unstructured result (text, images, audio, resources). */
  content: ContentBlock[];
  /** Structured result, matching the tool's `outputSchema` when it declares one. */
  structuredContent?: unknown;
  /** `true` when the tool itself failed (an in-band error; see `onToolError`). */
  isError?: boolean;
  /** Result-level metadata. */
  _meta?: ResultMetaObject;
};

/** Hints a server may attach to a tool (untrusted unless the server is trusted). */
export interface ToolAnnotations {
  /** Display name. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool interacts with an open world of external entities. */
  openWorldHint?: boolean;
}

// ---------------------------------------------------------------------------
// Hidden channels on structured tool results
// ---------------------------------------------------------------------------

/**
 * Symbol under which the MCP `content` blocks are kept (non-enumerable) on an
 * object/array result returned by a tool that produced `structuredContent`.
 */
export declare const MCP_CALL_TOOL_CONTENT: unique symbol;

/** Symbol under which the result-level `_meta` is kept on structured tool results. */
export declare const MCP_CALL_TOOL_META: unique symbol;

/** Returns the MCP `content` blocks hidden on a structured tool result, if any. */
export declare function getMcpCallToolContent(output: unknown): unknown;

/** Returns the result-level `_meta` hidden on a structured tool result, if any. */
export declare function getMcpCallToolMeta(output: unknown): Record<string, unknown> | undefined;

// ---------------------------------------------------------------------------
// >>> Typed tools (`mastra-mcp typegen`, `MCPClient<MCPServers>`) — BEGIN
// Everything of the typed client lives in this block; outside it only `MCPClientOptions` and
// the `MCPClient` class take the type argument, and `generateToolTypes` (group 12) writes the
// contracts. Without a type argument, every type is as before.
// ---------------------------------------------------------------------------

/** One tool's contract: the TypeScript types of its input and of its structured output. */
export interface MCPToolContract {
  /** Type of the tool's arguments. */
  input: unknown;
  /** Type of the tool's structured output (`unknown` when it declares no output schema). */
  output: unknown;
}

/** One server's contract: its tools, by the names the server gives them. */
export interface MCPServerContract {
  /** Contracts of the server's tools, keyed by tool name. */
  tools: { [toolName: string]: MCPToolContract };
}

/**
 * Contracts of any servers, untyped: the default type argument of {@link MCPClient}. A generated
 * `interface MCPServers` (from `mastra-mcp typegen` or {@link generateToolTypes}) is the typed one.
 */
export type MCPServerContracts = Record<string, MCPServerContract>;

/** The constraint on `MCPClient`'s type argument: each of its keys a {@link MCPServerContract}. */
export type MCPServerContractsOf<TServers> = { [K in keyof TServers]: MCPServerContract };

/**
 * `servers` of {@link MCPClientOptions}: exactly the declared servers when typed. (The type argument
 * is never inferred from `servers`: `new MCPClient({ servers })` stays untyped, as before.)
 */
export type MCPClientServers<TServers> = string extends keyof MCPNoInfer<TServers>
  ? Record<string, MastraMCPServerDefinition>
  : { [K in keyof MCPNoInfer<TServers>]-?: MastraMCPServerDefinition };

/** `T`, hidden from type inference (as TypeScript 5.4's `NoInfer`, for older compilers too). */
type MCPNoInfer<T> = [T][T extends any ? 0 : never];

/** The context a tool's `execute` takes (as Mastra's own tools). */
export type MCPTypedToolContext = Parameters<NonNullable<MCPTool['execute']>>[1];

/**
 * What a typed tool's `execute` can resolve to: the structured output its contract declares, or
 * the MCP `CallToolResult` (a server error with `onToolError: 'return'`, or a call that produced
 * no structured content), or Mastra's validation error (input refused by the live schema, or
 * output refused by the declared one), or nothing.
 *
 * The members are told apart by the usual checks, without casts:
 * - `r && 'temperature' in r` (a property the output declares and the others do not) → the output;
 * - `'content' in r` or `'isError' in r` → `CallToolResult`;
 * - `'validationErrors' in r`, `'error' in r && r.error === true`, or `isValidationError(r)` from
 *   `@mastra/core/tools` → `ValidationError`.
 *
 * A check on a key the output declares too (an output with its own `content`) keeps both members,
 * as it must: test a key that only one of them has.
 */
export type MCPToolResult<TOutput> = TOutput | CallToolResult | import('@mastra/core/tools').ValidationError | void;

/** A Mastra tool whose `execute` is typed by its contract. It goes into an `Agent` as it is. */
export type MCPTypedTool<TContract extends MCPToolContract> = Omit<MCPTool, 'execute'> & {
  /** Calls the tool with typed input; resolves to its typed structured output (see {@link MCPToolResult}). */
  execute?: (input: TContract['input'], context?: MCPTypedToolContext) => Promise<MCPToolResult<TContract['output']>>;
};

/** Every tool of `TServers` as `{ key: 'server_tool', contract }` (a union; used by {@link MCPTypedTools}). */
type MCPToolEntries<TServers> = {
  [S in keyof TServers & string]: TServers[S] extends { tools: infer Tools }
    ? { [N in keyof Tools & string]: { key: `${S}_${N}`; contract: Tools[N] } }[keyof Tools & string]
    : never;
}[keyof TServers & string];

/** What `listTools()` resolves to: keyed `server_tool`; typed tools when the client is, each possibly missing. */
export type MCPTypedTools<TServers> = string extends keyof TServers
  ? Record<string, MCPTool>
  : { [E in MCPToolEntries<TServers> as E['key']]?: E['contract'] extends MCPToolContract ? MCPTypedTool<E['contract']> : never };

/** What `listToolsets()` resolves to: server -> raw tool name; typed when the client is, each entry possibly missing. */
export type MCPTypedToolsets<TServers> = string extends keyof TServers
  ? Record<string, Record<string, MCPTool>>
  : {
      [S in keyof TServers]?: TServers[S] extends { tools: infer Tools }
        ? { [N in keyof Tools]?: Tools[N] extends MCPToolContract ? MCPTypedTool<Tools[N]> : never }
        : never;
    };

/** What `listToolsWithErrors()` resolves to for a client typed with `TServers`. */
export type MCPTypedToolsWithErrors<TServers> = string extends keyof TServers
  ? MCPToolsWithErrors
  : MCPDiscoveryErrors & { tools: MCPTypedTools<TServers> };

/** What `listToolsetsWithErrors()` resolves to for a client typed with `TServers`. */
export type MCPTypedToolsetsWithErrors<TServers> = string extends keyof TServers
  ? MCPToolsetsWithErrors
  : MCPDiscoveryErrors & { toolsets: MCPTypedToolsets<TServers> };

// <<< Typed tools — END
// ---------------------------------------------------------------------------

// ===========================================================================
// 4. Resources
// ===========================================================================

/** Resource operations across every server (`MCPClient#resources`). */
export interface MCPClientResourceActions {
  /** Resources of every server, keyed by server name. */
  list(): Promise<Record<string, Resource[]>>;
  /** Like `list`, also reporting servers that failed. */
  listWithErrors(options?: MCPDiscoveryOptions): Promise<MCPResourcesWithErrors>;
  /** Resource templates of every server, keyed by server name. */
  templates(): Promise<Record<string, ResourceTemplate[]>>;
  /** Like `templates`, also reporting servers that failed. */
  templatesWithErrors(options?: MCPDiscoveryOptions): Promise<MCPResourceTemplatesWithErrors>;
  /** Reads one resource from one server. */
  read(serverName: string, uri: string): Promise<ReadResourceResult>;
  /** Subscribes to updates of a resource. */
  subscribe(serverName: string, uri: string): Promise<EmptyResult>;
  /** Cancels a subscription. */
  unsubscribe(serverName: string, uri: string): Promise<EmptyResult>;
  /** Registers the handler for `notifications/resources/updated`. */
  onUpdated(serverName: string, handler: ResourceUpdatedHandler): Promise<void>;
  /** Registers the handler for `notifications/resources/list_changed`. */
  onListChanged(serverName: string, handler: ListChangedHandler): Promise<void>;
}

/** Result of `resources.listWithErrors`. */
export interface MCPResourcesWithErrors extends MCPDiscoveryErrors {
  /** Resources of the servers that answered, keyed by server name. */
  resources: Record<string, Resource[]>;
}

/** Result of `resources.templatesWithErrors`. */
export interface MCPResourceTemplatesWithErrors extends MCPDiscoveryErrors {
  /** Resource templates of the servers that answered, keyed by server name. */
  templates: Record<string, ResourceTemplate[]>;
}

/** Receives `notifications/resources/updated` params from a server. */
export type ResourceUpdatedHandler = (params: { uri: string }) => void;

/** A resource advertised by an MCP server (`resources/list`). */
export interface Resource {
  /** URI to read it with. */
  uri: string;
  /** Programmatic name. */
  name: string;
  /** Display name. */
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, when known. */
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

/** A parameterised resource (RFC 6570 URI template) (`resources/templates/list`). */
export interface ResourceTemplate {
  /** RFC 6570 template of the resources' URIs. */
  uriTemplate: string;
  /** Programmatic name. */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

/** Alias kept for parity with the MCP SDK's name for {@link ResourceTemplate}. */
export type ResourceTemplateType = ResourceTemplate;

/** Contents of one resource returned by `resources/read`: text or binary. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** Text contents of a resource. */
export interface TextResourceContents {
  uri: string;
  text: string;
  blob?: never;
  mimeType?: string;
  _meta?: MetaObject;
}

/** Binary (base64) contents of a resource. */
export interface BlobResourceContents {
  uri: string;
  blob: string;
  /** Absent on binary contents (so `contents[0].text` reads as `string | undefined`). */
  text?: never;
  mimeType?: string;
  _meta?: MetaObject;
}

/** Result of `resources/read`: the resource's contents. */
export interface ReadResourceResult {
  [key: string]: unknown;
  /** One entry per resource read (a read may return several, e.g. a directory). */
  contents: ResourceContents[];
  _meta?: ResultMetaObject;
}

/** Result of `resources/list` (every page). */
export interface ListResourcesResult {
  [key: string]: unknown;
  resources: Resource[];
  nextCursor?: string;
}

/** Result of `resources/templates/list` (every page). */
export interface ListResourceTemplatesResult {
  [key: string]: unknown;
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
}

/** Params of a `notifications/resources/updated` notification. */
export interface ResourceUpdatedNotificationParams {
  /** URI of the resource that changed. */
  uri: string;
  _meta?: RequestMetaObject;
}

// ===========================================================================
// 5. Prompts
// ===========================================================================

/** Prompt operations across every server (`MCPClient#prompts`). */
export interface MCPClientPromptActions {
  /** Prompts of every server, keyed by server name. */
  list(): Promise<Record<string, Prompt[]>>;
  /** Like `list`, also reporting servers that failed. */
  listWithErrors(options?: MCPDiscoveryOptions): Promise<MCPPromptsWithErrors>;
  /** Renders a prompt on a server. */
  get(args: MCPGetPromptArgs): Promise<MCPGetPromptResult>;
  /** Registers the handler for `notifications/prompts/list_changed`. */
  onListChanged(serverName: string, handler: ListChangedHandler): Promise<void>;
}

/** Arguments of `MCPClient#prompts.get`: which server, which prompt, and its arguments. */
export interface MCPGetPromptArgs {
  /** Name (key in `servers`) of the server. */
  serverName: string;
  /** The prompt's name. */
  name: string;
  /** Values of the prompt's arguments. */
  args?: Record<string, any>;
  /** Prompt version; accepted and named in error details, not sent to the server. */
  version?: string;
}

/** Result of `MCPClient#prompts.get`: the rendered messages, plus the prompt's listing entry. */
export type MCPGetPromptResult = GetPromptResult & {
  /** The prompt's listing entry, when known. */
  prompt?: Prompt;
};

/** Result of `prompts.listWithErrors`. */
export interface MCPPromptsWithErrors extends MCPDiscoveryErrors {
  /** Prompts of the servers that answered, keyed by server name. */
  prompts: Record<string, Prompt[]>;
}

/** A prompt template advertised by an MCP server (`prompts/list`). */
export interface Prompt {
  /** Programmatic name (what `prompts.get` takes). */
  name: string;
  /** Display name. */
  title?: string;
  description?: string;
  /** Arguments the template accepts. */
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: MetaObject;
}

/** An argument accepted by a prompt template. */
export interface PromptArgument {
  /** The argument's name (a key of `args`). */
  name: string;
  description?: string;
  /** Whether the argument must be given. */
  required?: boolean;
}

/** A message produced by rendering a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** Result of `prompts/get`: the rendered messages. */
export interface GetPromptResult {
  [key: string]: unknown;
  description?: string;
  /** The prompt rendered as chat messages. */
  messages: PromptMessage[];
  _meta?: ResultMetaObject;
}

/** Result of `prompts/list` (every page). */
export interface ListPromptsResult {
  [key: string]: unknown;
  prompts: Prompt[];
  nextCursor?: string;
}

// ===========================================================================
// 6. Elicitation and progress
// ===========================================================================

/** One file of a skill as its entry lists it (SEP-2640 `SkillResource`). */
export interface MCPSkillResource {
  /** The file's resource URI. */
  uri: string;
  /** `sha256:` and the 64 lowercase hex digits of the file's bytes. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
}

/** A skill's entry, as `skills/list` and `skills/get` give it (SEP-2640 `Skill`). */
export interface MCPSkillEntry {
  /** The URI of the skill's `SKILL.md`. */
  uri: string;
  /** The `SKILL.md` frontmatter as JSON: `name` and `description`, and every other field. */
  frontmatter: { name: string; description: string; [key: string]: unknown };
  /** Every file of the skill, or `'dynamic'` when the server cannot give digests. */
  resources: MCPSkillResource[] | 'dynamic';
  /** Any other member the server sent. */
  [key: string]: unknown;
}

/** A file of a loaded skill, verified against the entry the skill was loaded from. */
export interface MCPSkillFile {
  /** The file's resource URI. */
  uri: string;
  /** The path it was asked for, relative to the skill's root. */
  path: string;
  /** The content, when it is UTF-8 text. */
  text?: string;
  /** The content, base64, when it is not text. */
  blob?: string;
}

/** A skill loaded from one server: its `SKILL.md` read and verified (size, digest, frontmatter). */
export interface MCPLoadedSkill {
  /** The server it came from: a skill is its server and its URI together. */
  server: string;
  /** The URI of its `SKILL.md`. */
  uri: string;
  /** The skill's directory (`uri` without `/SKILL.md`). */
  root: string;
  /** The skill's name. */
  name: string;
  /** The frontmatter (the entry's, which the file's matched field by field). */
  frontmatter: MCPSkillEntry['frontmatter'];
  /** The `SKILL.md` body after its frontmatter. */
  instructions: string;
  /** The whole `SKILL.md`. */
  text: string;
  /** The paths of the skill's listed files, relative to its root (`SKILL.md` first; none when dynamic). */
  files: string[];
  /** Whether the server gave no digests (`resources: 'dynamic'`): nothing could be verified but the frontmatter. */
  dynamic: boolean;
  /** Reads one file (relative to the root), verified; a file the entry does not list is refused unread. */
  readFile(path: string): Promise<MCPSkillFile>;
}

/** Skills of every server (`MCPClient#skills`); a server without the extension lists none. */
export interface MCPClientSkillActions {
  /** One server's entries, or every server's by name (servers that failed left out). */
  list(serverName: string): Promise<MCPSkillEntry[]>;
  /** Every server's entries by name (servers that failed left out). */
  list(): Promise<Record<string, MCPSkillEntry[]>>;
  /** Every server's entries, and each failed server's error message. */
  listWithErrors(): Promise<{ skills: Record<string, MCPSkillEntry[]>; errors: Record<string, string> }>;
  /** The entry of the skill whose `SKILL.md` is `uri` (`skills/get`). */
  get(serverName: string, uri: string): Promise<MCPSkillEntry>;
  /** Loads a skill from its entry (or its URI, confirmed with `skills/get`): only its `SKILL.md` is read. */
  load(serverName: string, skill: MCPSkillEntry | string): Promise<MCPLoadedSkill>;
}

/** Skills of one server (`InternalMastraMCPClient#skills`). */
export interface InternalSkillActions {
  /** The server's entries (none without the extension). */
  list(): Promise<MCPSkillEntry[]>;
  /** The entry of the skill whose `SKILL.md` is `uri`. */
  get(uri: string): Promise<MCPSkillEntry>;
  /** Loads a skill from its entry or URI: only its `SKILL.md` is read, and verified. */
  load(skill: MCPSkillEntry | string): Promise<MCPLoadedSkill>;
}

/** Elicitation handlers per server (`MCPClient#elicitation`). */
export interface MCPClientElicitationActions {
  /** Registers the handler answering a server's elicitation requests. */
  onRequest(serverName: string, handler: ElicitationHandler): Promise<void>;
}

/**
 * Answers `elicitation/create` requests from a server. The client advertises form mode only,
 * so the request always carries `requestedSchema`.
 */
export type ElicitationHandler = (request: ElicitRequestFormParams) => Promise<ElicitResult>;

/**
 * Params of an `elicitation/create` request, form or URL mode (what an {@link MCPInputRequest} carries;
 * an {@link ElicitationHandler} receives the form variant).
 */
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** Params of a form-mode `elicitation/create` request: a message and the schema of the data asked for. */
export interface ElicitRequestFormParams {
  mode?: 'form';
  /** What to show the user. */
  message: string;
  /** The fields to ask for. */
  requestedSchema: ElicitRequestedSchema;
  /** Present when the server asks for the request to run as a task. */
  task?: { ttl?: number };
  _meta?: RequestMetaObject;
}

/** Params of a URL-mode `elicitation/create` request: a URL the user should visit. */
export interface ElicitRequestURLParams {
  mode: 'url';
  /** What to show the user. */
  message: string;
  /** Identifies this elicitation in the server's completion notification. */
  elicitationId: string;
  /** The URL to open. */
  url: string;
  /** Present when the server asks for the request to run as a task. */
  task?: { ttl?: number };
  _meta?: RequestMetaObject;
}

/** Flat JSON-schema object describing the data a form elicitation asks for. */
export interface ElicitRequestedSchema {
  [key: string]: unknown;
  type: 'object';
  properties: Record<string, PrimitiveSchemaDefinition>;
  required?: string[];
}

/** Schema of a single field in an elicitation form. */
export type PrimitiveSchemaDefinition =
  | {
      type: 'string';
      title?: string;
      description?: string;
      minLength?: number;
      maxLength?: number;
      format?: 'email' | 'uri' | 'date' | 'date-time';
      default?: string;
    }
  | {
      type: 'number' | 'integer';
      title?: string;
      description?: string;
      minimum?: number;
      maximum?: number;
      default?: number;
    }
  | {
      type: 'boolean';
      title?: string;
      description?: string;
      default?: boolean;
    }
  | {
      type: 'string';
      enum: string[];
      /** @deprecated legacy titled enum */
      enumNames?: string[];
      title?: string;
      description?: string;
      default?: string;
    }
  | {
      type: 'string';
      oneOf: Array<{ const: string; title: string }>;
      title?: string;
      description?: string;
      default?: string;
    }
  | {
      type: 'array';
      items: { type: 'string'; enum: string[] };
      title?: string;
      description?: string;
      minItems?: number;
      maxItems?: number;
      default?: string[];
    }
  | {
      type: 'array';
      items: { anyOf: Array<{ const: string; title: string }> };
      title?: string;
      description?: string;
      minItems?: number;
      maxItems?: number;
      default?: string[];
    };

/** The `elicitation/create` request (a server asking the user for input). */
export interface ElicitRequest {
  method: 'elicitation/create';
  params: ElicitRequestParams;
}

/** The user's answer to an elicitation request. */
export interface ElicitResult {
  [key: string]: unknown;
  /** `'accept'` (with `content`), `'decline'` or `'cancel'`. */
  action: 'accept' | 'decline' | 'cancel';
  /** The submitted form data, when accepted. */
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: ResultMetaObject;
}

/** Progress handlers per server (`MCPClient#progress`). */
export interface MCPClientProgressActions {
  /** Registers the handler receiving a server's progress notifications. */
  onUpdate(serverName: string, handler: ProgressHandler): Promise<void>;
}

/** Receives `notifications/progress` params from a server. */
export type ProgressHandler = (params: ProgressNotification['params']) => void;

/** The `notifications/progress` notification (a server reporting progress of a request). */
export interface ProgressNotification {
  method: 'notifications/progress';
  params: ProgressNotificationParams;
}

/** Params of a `notifications/progress` notification. */
export interface ProgressNotificationParams {
  /** The token of the request the progress is about. */
  progressToken: ProgressToken;
  /** Progress so far (increases with each notification). */
  progress: number;
  /** Total, when known. */
  total?: number;
  /** Human readable status. */
  message?: string;
  _meta?: RequestMetaObject;
}

/** Token used to correlate progress notifications with a request. */
export type ProgressToken = string | number;

// ===========================================================================
// 7. Errors
// (OAuth error responses: `OAuthErrorLike`, `parseErrorResponse` in group 8.)
// ===========================================================================

/**
 * Raised when a server rejects the client as unauthorized (HTTP 401); usually found as the `cause` of the
 * `MastraError` a call rejects with.
 */
export declare class UnauthorizedError extends Error {
  /** Creates the error (`message` defaults to `'Unauthorized'`). */
  constructor(message?: string);
}

/**
 * Thrown for an MCP config that cannot be used (by `parseMCPConfig`, `readMCPConfigFile`, `MCPClient.fromConfig*`).
 * `message` is one line: `FILE[:LINE:COL]: server "NAME": FIELD: PROBLEM`.
 */
export declare class MCPConfigError extends Error {
  /** Always `'MCPConfigError'`. */
  name: 'MCPConfigError';
  /** Always `'MCP_CONFIG_INVALID'`; {@link MCPConfigError.reason} says what is wrong. */
  code: 'MCP_CONFIG_INVALID';
  /** `SYNTAX`, `NO_SERVERS`, `INVALID_FIELD`, `MISSING_INPUT`, `MISSING_ENV`, `READ_FAILED` or `INVALID_OPTION`. */
  reason: string;
  /** The config's path (or its label, for an object). */
  file: string;
  /** The server entry at fault, when one is. */
  server?: string;
  /** The field at fault (e.g. `env.TOKEN`), when one is. */
  field?: string;
  /** 1-based line in the file, when known. */
  line?: number;
  /** 1-based column in the file, when known. */
  column?: number;
  /** The `${input:id}` without a value. */
  input?: string;
  /** The environment variable that was missing (or would answer the input). */
  envVar?: string;
}

// ===========================================================================
// 8. OAuth
// ===========================================================================

// ---------------------------------------------------------------------------
// 8a. Providers and storage (what `authProvider` takes)
// ---------------------------------------------------------------------------

/**
 * An OAuth 2.1 client: where the MCP authorization flow stores and finds its state (the SDK's interface).
 * {@link MCPOAuthClientProvider} is a ready-to-use implementation.
 */
export interface OAuthClientProvider {
  /** Redirect URL the authorization server sends the user agent back to. */
  readonly redirectUrl: string | URL | undefined;
  /**
   * URL of a Client ID Metadata Document. When set (and supported by the
   * authorization server), it is used as the `client_id` instead of dynamic
   * client registration.
   */
  clientMetadataUrl?: string;
  /** Metadata used for dynamic client registration. */
  readonly clientMetadata: OAuthClientMetadata;
  /** OAuth `state` parameter for the authorization request. */
  state?(): string | Promise<string>;
  /** The client's registered identity (`undefined`: not registered yet). */
  clientInformation(
    ctx?: OAuthClientInformationContext,
  ): StoredOAuthClientInformation | undefined | Promise<StoredOAuthClientInformation | undefined>;
  /** Stores the identity obtained by dynamic client registration. */
  saveClientInformation?(
    clientInformation: StoredOAuthClientInformation,
    ctx?: OAuthClientInformationContext,
  ): void | Promise<void>;
  /** The stored tokens (`undefined`: none). */
  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined | Promise<StoredOAuthTokens | undefined>;
  /** Stores new tokens (after an exchange or a refresh). */
  saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): void | Promise<void>;
  /** Sends the user to the authorization URL (e.g. opens a browser). */
  redirectToAuthorization(authorizationUrl: URL): void | Promise<void>;
  /** Stores the PKCE code verifier of the authorization in progress. */
  saveCodeVerifier(codeVerifier: string): void | Promise<void>;
  /** The stored PKCE code verifier. */
  codeVerifier(): string | Promise<string>;
  /** Adds client authentication to token requests (instead of the default methods). */
  addClientAuthentication?: AddClientAuthentication;
  /** Picks the RFC 8707 resource to request (see {@link selectResourceURL}). */
  validateResourceURL?(serverUrl: string | URL, resource?: string): Promise<URL | undefined>;
  /** Forgets stored credentials of the given kind after the server rejected them. */
  invalidateCredentials?(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void | Promise<void>;
  /** Params of a non-interactive grant (e.g. client credentials); `undefined`: use the authorization code flow. */
  prepareTokenRequest?(scope?: string): URLSearchParams | Promise<URLSearchParams | undefined> | undefined;
  /** Stores the authorization server's URL. */
  saveAuthorizationServerUrl?(authorizationServerUrl: string): void | Promise<void>;
  /** The stored authorization server's URL. */
  authorizationServerUrl?(): string | undefined | Promise<string | undefined>;
  /** Stores the protected resource's URL. */
  saveResourceUrl?(resourceUrl: string): void | Promise<void>;
  /** The stored protected resource's URL. */
  resourceUrl?(): string | undefined | Promise<string | undefined>;
  /** Caches discovery results between flows. */
  saveDiscoveryState?(state: OAuthDiscoveryState): void | Promise<void>;
  /** The cached discovery results. */
  discoveryState?(): OAuthDiscoveryState | undefined | Promise<OAuthDiscoveryState | undefined>;
}

/** Minimal bearer-token provider (alternative to a full {@link OAuthClientProvider}). */
export interface AuthProvider {
  /** The bearer token to send (`undefined`: none). */
  token(): Promise<string | undefined>;
  /** Called after a 401, e.g. to refresh the token before the request is retried. */
  onUnauthorized?(ctx: UnauthorizedContext): Promise<void>;
}

/** Context passed to {@link AuthProvider.onUnauthorized}: the 401 response and where it came from. */
export interface UnauthorizedContext {
  /** The 401 response. */
  response: Response;
  /** The MCP server's URL. */
  serverUrl: URL;
  /** The fetch to use for any follow-up requests. */
  fetchFn: FetchLike;
}

/**
 * Ready-made {@link OAuthClientProvider}: dynamic client registration, PKCE,
 * token storage and refresh. Use one instance per server.
 */
export declare class MCPOAuthClientProvider implements OAuthClientProvider {
  /** Creates a provider; throws a `TypeError` without `redirectUrl` or `clientMetadata`. */
  constructor(options: MCPOAuthClientProviderOptions);
  /** The redirect URL in use (the configured one, or the callback URL actually bound during `authenticate()`). */
  get redirectUrl(): string | URL;
  /** The client metadata used for dynamic registration (its `redirect_uris` may be widened to the bound URL). */
  get clientMetadata(): OAuthClientMetadata;
  /** OAuth `state`; returns the pinned value while an authorization session is active. */
  state(): Promise<string>;
  /** Pins (and returns) the `state` for the next authorization request. */
  beginAuthorizationSession(): Promise<string>;
  /** Clears the pinned state and restores the configured redirect URL. */
  endAuthorizationSession(): void;
  /** URL of the Client ID Metadata Document, when configured. */
  readonly clientMetadataUrl: string | undefined;
  /** Points the provider at the callback URL actually bound (see {@link getCallbackUrlCandidates}). */
  applyResolvedRedirectUrl(redirectUrl: string | URL, registeredRedirectUris?: (string | URL)[]): void;
  /**
   * The client's identity: synchronous for a pre-registered client (as in 2.0), a Promise for a client
   * registered dynamically (1.18).
   */
  clientInformation(): OAuthClientInformation | undefined | Promise<OAuthClientInformation | undefined>;
  /** Stores the identity obtained by dynamic client registration. */
  saveClientInformation(clientInformation: OAuthClientInformationFull): Promise<void>;
  /** Stored tokens; with an issuer context (2.0), only those saved for that authorization server. */
  tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined>;
  /** Stores tokens, bound to the context's issuer when given (2.0). */
  saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void>;
  /** Persisted authorization-server discovery state (2.0). */
  discoveryState(): Promise<OAuthDiscoveryState | undefined>;
  /** Persists authorization-server discovery state (2.0). */
  saveDiscoveryState(state: OAuthDiscoveryState): Promise<void>;
  /** Calls `onRedirectToAuthorization` with the URL (without it, logs the URL to visit). */
  redirectToAuthorization(authorizationUrl: URL): Promise<void>;
  /** Stores the PKCE code verifier of the authorization in progress. */
  saveCodeVerifier(codeVerifier: string): Promise<void>;
  /** The stored PKCE code verifier; rejects when no authorization was started. */
  codeVerifier(): Promise<string>;
  /** Deletes stored credentials of the given kind (a pre-registered `clientInformation` stays). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void>;
  /** Removes everything this provider stored. */
  clear(): Promise<void>;
  /** Whether unexpired tokens are stored. */
  hasValidTokens(): Promise<boolean>;
  /**
   * Takes the storage's lock on the `tokens` or `client` credentials across processes, when the storage has
   * one ({@link OAuthStorage.lock}): held while a refresh or a registration runs. A handle for
   * {@link MCPOAuthClientProvider.unlockCredentials}, or `null` when the storage has no lock.
   */
  lockCredentials(options: { what: 'tokens' | 'client'; waitMs?: number }): Promise<number | null>;
  /** Releases what {@link MCPOAuthClientProvider.lockCredentials} took. */
  unlockCredentials(handle: number): Promise<void>;
}

/** Options of {@link MCPOAuthClientProvider}. */
export interface MCPOAuthClientProviderOptions {
  /** Where the authorization server redirects back to (e.g. `http://127.0.0.1:5533/oauth/callback`). */
  redirectUrl: string | URL;
  /** Metadata for dynamic client registration (2.0: the description of a configured client; `client_id` optional). */
  clientMetadata: MCPClientMetadata;
  /** Pre-registered client; skips dynamic registration. */
  clientInformation?: OAuthClientInformation;
  /**
   * HTTPS URL of this client's Client ID Metadata Document (SEP-991), used as the `client_id` where the
   * authorization server supports it (else, unlike 2.0, dynamic registration as in 1.18).
   */
  clientMetadataUrl?: string;
  /** Persistence for tokens, client info and PKCE verifier. Defaults to {@link InMemoryOAuthStorage}. */
  storage?: OAuthStorage;
  /** Called with the authorization URL the user must visit. */
  onRedirectToAuthorization?: (url: URL) => void | Promise<void>;
  /** Generates the OAuth `state` value (defaults to a random UUID). */
  stateGenerator?: () => string | Promise<string>;
  /**
   * Sender-constrained tokens (DPoP, RFC 9449): the client holds an ES256 key pair for this provider's credentials,
   * proves possession on every token request and every request to the MCP server, and answers a server's
   * `DPoP-Nonce`. Not in `@mastra/mcp`. Default `false`.
   */
  dpop?: boolean;
}

/** Key/value persistence used by {@link MCPOAuthClientProvider} (tokens, client info, PKCE verifier). */
export interface OAuthStorage {
  /** Stores `value` under `key`. */
  set(key: string, value: string): Promise<void> | void;
  /** The value stored under `key`, or `undefined`. */
  get(key: string): Promise<string | undefined> | string | undefined;
  /** Removes `key`. */
  delete(key: string): Promise<void> | void;
  /**
   * Optional: takes a lock on `key` shared by every process using this storage (waiting at most `timeoutMs`)
   * and resolves to the function that releases it. With it, a refresh or a client registration runs in one
   * process at a time, and the others use what it stored (rotating refresh tokens are spent once).
   */
  lock?(key: string, options?: { timeoutMs?: number }): Promise<() => Promise<void>>;
}

/**
 * A store of what must outlive a process, in a real database shared by every process of an app: OAuth
 * tokens and client registrations, sealed at rest (AES-256-GCM). Made by {@link createMCPStore}.
 */
export declare class MCPStore {
  private constructor();
  /** The scope (user or tenant id) this view reads and writes; `''` for the app's own. */
  readonly scope: string;
  /** Opens (creates, migrates) the database now; rejects with an {@link MCPStoreError}. Otherwise opened on first use. */
  open(): Promise<this>;
  /** The same store seen from another scope: its rows never meet this one's. */
  forScope(scope: string): MCPStore;
  /**
   * An {@link OAuthStorage} (with its cross-process `lock`) for one server's credentials, for
   * `new MCPOAuthClientProvider({ storage })`. Give each server its own (`server`: any stable name, e.g. its URL).
   */
  oauth(options?: string | { scope?: string; server?: string }): OAuthStorage & Required<Pick<OAuthStorage, 'lock'>>;
  /** The value stored under `key` in this scope, or `undefined`. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` under `key` in this scope (one transaction). */
  set(key: string, value: string): Promise<void>;
  /** Removes `key` from this scope. */
  delete(key: string): Promise<void>;
  /** Takes the lock on `key` across every process of the store; resolves to its release. */
  lock(key: string, options?: { timeoutMs?: number }): Promise<() => Promise<void>>;
}

/** Options of {@link createMCPStore}. */
export interface MCPStoreOptions {
  /**
   * The secret the encryption key is derived from: a long random string, the same in every process.
   * Required for `postgres://`; a `file:` store without one keeps a random key in `PATH.key` (0600).
   */
  secret?: string;
  /** Bound on retrying an unreachable database and on waiting for a lock. @default 10000 */
  timeoutMs?: number;
}

/**
 * Opens a store: `file:PATH` (SQLite in WAL mode, for one machine: nothing to run) or `postgres://…`
 * (PostgreSQL, for many machines). The database is created and migrated by the store itself.
 */
export declare function createMCPStore(url: string, options?: MCPStoreOptions): MCPStore;

/** An error of an {@link MCPStore}; its message names the store (and the row, where one is concerned). */
export declare class MCPStoreError extends Error {
  /** What went wrong, stable across versions. */
  readonly code:
    | 'MCP_STORE_INVALID_URL'
    | 'MCP_STORE_SECRET_REQUIRED'
    | 'MCP_STORE_WRONG_SECRET'
    | 'MCP_STORE_UNREADABLE'
    | 'MCP_STORE_CORRUPT'
    | 'MCP_STORE_NEWER_SCHEMA'
    | 'MCP_STORE_UNREACHABLE'
    | 'MCP_STORE_DATABASE'
    | 'MCP_STORE_LOCK_TIMEOUT';
}

/** Process-local {@link OAuthStorage}; contents are lost on exit. */
export declare class InMemoryOAuthStorage implements OAuthStorage {
  /** Stores `value` under `key`. */
  set(key: string, value: string): void;
  /** The value stored under `key`, or `undefined`. */
  get(key: string): string | undefined;
  /** Removes `key`. */
  delete(key: string): void;
  /** Removes every entry. */
  clear(): void;
}

/** Creates a provider that presents an already-obtained access token (tests, static tokens). */
export declare function createSimpleTokenProvider(
  accessToken: string,
  options: SimpleTokenProviderOptions,
): OAuthClientProvider;

/** Options of {@link createSimpleTokenProvider}. */
export interface SimpleTokenProviderOptions {
  /** Redirect URL (needed should the token be rejected and a new authorization start). */
  redirectUrl: string | URL;
  /** Client metadata (as for {@link MCPOAuthClientProvider}). */
  clientMetadata: OAuthClientMetadata;
  /** Pre-registered client identity (needed to refresh). */
  clientInformation?: OAuthClientInformation;
  /**
   * The token's type.
   * @default 'Bearer'
   */
  tokenType?: string;
  /** Refresh token, when there is one. */
  refreshToken?: string;
  /** Lifetime of the access token in seconds, counted from now. */
  expiresIn?: number;
  /** Scope the token was granted. */
  scope?: string;
}

/**
 * OAuth state of a server connection: `'needs-auth'` after a 401 that needs
 * interactive authorization, `'authorized'` once credentials were accepted.
 */
export type MCPServerAuthState = 'needs-auth' | 'authorized';

// ---------------------------------------------------------------------------
// 8b. Loopback OAuth callback server
// ---------------------------------------------------------------------------

/** Starts a one-shot loopback HTTP server that captures the OAuth authorization code. */
export declare function createOAuthCallbackServer(options: OAuthCallbackServerOptions): Promise<OAuthCallbackServer>;

/**
 * The redirect URL followed by the fallback-port variants
 * {@link createOAuthCallbackServer} may bind. Register all of them as
 * `redirect_uris`.
 */
export declare function getCallbackUrlCandidates(redirectUrl: string | URL): URL[];

/** Options of {@link createOAuthCallbackServer}. */
export interface OAuthCallbackServerOptions {
  /**
   * Preferred redirect URL; its host is bound and its port tried first, then
   * sequential fallback ports. Prefer `127.0.0.1` over `localhost`.
   */
  redirectUrl: string | URL;
  /** Expected OAuth `state`; callbacks with another state never settle the flow. */
  state: string;
}

/** Code captured by the callback server. */
export interface OAuthCallbackResult {
  /** The authorization code. */
  code: string;
  /** The `state` the callback carried (the expected one). */
  state: string;
  /** RFC 9207 issuer of the callback, when the authorization server sent one (pass it to the exchange). */
  iss?: string;
}

/** A running one-shot loopback callback server. */
export interface OAuthCallbackServer {
  /** Callback URL actually bound (use it as `redirect_uri`). */
  url: URL;
  /** Port actually bound. */
  port: number;
  /** Resolves with the first state-matching code; rejects on timeout, OAuth error or close. */
  waitForCode(options?: { timeoutMs?: number }): Promise<OAuthCallbackResult>;
  /** Stops the server (idempotent); rejects a pending `waitForCode`. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// 8c. OAuth flow functions (the MCP SDK's, as @mastra/mcp re-exports them)
//
// @mastra/mcp 1.18 re-exports these from the MCP SDK, so user code may import
// them from '@mastra/mcp'. Here each runs as a step of the Rust OAuth engine.
// ---------------------------------------------------------------------------

/**
 * Runs the whole OAuth flow with a server: discovery, client identity (stored, Client ID
 * Metadata Document, or dynamic registration), then the code exchange, a
 * non-interactive grant (`prepareTokenRequest`), a refresh, or a redirect.
 */
export declare function auth(provider: OAuthClientProvider, options: AuthOptions): Promise<AuthResult>;

/** Options of {@link auth}. */
export interface AuthOptions {
  /** The MCP server's URL. */
  serverUrl: string | URL;
  /** The code from the redirect, to finish an authorization. */
  authorizationCode?: string;
  /** RFC 9207 issuer of the redirect, when the authorization server sent one. */
  iss?: string;
  /** Scope to request. */
  scope?: string;
  /** The `resource_metadata` URL from the server's 401 challenge. */
  resourceMetadataUrl?: URL;
  /** Fetch used for every request of the flow. */
  fetchFn?: FetchLike;
  /** Skip the check that the metadata's `issuer` matches the authorization server. */
  skipIssuerMetadataValidation?: boolean;
  /** Skip the refresh-token branch and start a new authorization. */
  forceReauthorization?: boolean;
}

/** Outcome of {@link auth}: `'AUTHORIZED'` (tokens stored) or `'REDIRECT'` (the user must authorize). */
export type AuthResult = 'AUTHORIZED' | 'REDIRECT';

/** Fetches the RFC 9728 protected-resource metadata of an MCP server. */
export declare function discoverOAuthProtectedResourceMetadata(
  serverUrl: string | URL,
  opts?: { protocolVersion?: string; resourceMetadataUrl?: string | URL },
  fetchFn?: FetchLike,
): Promise<OAuthProtectedResourceMetadata>;

/**
 * Fetches an authorization server's RFC 8414 metadata (`undefined` on 404).
 * Deprecated in the SDK in favour of {@link discoverAuthorizationServerMetadata}.
 */
export declare function discoverOAuthMetadata(
  issuer: string | URL,
  options?: { authorizationServerUrl?: string | URL; protocolVersion?: string },
  fetchFn?: FetchLike,
): Promise<OAuthMetadata | undefined>;

/** Lists the metadata URLs tried for an authorization server, in priority order. */
export declare function buildDiscoveryUrls(authorizationServerUrl: string | URL): { url: URL; type: 'oauth' | 'oidc' }[];

/** Discovers an authorization server's metadata (RFC 8414, then OpenID Connect), checking the issuer echo. */
export declare function discoverAuthorizationServerMetadata(
  authorizationServerUrl: string | URL,
  options?: { fetchFn?: FetchLike; protocolVersion?: string; skipIssuerValidation?: boolean },
): Promise<AuthorizationServerMetadata | undefined>;

/** Builds an authorization URL with a fresh PKCE S256 challenge; returns it with its code verifier. */
export declare function startAuthorization(
  authorizationServerUrl: string | URL,
  options: {
    metadata?: AuthorizationServerMetadata;
    clientInformation: OAuthClientInformationMixed;
    redirectUrl: string | URL;
    scope?: string;
    state?: string;
    resource?: URL;
  },
): Promise<{ authorizationUrl: URL; codeVerifier: string }>;

/** Exchanges an authorization code for tokens (RFC 9207 `iss` checked first). */
export declare function exchangeAuthorization(
  authorizationServerUrl: string | URL,
  options: {
    metadata?: AuthorizationServerMetadata;
    clientInformation: OAuthClientInformationMixed;
    authorizationCode: string;
    iss?: string;
    codeVerifier: string;
    redirectUri: string | URL;
    resource?: URL;
    addClientAuthentication?: OAuthClientProvider['addClientAuthentication'];
    fetchFn?: FetchLike;
  },
): Promise<OAuthTokens>;

/** Exchanges a refresh token for new tokens (keeping the refresh token when not rotated). */
export declare function refreshAuthorization(
  authorizationServerUrl: string | URL,
  options: {
    metadata?: AuthorizationServerMetadata;
    clientInformation: OAuthClientInformationMixed;
    refreshToken: string;
    resource?: URL;
    addClientAuthentication?: OAuthClientProvider['addClientAuthentication'];
    fetchFn?: FetchLike;
  },
): Promise<OAuthTokens>;

/** Registers the client with an authorization server (RFC 7591 dynamic client registration). */
export declare function registerClient(
  authorizationServerUrl: string | URL,
  options: { metadata?: AuthorizationServerMetadata; clientMetadata: OAuthClientMetadata; scope?: string; fetchFn?: FetchLike },
): Promise<OAuthClientInformationFull>;

/** Reads the `resource_metadata` URL of a response's `WWW-Authenticate` Bearer challenge. */
export declare function extractResourceMetadataUrl(res: Response): URL | undefined;

/** Chooses the RFC 8707 resource to request (the provider's `validateResourceURL` decides when it has one). */
export declare function selectResourceURL(
  serverUrl: string | URL,
  provider: OAuthClientProvider,
  resourceMetadata?: OAuthProtectedResourceMetadata,
): Promise<URL | undefined>;

/** Parses an OAuth error response (a `server_error` when it is not one). */
export declare function parseErrorResponse(input: Response | string): Promise<OAuthErrorLike>;

/** Error carrying an OAuth error code (as returned by {@link parseErrorResponse}). */
export interface OAuthErrorLike extends Error {
  /** The OAuth `error` code (e.g. `invalid_grant`). */
  readonly code: string;
  /** The `error_uri`, when given. */
  readonly errorUri?: string;
  /** The error as an RFC 6749 error response body. */
  toResponseObject(): OAuthErrorResponse;
}

/** Plain `fetch`-compatible function (what the OAuth functions take as `fetchFn`). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Hook to add client authentication to token requests. */
export type AddClientAuthentication = (
  headers: Headers,
  params: URLSearchParams,
  url: string | URL,
  metadata?: AuthorizationServerMetadata,
) => void | Promise<void>;

// ---------------------------------------------------------------------------
// 8d. Server-side OAuth helpers (the MCP SDK's, as @mastra/mcp re-exports them)
// ---------------------------------------------------------------------------

/** Builds a `WWW-Authenticate` value for a 401 (`Bearer resource_metadata="..."`). */
export declare function generateWWWAuthenticateHeader(options?: OAuthResponseOptions): string;

/** Builds the RFC 9728 protected-resource metadata document of a server. */
export declare function generateProtectedResourceMetadata(config: MCPServerOAuthConfig): OAuthProtectedResourceMetadata;

/** Extracts the token of an `Authorization: Bearer` header (`undefined` when there is none). */
export declare function extractBearerToken(authHeader: string | null | undefined): string | undefined;

/** Configuration of an OAuth-protected MCP server (RFC 9728 metadata and token validation). */
export interface MCPServerOAuthConfig {
  /** The server's resource identifier (its URL). */
  resource: string;
  /** Issuers of the authorization servers that grant tokens for it. */
  authorizationServers: string[];
  /** Scopes the server understands. */
  scopesSupported?: string[];
  /** Human readable name. */
  resourceName?: string;
  /** URL of the server's documentation. */
  resourceDocumentation?: string;
  /** Validates an access token presented to the server. */
  validateToken?: (token: string, resource: string) => Promise<TokenValidationResult>;
}

/** Result of validating an access token. */
export interface TokenValidationResult {
  /** Whether the token is accepted. */
  valid: boolean;
  error?: string;
  errorDescription?: string;
  scopes?: string[];
  subject?: string;
  expiresAt?: number;
  claims?: Record<string, unknown>;
}

/** Options of {@link generateWWWAuthenticateHeader}. */
export interface OAuthResponseOptions {
  /** URL of the protected-resource metadata, sent as `resource_metadata`. */
  resourceMetadataUrl?: string;
  /** More `key="value"` parameters of the challenge (e.g. `error`, `scope`). */
  additionalParams?: Record<string, string>;
}

// ---------------------------------------------------------------------------
// 8e. OAuth protocol shapes (RFC 6749, 7591, 8414, 9728, OpenID Connect)
// ---------------------------------------------------------------------------

/** OAuth 2.0 Dynamic Client Registration metadata (RFC 7591). */
export interface OAuthClientMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  response_types?: string[];
  application_type?: string;
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  scope?: string;
  contacts?: string[];
  tos_uri?: string;
  policy_uri?: string;
  jwks_uri?: string;
  jwks?: any;
  software_id?: string;
  software_version?: string;
  software_statement?: string;
}

/** Client credentials issued by an authorization server. */
export interface OAuthClientInformation {
  client_id: string;
  client_secret?: string;
  client_id_issued_at?: number;
  client_secret_expires_at?: number;
}

/** Full registration response: metadata plus issued credentials. */
export interface OAuthClientInformationFull extends OAuthClientMetadata, OAuthClientInformation {}

/** Either form of client information (credentials alone, or the full registration). */
export type OAuthClientInformationMixed = OAuthClientInformation | OAuthClientInformationFull;

/** Client information as persisted by a provider (may be bound to an issuer). */
export type StoredOAuthClientInformation = OAuthClientInformationMixed & { issuer?: string };

/** Context handed to provider methods that read/write issuer-bound credentials. */
export interface OAuthClientInformationContext {
  /** Issuer of the authorization server the credentials belong to. */
  issuer: string;
}

/** OAuth 2.1 token response: the access token and, optionally, a refresh token and lifetime. */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  id_token?: string;
  expires_in?: number;
  scope?: string;
  refresh_token?: string;
}

/** Tokens as persisted by a provider (may be bound to an issuer). */
export type StoredOAuthTokens = OAuthTokens & { issuer?: string };

/** OAuth error response body (RFC 6749 §5.2). */
export interface OAuthErrorResponse {
  error: string;
  error_description?: string;
  error_uri?: string;
}

/** Error body of a failed dynamic client registration. */
export interface OAuthClientRegistrationError {
  error: string;
  error_description?: string;
}

/** Token revocation request (RFC 7009). */
export interface OAuthTokenRevocationRequest {
  token: string;
  token_type_hint?: string;
}

/** Either flavour of authorization server metadata (RFC 8414 or OpenID Connect). */
export type AuthorizationServerMetadata = OAuthMetadata | OpenIdProviderDiscoveryMetadata;

/** Authorization server metadata (RFC 8414). */
export interface OAuthMetadata {
  [key: string]: unknown;
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  response_types_supported: string[];
  registration_endpoint?: string;
  scopes_supported?: string[];
  response_modes_supported?: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  token_endpoint_auth_signing_alg_values_supported?: string[];
  service_documentation?: string;
  revocation_endpoint?: string;
  revocation_endpoint_auth_methods_supported?: string[];
  revocation_endpoint_auth_signing_alg_values_supported?: string[];
  introspection_endpoint?: string;
  introspection_endpoint_auth_methods_supported?: string[];
  introspection_endpoint_auth_signing_alg_values_supported?: string[];
  code_challenge_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
}

/** OpenID Connect discovery metadata. */
export interface OpenIdProviderDiscoveryMetadata {
  [key: string]: unknown;
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  response_types_supported: string[];
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
  userinfo_endpoint?: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  response_modes_supported?: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
}

/** OAuth 2.0 Protected Resource Metadata (RFC 9728). */
export interface OAuthProtectedResourceMetadata {
  [key: string]: unknown;
  resource: string;
  authorization_servers?: string[];
  jwks_uri?: string;
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_signing_alg_values_supported?: string[];
  resource_name?: string;
  resource_documentation?: string;
  resource_policy_uri?: string;
  resource_tos_uri?: string;
  tls_client_certificate_bound_access_tokens?: boolean;
  authorization_details_types_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  dpop_bound_access_tokens_required?: boolean;
}

/** Discovery results a provider may cache between flows. */
export interface OAuthDiscoveryState {
  /** The authorization server that was found. */
  authorizationServerUrl: string;
  authorizationServerMetadata?: AuthorizationServerMetadata;
  resourceMetadata?: OAuthProtectedResourceMetadata;
  resourceMetadataUrl?: string;
}

// ===========================================================================
// 9. InternalMastraMCPClient and MCPClientServerProxy
// ===========================================================================

/** Per-server tool filter (`MastraMCPServerDefinition.tools`): globs over the server's own tool names. */
export interface MCPToolFilter {
  /** Only these tools (`*` matches any run of characters). Omitted: every tool. */
  include?: string[];
  /** Never these tools, even when `include` names them. */
  exclude?: string[];
}

// ---------------------------------------------------------------------------
// Single-server client (internal, exported for parity)
// ---------------------------------------------------------------------------

/**
 * A client of one server: the per-server client `@mastra/mcp` exports (its own tests and advanced
 * users drive it directly). It runs on the same native connection as {@link MCPClient}. Unlike the
 * original, list and read methods connect on first use. It reports the server name and `version`
 * (default `'1.0.0'`) as its `clientInfo`.
 * @internal
 */
export declare class InternalMastraMCPClient extends MastraBase {
  /** The server's name (`options.name`). */
  name: string;
  /** The server's resources: list, templates, read, subscribe, handlers. */
  readonly resources: InternalResourceActions;
  /** The server's prompts: list, get, list-changed handler. */
  readonly prompts: InternalPromptActions;
  /** The server's elicitation handler. */
  readonly elicitation: InternalElicitationActions;
  /** The server's progress handler. */
  readonly progress: InternalProgressActions;
  /** The server's skills (SEP-2640): list, get, load. (An extension: not in `@mastra/mcp`.) */
  readonly skills: InternalSkillActions;
  /** Creates the client (nothing connects yet); throws a `TypeError` without `name` or `server`. */
  constructor(options: InternalMastraMCPClientOptions);

  /** Roots answered to the server's `roots/list` (a copy). */
  get roots(): Root[];
  /** Replaces the roots and sends `notifications/roots/list_changed` when connected. */
  setRoots(roots: Root[]): Promise<void>;
  /** Sends `notifications/roots/list_changed` (nothing when not connected). */
  sendRootsListChanged(): Promise<void>;

  /** OAuth state of the server; `undefined` without an auth provider or before any attempt. */
  get authState(): MCPServerAuthState | undefined;
  /**
   * Completes the authorization a `connect()` started, with the code from the redirect URI — or
   * the whole callback URL, so its `state` and RFC 9207 `iss` are checked (an authorization
   * server that sends `iss` requires that). Then `connect()` again.
   */
  finishAuth(authorizationCode: string, issuer?: string): Promise<void>;
  /** The protocol revision negotiated with the server; `undefined` while not connected (2.0). */
  get negotiatedProtocolVersion(): string | undefined;

  /** Connects (once; concurrent calls share the attempt); resolves `true`. */
  connect(): Promise<boolean>;
  /** Streamable HTTP session id, when connected over Streamable HTTP. */
  get sessionId(): string | undefined;
  /** stderr of a stdio server started with `stderr: 'pipe'`, else `null`. */
  get stderr(): Stream | null;
  /** Instructions the server returned at initialization (`undefined` when not connected). */
  get instructions(): string | undefined;
  /** The server definition's `forwardInstructions` (default `false`). */
  get forwardInstructions(): boolean;
  /** The server definition's `instructionsMaxLength` (default 512). */
  get instructionsMaxLength(): number;
  /** Closes the connection (stops a stdio child; ends a Streamable HTTP session with DELETE). */
  disconnect(): Promise<void>;
  /** Drops the session and connects again. */
  forceReconnect(): Promise<void>;

  /** Every resource of the server (all pages of `resources/list`). */
  listResources(): Promise<ListResourcesResult>;
  /** Reads one resource (`resources/read`). */
  readResource(uri: string): Promise<ReadResourceResult>;
  /** Subscribes to updates of a resource (`resources/subscribe`). */
  subscribeResource(uri: string): Promise<EmptyResult>;
  /** Cancels a subscription (`resources/unsubscribe`). */
  unsubscribeResource(uri: string): Promise<EmptyResult>;
  /** Every resource template of the server (all pages of `resources/templates/list`). */
  listResourceTemplates(): Promise<ListResourceTemplatesResult>;
  /** Every prompt of the server (all pages of `prompts/list`). */
  listPrompts(): Promise<ListPromptsResult>;
  /** Renders a prompt (`prompts/get`). */
  getPrompt(args: { name: string; args?: Record<string, any> }): Promise<GetPromptResult>;

  /**
   * Registers the handler for `notifications/prompts/list_changed`; resolves once a live 2026-07-28 session
   * listens for the change (as in 2.0; 1.18 code may ignore the promise, which never rejects).
   */
  setPromptListChangedNotificationHandler(handler: () => void): Promise<void>;
  /**
   * Registers the handler for `notifications/tools/list_changed`; resolves once a live 2026-07-28 session
   * listens for the change (as in 2.0; 1.18 code may ignore the promise, which never rejects).
   */
  setToolListChangedNotificationHandler(handler: () => void): Promise<void>;
  /** Registers the handler for `notifications/resources/updated` (the last one registered wins). */
  setResourceUpdatedNotificationHandler(handler: (params: any) => void): void;
  /**
   * Registers the handler for `notifications/resources/list_changed`; resolves once a live 2026-07-28 session
   * listens for the change (as in 2.0; 1.18 code may ignore the promise, which never rejects).
   */
  setResourceListChangedNotificationHandler(handler: () => void): Promise<void>;
  /** Registers the elicitation handler and advertises elicitation on connect; throws once connected without it configured. */
  setElicitationRequestHandler(handler: ElicitationHandler): void;
  /** Registers the handler for `notifications/progress` (the last one registered wins). */
  setProgressNotificationHandler(handler: ProgressHandler): void;

  /** Serializable definitions of the server's tools, keyed by tool name. */
  toolDefinitions(): Promise<Record<string, SerializableMCPToolDefinition>>;
  /** Rebuilds one executable tool from a cached definition (connects on first execute). */
  toolFromDefinition(args: { definition: SerializableMCPToolDefinition }): MCPTool;
  /**
   * Rebuilds this server's tools from cached definitions (as `toolDefinitions()` returns them), keyed by
   * tool name, without connecting. A definition whose schema is malformed is set aside with one warning;
   * any other failure rejects. An extension of `@mastra/mcp`.
   */
  toolsFromDefinitions(args: { definitions: Record<string, SerializableMCPToolDefinition> }): Promise<Record<string, MCPTool>>;
  /** The server's tools as Mastra tools, keyed by tool name. */
  tools(): Promise<Record<string, MCPTool>>;
}

/**
 * Options of {@link InternalMastraMCPClient}'s constructor: the server's name and definition.
 * @internal
 */
export type InternalMastraMCPClientOptions = {
  /** The server's name (used in logs, errors and `clientInfo`). */
  name: string;
  /** The server's definition, as in `MCPClient`'s `servers`. */
  server: MastraMCPServerDefinition;
  /** Capabilities to advertise, merged over `server.capabilities`. */
  capabilities?: ClientCapabilities;
  /**
   * The version reported in `clientInfo`.
   * @default '1.0.0'
   */
  version?: string;
  /**
   * Request timeout in milliseconds.
   * @default 60000
   */
  timeout?: number;
  /** Where the server's OAuth credentials outlive the process, as {@link MCPClientOptions.store}. */
  store?: MCPStore;
};

/**
 * Per-server resource actions of {@link InternalMastraMCPClient}.
 * @internal
 */
export interface InternalResourceActions {
  /** The server's resources (`[]` when it has none or lacks the method). */
  list(): Promise<Resource[]>;
  /** The server's resource templates (`[]` when it has none or lacks the method). */
  templates(): Promise<ResourceTemplate[]>;
  /** Reads one resource. */
  read(uri: string): Promise<ReadResourceResult>;
  /** Subscribes to updates of a resource. */
  subscribe(uri: string): Promise<EmptyResult>;
  /** Cancels a subscription. */
  unsubscribe(uri: string): Promise<EmptyResult>;
  /** Registers the handler for `notifications/resources/updated`. */
  onUpdated(handler: ResourceUpdatedHandler): Promise<void>;
  /** Registers the handler for `notifications/resources/list_changed`. */
  onListChanged(handler: ListChangedHandler): Promise<void>;
}

/**
 * Per-server prompt actions of {@link InternalMastraMCPClient}.
 * @internal
 */
export interface InternalPromptActions {
  /** The server's prompts (`[]` when it has none or lacks the method). */
  list(): Promise<Prompt[]>;
  /** Renders a prompt. */
  get(args: { name: string; args?: Record<string, any> }): Promise<GetPromptResult>;
  /** Registers the handler for `notifications/prompts/list_changed`. */
  onListChanged(handler: ListChangedHandler): Promise<void>;
}

/**
 * Per-server elicitation actions of {@link InternalMastraMCPClient}.
 * @internal
 */
export interface InternalElicitationActions {
  /** Registers the handler answering the server's elicitation requests. */
  onRequest(handler: ElicitationHandler): void;
}

/**
 * Per-server progress actions of {@link InternalMastraMCPClient}.
 * @internal
 */
export interface InternalProgressActions {
  /** Registers the handler receiving the server's progress notifications. */
  onUpdate(handler: ProgressHandler): void;
}

// ---------------------------------------------------------------------------
// A client's server as an `MCPServerBase` (for `new Mastra({ mcpServers })`)
// ---------------------------------------------------------------------------

/**
 * Wraps one of an {@link MCPClient}'s server connections as an `MCPServerBase`
 * so that an external MCP server can be registered in Mastra's `mcpServers`
 * (and appear in Studio). Operations are delegated lazily to the connection;
 * the `start*` transports reject (a proxy serves nothing itself), as in `@mastra/mcp`.
 */
export declare class MCPClientServerProxy extends MCPServerBase {
  /** Wraps server `serverName` (default: `config.name`) of `client`; nothing connects yet. */
  constructor(
    config: { name: string; version?: string; id?: string; description?: string },
    client: MCPClient,
    serverName?: string,
  );
  /** Wraps the `InternalMastraMCPClient` the getter resolves to, as `@mastra/mcp` builds a proxy; called on first use. */
  constructor(
    config: { name: string; version?: string; id?: string; description?: string },
    clientGetter: () => Promise<InternalMastraMCPClient>,
  );
  /** Returns `{}`: a proxy has no local tools to convert. */
  convertTools(
    _tools: ToolsInput,
    _agents?: MCPServerConfig['agents'],
    _workflows?: MCPServerConfig['workflows'],
  ): Record<string, any>;
  /** The server's tools as Studio lists them: the cached list synchronously, else a Promise that fetches it. */
  getToolListInfo(): { tools: MCPClientServerProxyToolInfo[] } | Promise<{ tools: MCPClientServerProxyToolInfo[] }>;
  /** One tool of the fetched list, by id or name (`undefined` before `getToolListInfo` has fetched it). */
  getToolInfo(
    toolId: string,
  ): MCPClientServerProxyToolInfo | undefined | Promise<MCPClientServerProxyToolInfo | undefined>;
  /** Runs a tool on the remote server; rejects when the server has no such tool. */
  executeTool(toolId: string, args: any, _executionContext?: { messages?: any[]; toolCallId?: string }): Promise<any>;
  /** The server's resources (uri, name, description, MIME type, `_meta`). */
  listResources(): Promise<{
    resources: Array<{
      uri: string;
      name: string;
      description?: string;
      mimeType?: string;
      _meta?: Record<string, unknown>;
    }>;
  }>;
  /** Reads one resource from the server (each entry's `text` or `blob`). */
  readResource(uri: string): Promise<{ contents: Array<{ uri: string; text?: string; blob?: string }> }>;
  /** Rejects: a proxy does not serve over stdio. */
  startStdio(): Promise<void>;
  /** Rejects: a proxy does not serve over SSE. */
  startSSE(_options: MCPServerSSEOptions): Promise<void>;
  /** Rejects: a proxy does not serve over Hono SSE. */
  startHonoSSE(_options: MCPServerHonoSSEOptions): Promise<Response | undefined>;
  /** Rejects: a proxy does not serve over HTTP. */
  startHTTP(_options: MCPServerHTTPOptions): Promise<void>;
  /** Forgets the cached tool list (the client's connection stays open). */
  close(): Promise<void>;
  /** The proxy's id, name, description and version, as Mastra lists servers. */
  getServerInfo(): ServerInfo;
  /** {@link MCPClientServerProxy.getServerInfo} plus empty `packages` and `remotes`. */
  getServerDetail(): ServerDetailInfo;
}

/** Tool entry reported by {@link MCPClientServerProxy}: name, description and schemas. */
export interface MCPClientServerProxyToolInfo {
  /** The tool's name on the server. */
  id?: string;
  /** The Mastra tool's id (`server_tool`). */
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  inputSchema: any;
  /** JSON Schema of the structured output, if declared. */
  outputSchema?: any;
  /** Mastra's tool type, when the server declared one. */
  toolType?: MCPToolType;
  /** Server-supplied `_meta`. */
  _meta?: Record<string, unknown>;
}

// ===========================================================================
// 10. MCP config files (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf)
// (`MCPClient.fromConfig` / `fromConfigFile` are in group 1; `MCPConfigError` in group 7.)
// ===========================================================================

/** Parses an MCP config object (the content of an `mcp.json`) into server definitions. Throws {@link MCPConfigError}. */
export declare function parseMCPConfig(config: Record<string, unknown>, options?: MCPConfigParseOptions): MCPConfig;

/** Reads and parses an MCP config file (JSON or JSON with comments). Rejects with {@link MCPConfigError}. */
export declare function readMCPConfigFile(path: string | URL, options?: MCPConfigParseOptions): Promise<MCPConfig>;

/** A parsed config: `MCPClient` server definitions plus what the file said about them. */
export interface MCPConfig {
  /** The absolute path (from `readMCPConfigFile`). */
  file?: string;
  /** The dialect the config was read as. */
  format: MCPConfigFormat;
  /** Server definitions ready for `new MCPClient({ servers })`, keyed by server name. */
  servers: Record<string, MastraMCPServerDefinition>;
  /** The transport each entry asks for (`sse` is reached through the Streamable HTTP → SSE fallback). */
  transports: Record<string, 'stdio' | 'http' | 'sse'>;
  /** Entries with `disabled: true` (left out of `servers`). */
  disabled: string[];
}

/** The dialect of an MCP config file (which app wrote it). */
export type MCPConfigFormat = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode' | 'windsurf' | 'generic';

/** Options of {@link parseMCPConfig} / {@link readMCPConfigFile}: dialect, variables and VS Code inputs. */
export interface MCPConfigParseOptions {
  /** Forces a dialect instead of guessing it from the file's name and top-level key. */
  format?: MCPConfigFormat;
  /**
   * Values for VS Code `${input:id}` variables. An input with no value here is read from the
   * environment variable `MCP_INPUT_<ID>` (upper case, other characters as `_`), then from its
   * `default`; otherwise the config is refused. Nothing is ever prompted for.
   */
  inputs?: Record<string, string>;
  /** The environment `${env:VAR}` / `${VAR}` read (default: `process.env`). */
  env?: Record<string, string | undefined>;
  /** The folder `${workspaceFolder}` and a relative `cwd` refer to (default: the file's project folder). */
  workspace?: string;
  /** Named in error messages instead of the path (or `'MCP config'` for an object). */
  label?: string;
}

/** Options of `MCPClient.fromConfig` / `fromConfigFile`: parsing plus the client's own options. */
export interface MCPConfigClientOptions extends MCPConfigParseOptions {
  /** The client's `id` (see {@link MCPClientOptions}). */
  id?: string;
  /** The global request timeout in milliseconds. */
  timeout?: number;
  /** Options for every server (e.g. `{ requireToolApproval: true }`); per-server options win. */
  defaults?: MCPConfigServerOverrides;
  /**
   * Per-server options merged over the file's definition (`requireToolApproval`, `authProvider`,
   * `timeout`, `logger`, ...). `requestInit.headers` are merged with the file's headers. Naming a
   * server that is not in the file is an error.
   */
  servers?: Record<string, MCPConfigServerOverrides>;
}

/** What options may add to or change in a server read from a config file. */
export type MCPConfigServerOverrides = BaseServerOptions &
  Partial<Omit<StdioServerDefinition, keyof BaseServerOptions | 'url' | 'requestInit' | 'eventSourceInit' | 'authProvider' | 'reconnectionOptions' | 'sessionId' | 'connectTimeout' | 'fetch' | 'allowedHosts'>> &
  Partial<Omit<HttpServerDefinition, keyof BaseServerOptions | 'command' | 'args' | 'env' | 'inheritDefaultEnv' | 'stderr' | 'cwd'>>;

// ===========================================================================
// 11. @mastra/mcp 2.0 names (client side): protocol revision, input requests, trace context
// (Their options — `inputRequests`, `traceContext`, `serverLogLevel`, `protocolVersion` — are
// in `BaseServerOptions`, group 2.)
// ===========================================================================

/** The protocol revision the client speaks natively: `'2026-07-28'` (`@mastra/mcp` 2.0's constant). */
export declare const MCP_CLIENT_PROTOCOL_VERSION: '2026-07-28';

/**
 * 2.0's `protocolVersion` values: `'2026-07-28'` (that revision only) or `'legacy'` (the handshake only).
 * In 2.0, omitted means probe first and fall back; here omitted means the handshake first (as 1.18) and
 * `'auto'` means 2.0's probe first. Our `protocolVersion` option also takes handshake revisions
 * (see {@link BaseServerOptions.protocolVersion}).
 */
export type MCPClientProtocolVersion = typeof MCP_CLIENT_PROTOCOL_VERSION | 'legacy';

/** One request for input from a server, as `inputRequests` receives it. */
export interface MCPInputRequest {
  /** The embedded request's key (2026-07-28), or the JSON-RPC id of a pushed `elicitation/create`. */
  key: string;
  /** Form mode (`requestedSchema`) or url mode (`url`). */
  params: ElicitRequestParams;
  /** Aborted when the call is aborted, times out, or the client disconnects. */
  signal: AbortSignal;
}

/** Answers one request for input: `{ action: 'accept', content }`, `{ action: 'decline' }` or `{ action: 'cancel' }`. */
export type MCPInputRequestHandler = (request: MCPInputRequest) => Promise<ElicitResult>;

/** A map of embedded input requests (in an `input_required` result), keyed by server-assigned identifiers. */
export interface InputRequests {
  [key: string]: { method: string; params?: Record<string, unknown> };
}

/**
 * A 2026-07-28 `input_required` result: what a server answers when it needs input before it can finish a
 * `tools/call`, `prompts/get` or `resources/read`. The client answers (through `inputRequests`) and retries.
 */
export interface InputRequiredResult {
  [key: string]: unknown;
  /** Always `'input_required'`. */
  resultType: 'input_required';
  /** Embedded requests the client must fulfil before retrying. */
  inputRequests?: InputRequests;
  /** Opaque server state the client echoes back verbatim on retry. */
  requestState?: string;
  _meta?: ResultMetaObject;
}

/**
 * W3C trace fields carried in a request's `_meta` (SEP-414). Passed through untouched; treat inbound
 * values (especially `baggage`) as untrusted observability data.
 */
export interface MCPTraceContext {
  /** W3C `traceparent` (version, trace id, parent id, flags). */
  traceparent: string;
  /** W3C `tracestate` (vendor-specific entries). */
  tracestate?: string;
  /** W3C `baggage` (application key/value pairs). */
  baggage?: string;
}

/** Reads the trace fields of a request's `_meta` (string values only); `undefined` without a `traceparent`. */
export declare function traceContextFromMeta(meta: Record<string, unknown> | undefined): MCPTraceContext | undefined;

/** Turns a trace context into `_meta` keys (`traceparent`, and `tracestate` / `baggage` when set). */
export declare function traceContextToMeta(traceContext: MCPTraceContext): Record<string, string>;

// ===========================================================================
// Tool pinning (docs/tool-safety.md)
// ===========================================================================

/** A tool lock as `mastra-mcp lock` writes it: per server and tool, the reviewed definition and its hash. */
export interface MCPToolLock {
  lockfileVersion: 1;
  servers: Record<string, { tools: Record<string, { definition: MCPReviewedToolDefinition; sha256: string }> }>;
}

/** The part of a tool definition a person reviews, and a lock pins. */
export interface MCPReviewedToolDefinition {
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** A tool definition as `fingerprintTools` reads it (a listed MCP tool, or a cached definition); other members are not reviewed. */
export type MCPToolDefinitionLike = MCPReviewedToolDefinition & { name?: string; [key: string]: unknown };

/** How one tool differs from a lock. */
export interface MCPToolDrift {
  tool: string;
  /** `changed`: another definition; `added`: not in the lock; `removed`: in the lock, no longer listed. */
  kind: 'changed' | 'added' | 'removed';
  /** The lock's hash (`sha256:<hex>`). */
  expected?: string;
  /** The listed definition's hash. */
  actual?: string;
  /** What changed, by JSON pointer into the reviewed definition (absent side: the member is not there). */
  changes: Array<{ pointer: string; before?: unknown; after?: unknown }>;
  /** Changes not listed in `changes`. */
  more?: number;
}

/** What {@link checkToolLock} found. */
export interface MCPToolLockReport {
  /** True when every listed server is pinned and matches, and every pinned server was listed. */
  ok: boolean;
  /** Per pinned server, its drifted tools. */
  servers: Record<string, MCPToolDrift[]>;
  /** Servers listed but not in the lock. */
  unpinned: string[];
  /** Servers in the lock that were not listed. */
  unlisted: string[];
}

/**
 * Each tool's fingerprint, by name: `sha256:<hex>` over the canonical JSON (keys sorted, no whitespace)
 * of its description, title, input and output schema and annotations — the form a tool lock uses.
 */
export declare function fingerprintTools(tools: MCPToolDefinitionLike[] | Record<string, MCPToolDefinitionLike>): Record<string, string>;

/** What differs between a baseline from {@link fingerprintTools} and tools now, by tool name. */
export declare function detectToolDrift(
  baseline: Record<string, string>,
  tools: MCPToolDefinitionLike[] | Record<string, MCPToolDefinitionLike>,
): { drifted: boolean; changed: string[]; added: string[]; removed: string[] };

/** The text of a tool lock for `listToolDefinitions()`'s result: stable, byte-identical for the same definitions. */
export declare function createToolLock(definitions: Record<string, Record<string, MCPToolDefinitionLike>>): string;

/** Compares a tool lock (a path or the parsed lock) with `listToolDefinitions()`'s result. */
export declare function checkToolLock(
  lock: string | URL | MCPToolLock,
  definitions: Record<string, Record<string, MCPToolDefinitionLike>>,
): MCPToolLockReport;

/** {@link checkToolLock}'s report as a readable diff (empty when it is ok). */
export declare function formatToolDrift(report: MCPToolLockReport): string;

/** The capabilities 2.0 lets a client advertise: `elicitation` and `extensions` (ours: any {@link ClientCapabilities}). */
export type MCPClientCapabilities = Pick<ClientCapabilities, 'elicitation' | 'extensions'>;

/** {@link MCPOAuthClientProvider}'s client metadata; `client_id` is the Client ID Metadata Document's own. */
export interface MCPClientMetadata extends OAuthClientMetadata {
  /** The `client_id` published in a Client ID Metadata Document (equal to `clientMetadataUrl`). */
  client_id?: string;
}

// ===========================================================================
// 12. CLI / typegen (`mastra-mcp typegen` and its function)
// ===========================================================================

/**
 * Compiles a tool catalog (what {@link MCPClient.listToolDefinitions} returns) into a TypeScript
 * file of contracts: per tool `<Server><Tool>Input` / `<Server><Tool>Output` (`unknown` when the tool
 * declares no output schema), `interface MCPServers` (the type argument of `MCPClient`) and
 * `type MCPToolName`. Deterministic: the same catalog gives the same bytes. The same generator as
 * `mastra-mcp typegen`; loaded on first call (an `MCPClient` never loads it).
 */
export declare function generateToolTypes(catalog: SerializableMCPToolCatalog, options?: GenerateToolTypesOptions): Promise<string>;

/** Options of {@link generateToolTypes}. */
export interface GenerateToolTypesOptions {
  /** Replaces the generated banner comment at the top of the file (`''`: none). */
  banner?: string;
}

// ===========================================================================
// 13. MCP protocol building blocks (structural copies of the spec shapes we expose)
// ===========================================================================

/** Any content block that may appear in prompt messages and tool results: text, image, audio, link or resource. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** Text content block. */
export interface TextContent {
  type: 'text';
  /** The text. */
  text: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}

/** Image content block (base64 data). */
export interface ImageContent {
  type: 'image';
  /** Base64-encoded image data. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}

/** Audio content block (base64 data). */
export interface AudioContent {
  type: 'audio';
  /** Base64-encoded audio data. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}

/** A link to a resource, returned inside content (read it with `resources.read`). */
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

/** A resource embedded in content. */
export interface EmbeddedResource {
  type: 'resource';
  /** The resource's contents. */
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: MetaObject;
}

/** Optional hints about how content is meant to be used or displayed. */
export interface Annotations {
  /** Who the content is for. */
  audience?: Array<'user' | 'assistant'>;
  /** Importance from 0 (least) to 1 (most). */
  priority?: number;
  /** ISO 8601 time of the last change. */
  lastModified?: string;
}

/** Result of requests that return nothing (e.g. `resources/subscribe`). */
export interface EmptyResult {
  _meta?: ResultMetaObject;
}

/** Identity of an MCP implementation (client or server). */
export interface Implementation {
  /** Programmatic name. */
  name: string;
  /** Version string. */
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/** An icon a server advertises for a tool, prompt, resource, ... */
export interface Icon {
  /** URL (or `data:` URI) of the image. */
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** Free-form `_meta` object attached to protocol objects. */
export interface MetaObject {
  [key: string]: unknown;
}

/** `_meta` attached to request params (may carry a progress token). */
export interface RequestMetaObject {
  [key: string]: unknown;
  /** Asks the server for progress notifications carrying this token. */
  progressToken?: ProgressToken;
  /** The task the request belongs to. */
  'io.modelcontextprotocol/related-task'?: { taskId: string };
}

/** `_meta` attached to results; servers may identify themselves in it. */
export interface ResultMetaObject {
  [key: string]: unknown;
  /** The answering server's identity. */
  'io.modelcontextprotocol/serverInfo'?: Implementation;
}

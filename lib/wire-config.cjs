'use strict';
// Converts user server definitions into the plain JSON the native core validates. JS-only values
// (URL objects, Headers, functions) are adapted here; every check happens in Rust.

function headersToObject(headers) {
  if (!headers) return undefined;
  if (typeof headers.forEach === 'function' && typeof headers.get === 'function') {
    const out = {};
    headers.forEach((v, k) => {
      out[k] = v;
    });
    return out;
  }
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return typeof headers === 'object' ? { ...headers } : headers;
}

/** Where InternalMastraMCPClient puts its `version` on the definition it passes down (not user-visible). */
const CLIENT_VERSION = Symbol('mastra-mcp-native.clientVersion');

function toWireDefinition(def) {
  if (!def || typeof def !== 'object') return def;
  const wire = {
    command: def.command,
    args: def.args,
    env: def.env,
    cwd: def.cwd,
    inheritDefaultEnv: def.inheritDefaultEnv,
    stderr: typeof def.stderr === 'string' ? def.stderr : def.stderr == null ? undefined : 'pipe',
    url: def.url instanceof URL ? def.url.href : def.url,
    headers: headersToObject(def.requestInit?.headers),
    connectTimeout: def.connectTimeout,
    timeout: def.timeout,
    enableServerLogs: def.enableServerLogs,
    serverLogLevel: def.serverLogLevel,
    preferTasks: def.preferTasks,
    // `{ include?, exclude? }` globs over the server's own tool names (checked in the core).
    tools: def.tools,
    resetTimeoutOnProgress: def.resetTimeoutOnProgress,
    maxTotalTimeout: def.maxTotalTimeout,
    toolsCacheTtlMs: def.toolsCacheTtlMs,
    clientVersion: typeof def[CLIENT_VERSION] === 'string' ? def[CLIENT_VERSION] : undefined,
    capabilities: def.capabilities,
    // An `inputRequests` handler advertises form elicitation (as in @mastra/mcp 2.0).
    elicitation: typeof def.inputRequests === 'function' || undefined,
    roots: def.roots,
    protocolVersion: def.protocolVersion,
    allowedHosts: def.allowedHosts,
    // A `requestInit.dispatcher` (an undici Agent or ProxyAgent: client certificates, a proxy of
    // the user's) binds identity to connections: such a server's requests go through `fetch` with
    // it, never through the process's shared connection pool.
    customFetch:
      typeof def.fetch === 'function' || typeof def.eventSourceInit?.fetch === 'function' || def.requestInit?.dispatcher != null || undefined,
    oauth: def.authProvider ? true : undefined,
  };
  for (const k of Object.keys(wire)) if (wire[k] === undefined) delete wire[k];
  return wire;
}

function toWireServers(servers) {
  const out = {};
  for (const [name, def] of Object.entries(servers)) out[name] = toWireDefinition(def);
  return out;
}

module.exports = { toWireServers, CLIENT_VERSION };

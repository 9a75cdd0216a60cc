'use strict';
// Assembles the public API from a set of @mastra/core modules (or stand-ins).
const { withFallbacks } = require('./core-deps.cjs');
const { createKit } = require('./client/host.cjs');
const { createMCPClientClass } = require('./client/mcp-client.cjs');
const { createInternalClientClass } = require('./client/internal-client.cjs');
const content = require('./call-tool-content.cjs');
const oauth = require('./oauth/oauth.cjs');
const oauthSteps = require('./oauth/steps.cjs');
const configFile = require('./config-file.cjs');
const trace = require('./trace-context.cjs');
const toolLock = require('./tool-lock.cjs');
const store = require('./store.cjs');

// The provider's storage hook for `MCPClient({ store })` stays internal.
const { ADOPT_STORAGE: _adopt, ...oauthApi } = oauth;

/**
 * The typegen generator, loaded on first call only: an MCPClient never loads it (a static string
 * so bundlers still trace the file).
 */
async function generateToolTypes(catalog, options) {
  return require('./typegen/generate.cjs').generateToolTypes(catalog, options);
}

function createFace(core) {
  const deps = withFallbacks(core);
  // Both client classes are built from the same modules over one kit (deps, the tools module).
  const kit = createKit(deps);
  const { MCPClient, MCPClientServerProxy } = createMCPClientClass(kit);
  configFile.attachConfigStatics(MCPClient);
  const { InternalMastraMCPClient } = createInternalClientClass(kit);
  return {
    MCPClient,
    InternalMastraMCPClient,
    MCPClientServerProxy,
    MCP_CALL_TOOL_CONTENT: content.MCP_CALL_TOOL_CONTENT,
    MCP_CALL_TOOL_META: content.MCP_CALL_TOOL_META,
    getMcpCallToolContent: content.getMcpCallToolContent,
    getMcpCallToolMeta: content.getMcpCallToolMeta,
    ...oauthApi,
    createMCPStore: store.createMCPStore,
    MCPStore: store.MCPStore,
    MCPStoreError: store.MCPStoreError,
    ...oauthSteps,
    MCPConfigError: configFile.MCPConfigError,
    parseMCPConfig: configFile.parseMCPConfig,
    readMCPConfigFile: configFile.readMCPConfigFile,
    generateToolTypes,
    MCP_CLIENT_PROTOCOL_VERSION: trace.MCP_CLIENT_PROTOCOL_VERSION,
    traceContextFromMeta: trace.traceContextFromMeta,
    traceContextToMeta: trace.traceContextToMeta,
    fingerprintTools: toolLock.fingerprintTools,
    detectToolDrift: toolLock.detectToolDrift,
    createToolLock: toolLock.createToolLock,
    checkToolLock: toolLock.checkToolLock,
    formatToolDrift: toolLock.formatToolDrift,
  };
}

module.exports = { createFace };

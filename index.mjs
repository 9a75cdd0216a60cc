// ESM entry: loads @mastra/core through import, so tools are instances of the ESM copy of core's
// classes that an ESM app uses (the dual-package hazard). The heavy tools module loads lazily.
// A static import (not createRequire) so bundlers such as `mastra build` can trace ./lib and the binary.
import { fileURLToPath } from 'node:url';
import faceModule from './lib/face.cjs';
import toolsChunk from './lib/core-tools-chunk.cjs';

const { createFace } = faceModule;
let coreError;

async function tryImport(id) {
  try {
    return await import(id);
  } catch (e) {
    if (e && (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED')) {
      coreError ??= e;
      return undefined;
    }
    throw e;
  }
}

/** `@mastra/core/tools`'s `Tool` chunk alone when it can be found (lib/core-tools-chunk.cjs), else the entry. */
async function toolsModule() {
  const chunk = await toolsChunkModule().catch(() => undefined);
  return chunk ?? import('@mastra/core/tools');
}

async function toolsChunkModule() {
  if (typeof import.meta.resolve !== 'function' || !toolsChunk.runsFromPackage(fileURLToPath(new URL('.', import.meta.url)))) return undefined;
  const entry = import.meta.resolve('@mastra/core/tools');
  const chunk = entry.startsWith('file:') ? toolsChunk.chunkFor(fileURLToPath(entry), toolsChunk.esmChunkOf) : undefined;
  return chunk && toolsChunk.bindingsOf(await import(new URL(chunk.path, entry).href), chunk.names);
}

const [base, error, mcp] = await Promise.all([
  tryImport('@mastra/core/base'),
  tryImport('@mastra/core/error'),
  tryImport('@mastra/core/mcp'),
]);

const face = createFace({
  MastraBase: base?.MastraBase,
  MastraError: error?.MastraError,
  ErrorDomain: error?.ErrorDomain,
  ErrorCategory: error?.ErrorCategory,
  MCPServerBase: mcp?.MCPServerBase,
  coreError: base ? undefined : coreError,
  loadTools: base
    ? async () => {
        const [tools, schema] = await Promise.all([toolsModule(), tryImport('@mastra/core/schema')]);
        return { createTool: tools.createTool, validateToolOutput: tools.validateToolOutput, toStandardSchema: schema?.toStandardSchema };
      }
    : undefined,
});

export const {
  MCPClient,
  InternalMastraMCPClient,
  MCPClientServerProxy,
  MCP_CALL_TOOL_CONTENT,
  MCP_CALL_TOOL_META,
  getMcpCallToolContent,
  getMcpCallToolMeta,
  MCPOAuthClientProvider,
  InMemoryOAuthStorage,
  createSimpleTokenProvider,
  createOAuthCallbackServer,
  getCallbackUrlCandidates,
  UnauthorizedError,
  auth,
  discoverOAuthProtectedResourceMetadata,
  discoverOAuthMetadata,
  discoverAuthorizationServerMetadata,
  buildDiscoveryUrls,
  startAuthorization,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  extractResourceMetadataUrl,
  selectResourceURL,
  parseErrorResponse,
  generateWWWAuthenticateHeader,
  generateProtectedResourceMetadata,
  extractBearerToken,
  MCPConfigError,
  parseMCPConfig,
  readMCPConfigFile,
  generateToolTypes,
  MCP_CLIENT_PROTOCOL_VERSION,
  traceContextFromMeta,
  traceContextToMeta,
  fingerprintTools,
  detectToolDrift,
  createToolLock,
  checkToolLock,
  formatToolDrift,
  createMCPStore,
  MCPStore,
  MCPStoreError,
} = face;
export default face;

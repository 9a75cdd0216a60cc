// ESM entry: loads @mastra/core through import, so tools are instances of the ESM copy of core's
// classes that an ESM app uses (the dual-package hazard). The heavy tools module loads lazily.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createFace } = require('./lib/face.cjs');

async function tryImport(id) {
  try {
    return await import(id);
  } catch (e) {
    if (e && (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED')) return undefined;
    throw e;
  }
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
  loadTools: base
    ? async () => {
        const [tools, schema] = await Promise.all([import('@mastra/core/tools'), tryImport('@mastra/core/schema')]);
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
} = face;
export default face;

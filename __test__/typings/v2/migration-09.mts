// Example 9 of @mastra/mcp 2.0's reference-migrations-mcp-v2.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPOAuthClientProvider } from '@mastra/mcp'
// ---- example ----
const authProvider = new MCPOAuthClientProvider({
    redirectUrl: 'http://localhost:3000/oauth/callback',
    clientMetadata: { client_name: 'My Agent', redirect_uris: ['http://localhost:3000/oauth/callback'] },
    clientInformation: { client_id: process.env.MCP_OAUTH_CLIENT_ID! },
  });
export {}

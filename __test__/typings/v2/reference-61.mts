// Example 61 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient, MCPOAuthClientProvider } from '@mastra/mcp'
// ---- example ----

// Create an OAuth provider
const clientMetadataUrl = 'https://app.example.com/oauth/client-metadata.json'

const oauthProvider = new MCPOAuthClientProvider({
  redirectUrl: 'http://localhost:3000/oauth/callback',
  clientMetadataUrl,
  clientMetadata: {
    client_id: clientMetadataUrl,
    redirect_uris: ['http://localhost:3000/oauth/callback'],
    client_name: 'My MCP Client',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  },
  onRedirectToAuthorization: url => {
    // Handle authorization redirect (open browser, redirect response, etc.)
    console.log(`Please visit: ${url}`)
  },
})

// Use the provider with MCPClient
const client = new MCPClient({
  servers: {
    protectedServer: {
      url: new URL('https://mcp.example.com/mcp'),
      authProvider: oauthProvider,
    },
  },
})
export {}

// Example 63 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { createOAuthCallbackServer, getCallbackUrlCandidates } from '@mastra/mcp'
declare const expectedState: string
// ---- example ----

// getCallbackUrlCandidates() lists every URL the helper may bind, so list all
// of them as redirect_uris in your pre-registration or metadata document.
const redirectUris = getCallbackUrlCandidates('http://127.0.0.1:5533/oauth/callback').map(url =>
  url.toString(),
)

const server = await createOAuthCallbackServer({
  redirectUrl: 'http://127.0.0.1:5533/oauth/callback',
  state: expectedState,
})

// server.url reflects the port actually bound — use it as the redirect_uri.
try {
  const { code, iss } = await server.waitForCode()
  // Exchange the code here, passing `iss` so the SDK validates the issuer.
} finally {
  await server.close()
}
export {}

// A conformance-suite client program driven by our MCPClient through its documented API only,
// written as a user would write it. The suite runs
// `node client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO (and, for some scenarios,
// MCP_CONFORMANCE_CONTEXT) set, and judges what reaches its servers.
import { MCPClient, MCPOAuthClientProvider } from '../../index.mjs';

const serverUrl = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

/** The "browser": the suite's authorization endpoint answers with a redirect to our callback. */
async function browse(url) {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (location) await fetch(location).catch(() => {});
}

function oauthProvider() {
  const redirectUrl = 'http://127.0.0.1:47123/callback';
  return new MCPOAuthClientProvider({
    redirectUrl,
    clientMetadata: {
      client_name: 'mastra-mcp-native conformance client',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    clientInformation: context.client_id ? { client_id: context.client_id, client_secret: context.client_secret, redirect_uris: [redirectUrl] } : undefined,
    clientMetadataUrl: scenario === 'auth/basic-cimd' ? 'https://conformance-test.local/client-metadata.json' : undefined,
    onRedirectToAuthorization: (url) => browse(url.href),
  });
}

/**
 * A user who accepts without filling in anything: the client applies the schema's defaults
 * (SEP-1034), not this program.
 */
const acceptAsIs = async () => ({ action: 'accept', content: {} });

async function main() {
  const auth = scenario.startsWith('auth/');
  const client = new MCPClient({
    servers: { s: { url: new URL(serverUrl), ...(auth ? { authProvider: oauthProvider() } : {}), timeout: 20000 } },
  });
  try {
    if (scenario.startsWith('elicitation')) await client.elicitation.onRequest('s', acceptAsIs);
    if (auth) await client.authenticate('s', { timeoutMs: 20000 });
    // A server may refuse a request after connecting (401, or 403 asking for more scope):
    // authorize again, then retry, as an application would.
    const withAuthRetry = async (work) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await work();
        } catch (e) {
          if (!auth || attempt >= 2 || client.getServerAuthState('s') !== 'needs-auth') throw e;
          await client.authenticate('s', { timeoutMs: 20000 });
        }
      }
    };
    const tools = await withAuthRetry(async () => {
      const { tools, errors } = await client.listToolsWithErrors();
      if (errors.s) throw new Error(errors.s);
      return tools;
    });
    for (const tool of Object.values(tools)) {
      const args = tool.id.endsWith('add_numbers') ? { a: 2, b: 3 } : {};
      await withAuthRetry(() => tool.execute(args, {}));
    }
  } finally {
    await client.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`conformance client failed: ${e?.stack ?? e}`);
    process.exit(1);
  },
);

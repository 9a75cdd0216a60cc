// A conformance-suite client program driven by our MCPClient through its documented API only,
// written as a user would write it. The suite runs
// `node client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO (and, for some scenarios,
// MCP_CONFORMANCE_CONTEXT and MCP_CONFORMANCE_PROTOCOL_VERSION) set, and judges what reaches its
// servers. Used by both suites (0.1.16 and 0.2.0-alpha.12).
//
// The protocol revision: the client is left at its default (no `protocolVersion`), unless
// CONFORMANCE_PIN=1 (set by our runner, not the suite), in which case a scenario the suite runs
// at the stateless revision (MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28) gets
// `protocolVersion: '2026-07-28'`, as a user who knows the server is modern would write.
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { MCPClient, MCPOAuthClientProvider } from '../../index.mjs';

const serverUrl = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const suiteVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const pinned = process.env.CONFORMANCE_PIN === '1' && suiteVersion === '2026-07-28' ? { protocolVersion: '2026-07-28' } : {};

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
    // The DPoP scenarios ask for sender-constrained tokens (RFC 9449).
    dpop: scenario.startsWith('auth/dpop'),
  });
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * A provider for a grant without a browser, as the MCP SDK's provider interface takes it: no
 * redirect URL, the grant's parameters from `prepareTokenRequest`, the client's authentication
 * in `addClientAuthentication`. The client still discovers the authorization server and the
 * resource, and tells the provider both (`saveAuthorizationServerUrl`, `saveResourceUrl`).
 */
function grantProvider({ prepare, authenticate, clientId = context.client_id }) {
  let tokens;
  const found = {};
  return {
    redirectUrl: undefined,
    clientMetadata: { client_name: 'mastra-mcp-native conformance client', redirect_uris: [], grant_types: ['client_credentials', JWT_BEARER] },
    clientInformation: () => ({ client_id: clientId }),
    tokens: () => tokens,
    saveTokens: (t) => void (tokens = t),
    redirectToAuthorization: () => {
      throw new Error('this grant needs no browser');
    },
    saveCodeVerifier: () => {},
    codeVerifier: () => '',
    saveAuthorizationServerUrl: (url) => void (found.issuer = url),
    saveResourceUrl: (url) => void (found.resource = url),
    prepareTokenRequest: (scope) => prepare(scope, found),
    ...(authenticate ? { addClientAuthentication: authenticate } : {}),
  };
}

const basicAuthentication = (headers) => {
  const secret = `${encodeURIComponent(context.client_id)}:${encodeURIComponent(context.client_secret)}`;
  headers.set('Authorization', `Basic ${Buffer.from(secret).toString('base64')}`);
};

/** The grants of the suite's extension scenarios, each as its extension describes it. */
const grants = {
  // SEP-1046: client credentials, with a secret or a private_key_jwt assertion signed with the
  // application's key: the official SDK's own providers (`@modelcontextprotocol/sdk`, which
  // `@mastra/mcp` 1.18 brings), handed to our client as they are.
  'auth/client-credentials-basic': () => new ClientCredentialsProvider({ clientId: context.client_id, clientSecret: context.client_secret }),
  'auth/client-credentials-jwt': () =>
    new PrivateKeyJwtProvider({ clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' }),
  // Workload identity federation: the workload's JWT is the assertion of a JWT-bearer grant.
  'auth/wif-jwt-bearer': () =>
    grantProvider({ prepare: (scope) => new URLSearchParams({ grant_type: JWT_BEARER, assertion: context.valid_jwt, ...(scope ? { scope } : {}) }) }),
  // Enterprise-managed authorization (SEP-990; 0.1.16 calls it cross-app access).
  'auth/enterprise-managed-authorization': () => enterpriseManaged(),
  'auth/cross-app-access-complete-flow': () => enterpriseManaged(),
};

/**
 * Enterprise-managed authorization: the application exchanges its IdP ID token for an ID-JAG
 * at the IdP (RFC 8693), for the authorization server and resource the client discovered, then
 * presents it in a JWT-bearer grant.
 */
function enterpriseManaged() {
  return (
    grantProvider({
      prepare: async (scope, found) => {
        const exchange = await fetch(context.idp_token_endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
            requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
            audience: found.issuer,
            resource: found.resource,
            subject_token: context.idp_id_token,
            subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
            client_id: context.idp_client_id,
          }),
        });
        if (!exchange.ok) throw new Error(`the IdP refused the token exchange: ${await exchange.text()}`);
        const { access_token: idJag } = await exchange.json();
        return new URLSearchParams({ grant_type: JWT_BEARER, assertion: idJag, ...(scope ? { scope } : {}) });
      },
      authenticate: basicAuthentication,
    })
  );
}

/**
 * A user who accepts without filling in anything: the client applies the schema's defaults
 * (SEP-1034), not this program.
 */
const acceptAsIs = async () => ({ action: 'accept', content: {} });

/** What to call: the calls the suite names in its context, else every listed tool. */
async function plannedCalls(client) {
  if (Array.isArray(context.toolCalls)) return context.toolCalls.map((c) => ({ name: c.name, args: c.arguments ?? {} }));
  const { definitions, errors } = await client.listToolDefinitionsWithErrors();
  if (errors.s) throw new Error(errors.s);
  const tools = Object.values(definitions.s ?? {});
  // json-schema-2020-12-preservation asks for the schema it listed to be echoed back as listed.
  const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
  if (focal && tools.some((t) => t.name === 'json_schema_echo')) return [{ name: 'json_schema_echo', args: { schema: focal.inputSchema } }];
  return tools.map((t) => ({ name: t.name, args: t.name === 'add_numbers' ? { a: 2, b: 3 } : argumentsFor(t.inputSchema) }));
}

/** Arguments a user would type for a tool: a plain value for each required property. */
function argumentsFor(schema) {
  const sample = { string: 'conformance', number: 1, integer: 1, boolean: true, array: [], object: {} };
  const properties = schema?.properties ?? {};
  return Object.fromEntries((schema?.required ?? []).map((key) => [key, sample[properties[key]?.type] ?? 'conformance']));
}

/**
 * What else the server offers, as a user browsing it would look: its resources (reading the
 * first) and its prompts (rendering the first, each required argument filled in). A server
 * without resources or prompts lists none.
 */
async function lookAround(client) {
  const { resources } = await client.resources.listWithErrors();
  const resource = resources.s?.[0];
  if (resource) await client.resources.read('s', resource.uri);
  const { prompts } = await client.prompts.listWithErrors();
  const prompt = prompts.s?.[0];
  if (prompt) {
    const args = Object.fromEntries((prompt.arguments ?? []).filter((a) => a.required).map((a) => [a.name, 'conformance']));
    await client.prompts.get({ serverName: 's', name: prompt.name, args });
  }
}

/**
 * Skills (SEP-2640), as a user would use them: browse what the server offers (a listing reads
 * no file); in the verify scenarios the user also picks the skill offered, loads it and reads its
 * files. Verification is the client's: a skill that fails it does not load, so none of its files
 * is read, and the user is told why.
 */
async function useSkills(client) {
  if (!scenario.startsWith('sep-2640-client-')) return;
  const offered = await client.skills.list('s');
  if (!scenario.startsWith('sep-2640-client-verify-')) return;
  for (const entry of offered) {
    let skill;
    try {
      skill = await client.skills.load('s', entry);
    } catch (e) {
      console.error(`skill ${entry.uri} not loaded: ${e.message}`);
      continue;
    }
    for (const path of skill.files.filter((p) => p !== 'SKILL.md')) await skill.readFile(path);
  }
}

async function main() {
  const interactive = scenario.startsWith('auth/') && !(scenario in grants);
  const authProvider = scenario in grants ? grants[scenario]() : interactive ? oauthProvider() : undefined;
  const client = new MCPClient({
    servers: { s: { url: new URL(serverUrl), ...(authProvider ? { authProvider } : {}), ...pinned, timeout: 20000 } },
  });
  try {
    await client.elicitation.onRequest('s', acceptAsIs);
    if (interactive) await client.authenticate('s', { timeoutMs: 20000 });
    // A server may refuse a request after connecting (401, or 403 asking for more scope):
    // authorize again, then retry, as an application would.
    const withAuthRetry = async (work) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await work();
        } catch (e) {
          if (!interactive || attempt >= 2 || client.getServerAuthState('s') !== 'needs-auth') throw e;
          await client.authenticate('s', { timeoutMs: 20000 });
        }
      }
    };
    const tools = await withAuthRetry(async () => {
      const { tools, errors } = await client.listToolsWithErrors();
      if (errors.s) throw new Error(errors.s);
      return tools;
    });
    for (const { name, args } of await withAuthRetry(() => plannedCalls(client))) {
      const tool = tools[`s_${name}`];
      if (!tool) throw new Error(`the server did not list the tool ${name}`);
      await withAuthRetry(() => tool.execute(args, {}));
    }
    await lookAround(client);
    await useSkills(client);
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

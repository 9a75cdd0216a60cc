// The optional hooks of the MCP SDK's OAuthClientProvider in MCPClient: a machine-to-machine
// provider (no redirect URL, `prepareTokenRequest` for client_credentials) connects with no
// browser, and `addClientAuthentication` authenticates its token requests. Real oidc-provider
// authorization server and protected MCP server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient } from '../index.mjs';
import { startAuthorizationServer } from './fixtures/oauth/authorization-server.mjs';
import { startProtectedMcpServer } from './fixtures/oauth/protected-mcp-server.mjs';

const BASIC = { client_id: 'm2m-basic', client_secret: 'm2m-basic-secret' };
const POST = { client_id: 'm2m-post', client_secret: 'm2m-post-secret' };

let as;
let mcp;
before(async () => {
  const m2m = (c, method) => ({ ...c, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: method });
  as = await startAuthorizationServer({
    clients: [m2m(BASIC, 'client_secret_basic'), m2m(POST, 'client_secret_post')],
    configure(config) {
      config.features.clientCredentials = { enabled: true };
    },
  });
  mcp = await startProtectedMcpServer({ authorizationServer: as });
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await mcp?.close();
  await as?.close();
});

/** A machine-to-machine provider in the SDK's OAuthClientProvider shape (no redirectUrl). */
function m2mProvider(clientInformation, hooks = {}) {
  const store = { redirects: [], prepared: [] };
  return {
    store,
    redirectUrl: undefined,
    clientMetadata: { client_name: 'm2m', redirect_uris: [], grant_types: ['client_credentials'] },
    clientInformation: () => clientInformation,
    tokens: () => store.tokens,
    saveTokens: (t) => {
      store.tokens = t;
    },
    redirectToAuthorization: (url) => {
      store.redirects.push(url);
    },
    saveCodeVerifier: () => {},
    codeVerifier: () => {
      throw new Error('no code verifier in a client_credentials flow');
    },
    prepareTokenRequest: (scope) => {
      store.prepared.push(scope);
      return new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read' });
    },
    ...hooks,
  };
}

let n = 0;
function client(provider) {
  const c = new MCPClient({ id: `oauth-hooks-${n++}`, servers: { m2m: { url: new URL(mcp.url), authProvider: provider } } });
  clients.push(c);
  return c;
}

test('a client_credentials provider (prepareTokenRequest, no redirectUrl) connects with no browser', async () => {
  const provider = m2mProvider(BASIC);
  const c = client(provider);
  const tools = await c.listTools();
  assert.ok(Object.keys(tools).some((k) => k.endsWith('whoami')), Object.keys(tools).join(','));
  assert.equal(provider.store.redirects.length, 0, 'no browser step');
  assert.equal(provider.store.prepared.length, 1);
  assert.equal(typeof provider.store.tokens?.access_token, 'string');
  const accepted = mcp.state.authResults.filter((r) => r.ok);
  assert.ok(accepted.length > 0);
  assert.ok(accepted.every((r) => r.clientId === BASIC.client_id));
  // The token request used the server's preferred client_secret_basic.
  const tokenRequests = as.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/token'));
  assert.match(tokenRequests.at(-1).headers.authorization ?? '', /^Basic /);
  assert.equal(c.getServerAuthState('m2m'), 'authorized');
});

test('addClientAuthentication authenticates the token request instead of the built-in methods', async () => {
  const calls = [];
  const provider = m2mProvider(POST, {
    addClientAuthentication: async (headers, params, url, metadata) => {
      calls.push({ headers: headers instanceof Headers, params: params instanceof URLSearchParams, url: String(url), issuer: metadata?.issuer });
      params.set('client_id', POST.client_id);
      params.set('client_secret', POST.client_secret);
    },
  });
  const before = as.requests.length;
  const c = client(provider);
  await c.listTools();
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0], { headers: true, params: true, url: `${as.issuer}/token`, issuer: as.issuer });
  const tokenRequest = as.requests.slice(before).find((r) => r.method === 'POST' && r.path.startsWith('/token'));
  assert.equal(tokenRequest.headers.authorization, undefined);
  assert.equal(new URLSearchParams(tokenRequest.body).get('client_id'), POST.client_id);
  assert.ok(mcp.state.authResults.some((r) => r.ok && r.clientId === POST.client_id));
});

test('a client_credentials token that expires, or that the server rejects, is granted again through prepareTokenRequest', async () => {
  const provider = m2mProvider(BASIC);
  const c = client(provider);
  const tools = await c.listTools();
  const whoami = Object.entries(tools).find(([k]) => k.endsWith('whoami'))[1];
  assert.equal(provider.store.prepared.length, 1);
  const first = provider.store.tokens.access_token;

  // The stored token says it has expired.
  provider.store.tokens = { ...provider.store.tokens, obtained_at: provider.store.tokens.obtained_at - 10 * provider.store.tokens.expires_in };
  assert.equal((await whoami.execute({}, {})).client_id, BASIC.client_id);
  assert.equal(provider.store.prepared.length, 2, 'granted again before the request');
  const second = provider.store.tokens.access_token;
  assert.notEqual(second, first);

  // The server rejects the token (revoked, say).
  provider.store.tokens = { ...provider.store.tokens, access_token: 'revoked' };
  assert.equal((await whoami.execute({}, {})).client_id, BASIC.client_id);
  assert.equal(provider.store.prepared.length, 3, 'granted again after the 401');
  assert.equal(c.getServerAuthState('m2m'), 'authorized');
  assert.equal(provider.store.redirects.length, 0, 'never a browser step');
});

// OAuth 2.1 against a real authorization server (oidc-provider) and a protected MCP server that
// validates its tokens; a headless consent step stands in for the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { freePort } from './fixtures/helpers.mjs';
import {
  MCPClient,
  MCPOAuthClientProvider,
  InMemoryOAuthStorage,
  createOAuthCallbackServer,
  getCallbackUrlCandidates,
} from '../index.mjs';
import { MastraError } from '@mastra/core/error';
import { startAuthorizationServer } from './fixtures/oauth/authorization-server.mjs';
import { startProtectedMcpServer } from './fixtures/oauth/protected-mcp-server.mjs';
import { completeAuthorization } from './fixtures/oauth/consent.mjs';

let as;
let mcp;
before(async () => {
  as = await startAuthorizationServer({
    accessTokenTTL: 3,
    clients: [
      {
        client_id: 'confidential-test',
        client_secret: 'confidential-secret',
        redirect_uris: ['http://127.0.0.1:47911/oauth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
  });
  mcp = await startProtectedMcpServer({ authorizationServer: as });
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await mcp?.close();
  await as?.close();
});
let n = 0;
function client(provider, extra = {}) {
  const c = new MCPClient({ id: `oauth-${n++}`, servers: { p: { url: mcp.url, authProvider: provider, ...extra } } });
  clients.push(c);
  return c;
}

/** A provider whose "browser" completes consent and delivers the callback, like a user would. */
function browserProvider({ port, storage = new InMemoryOAuthStorage(), clientInformation, tamper } = {}) {
  const seen = [];
  const deliveries = [];
  const redirectUrl = `http://127.0.0.1:${port}/oauth/callback`;
  const provider = new MCPOAuthClientProvider({
    redirectUrl,
    clientMetadata: {
      client_name: 'mastra-mcp-native tests',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: clientInformation ? 'client_secret_basic' : 'none',
    },
    clientInformation,
    storage,
    onRedirectToAuthorization: (url) => {
      seen.push(url);
      const done = tamper
        ? completeAuthorization(url.href).then(({ callbackUrl }) => fetch(tamper(new URL(callbackUrl))))
        : completeAuthorization(url.href, { deliver: true });
      deliveries.push(done.catch((e) => e));
    },
  });
  return { provider, seen, deliveries, storage };
}

test('oauth: needs-auth → authenticate → authorized → refresh after expiry → a new client reuses stored tokens', async () => {
  const port = await freePort();
  const { provider, seen, storage } = browserProvider({ port });
  const c = client(provider);

  const first = await c.listToolsWithErrors();
  assert.equal(first.errors.p, 'Failed to connect to MCP server p: UnauthorizedError: Unauthorized');
  assert.equal(c.getServerAuthState('p'), 'needs-auth');
  assert.equal(seen.length, 1, 'the provider was asked to redirect the user');
  const authUrl = seen[0];
  assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(authUrl.searchParams.get('resource'), mcp.url);
  assert.ok(authUrl.searchParams.get('state'));

  await c.authenticate('p', { timeoutMs: 20000 });
  assert.equal(c.getServerAuthState('p'), 'authorized');
  assert.equal(await provider.hasValidTokens(), true);
  const tools = await c.listTools();
  const who = await tools.p_whoami.execute({}, {});
  assert.equal(who.sub, 'alice');

  const tokensBefore = new Set(mcp.state.tokensSeen);
  await new Promise((r) => setTimeout(r, 3500)); // the access token lives 3 s
  const again = await tools.p_whoami.execute({}, {});
  assert.equal(again.sub, 'alice');
  assert.ok(as.requests.some((r) => r.path.startsWith('/token') && r.body.includes('grant_type=refresh_token')), 'refreshed');
  assert.ok(mcp.state.tokensSeen.some((t) => !tokensBefore.has(t)), 'a new access token was used');

  const redirectsBefore = seen.length;
  assert.ok((await provider.discoveryState())?.authorizationServerMetadata?.token_endpoint, 'discovery was saved');
  const discoveryRequests = () => as.requests.filter((r) => r.path.startsWith('/.well-known/')).length;
  const discoveryBefore = discoveryRequests();
  const second = client(new MCPOAuthClientProvider({ redirectUrl: provider.redirectUrl, clientMetadata: provider.clientMetadata, storage }));
  const reused = await second.listTools();
  assert.equal((await reused.p_whoami.execute({}, {})).sub, 'alice');
  assert.equal(second.getServerAuthState('p'), 'authorized');
  assert.equal(seen.length, redirectsBefore, 'no browser step with stored tokens');
  assert.equal(discoveryRequests(), discoveryBefore, 'the saved discovery state was used');
});

test('oauth: a confidential pre-registered client authenticates with client_secret_basic', async () => {
  const { provider } = browserProvider({
    port: 47911,
    clientInformation: { client_id: 'confidential-test', client_secret: 'confidential-secret', redirect_uris: ['http://127.0.0.1:47911/oauth/callback'] },
  });
  const c = client(provider);
  await c.authenticate('p', { timeoutMs: 20000 });
  assert.equal(c.getServerAuthState('p'), 'authorized');
  const tokenCalls = as.requests.filter((r) => r.path.startsWith('/token') && r.body.includes('grant_type=authorization_code'));
  const basic = `Basic ${Buffer.from('confidential-test:confidential-secret').toString('base64')}`;
  assert.ok(tokenCalls.some((r) => r.headers.authorization === basic), 'the exchange used HTTP Basic client authentication');
  assert.ok(!as.requests.some((r) => r.path.startsWith('/reg') && r.body.includes('confidential')), 'no registration for a pre-registered client');
});

test('oauth: a tampered iss fails the exchange and stores no tokens', async () => {
  const port = await freePort();
  const { provider } = browserProvider({
    port,
    tamper: (callback) => {
      callback.searchParams.set('iss', 'http://evil.example.com');
      return callback;
    },
  });
  const c = client(provider);
  await assert.rejects(c.authenticate('p', { timeoutMs: 20000 }), (e) => {
    assert.ok(e instanceof MastraError);
    assert.match(e.message, /issuer|iss/i);
    return true;
  });
  assert.equal(await provider.tokens(), undefined, 'nothing stored');
  assert.equal(c.getServerAuthState('p'), 'needs-auth');
});

test('oauth: concurrent authenticate calls join one flow; cancel and timeouts end it, leaving needs-auth', async () => {
  const port = await freePort();
  const quiet = new MCPOAuthClientProvider({
    redirectUrl: `http://127.0.0.1:${port}/cb`,
    clientMetadata: { client_name: 'quiet', redirect_uris: [`http://127.0.0.1:${port}/cb`], token_endpoint_auth_method: 'none' },
    onRedirectToAuthorization: () => {}, // the user never comes back
  });
  const c = client(quiet);
  const a = c.authenticate('p', { timeoutMs: 60000 });
  const b = c.authenticate('p');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await c.cancelAuthentication('p'), true);
  await assert.rejects(a, /closed before receiving an authorization code|cancelled/);
  await assert.rejects(b, /closed before receiving an authorization code|cancelled/);
  assert.equal(await c.cancelAuthentication('p'), false, 'nothing pending any more');
  assert.equal(c.getServerAuthState('p'), 'needs-auth');
  await assert.rejects(c.authenticate('p', { timeoutMs: 200 }), /Timed out waiting for OAuth callback after 200ms/);
});

test('oauth: authenticate checks the provider and the loopback redirect URL', async () => {
  const remote = new MCPOAuthClientProvider({ redirectUrl: 'https://app.example.com/cb', clientMetadata: { redirect_uris: ['https://app.example.com/cb'] } });
  await assert.rejects(client(remote).authenticate('p'), /the provider's redirect URL must be a loopback address, got https:\/\/app\.example\.com\./);
  const plain = new MCPClient({ id: `oauth-${n++}`, servers: { p: { url: mcp.url } } });
  clients.push(plain);
  await assert.rejects(plain.authenticate('p'), /Cannot authenticate MCP server p: it is not configured with an MCPOAuthClientProvider\./);
  await assert.rejects(plain.authenticate('nosuch'), /Server configuration not found for name: nosuch/);
});

test('oauth: allowedHosts also governs OAuth traffic', async () => {
  const port = await freePort();
  const { provider } = browserProvider({ port });
  const before = as.requests.length;
  const c = client(provider, { allowedHosts: [new URL(mcp.url).host] });
  const r = await c.listToolsWithErrors();
  assert.match(r.errors.p, /blocked by the allowedHosts policy/);
  assert.equal(as.requests.length, before, 'no request reached the authorization server');
});

test('oauth: callback server helpers', async () => {
  const busy = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => busy.once('listening', r));
  const port = busy.address().port;
  try {
    const candidates = getCallbackUrlCandidates(`http://127.0.0.1:${port}/oauth/callback`);
    assert.equal(candidates.length, 11);
    assert.ok(candidates.every((u) => u instanceof URL));
    const server = await createOAuthCallbackServer({ redirectUrl: `http://127.0.0.1:${port}/oauth/callback`, state: 'xyz' });
    assert.notEqual(server.port, port, 'fell back past the busy port');
    assert.equal((await fetch(new URL('/elsewhere', server.url))).status, 404);
    assert.equal((await fetch(`${server.url}?code=c&state=wrong`)).status, 400);
    const ok = await fetch(`${server.url}?code=the-code&state=xyz&iss=${encodeURIComponent(as.issuer)}`);
    assert.equal(ok.status, 200);
    assert.ok(!(await ok.text()).includes('the-code'), 'the page does not echo the code');
    assert.equal((await fetch(`${server.url}?code=c&state=xyz`)).status, 410);
    assert.deepEqual(await server.waitForCode(), { code: 'the-code', state: 'xyz', iss: as.issuer });
    await server.close();
    await server.close();
  } finally {
    busy.close();
  }
});

test('oauth: the custom fetch carries OAuth traffic; a token endpoint answering HTML or 500 fails clearly and stores nothing', async () => {
  for (const [status, body, type] of [
    [500, 'upstream exploded', 'text/plain'],
    [200, '<html><body>login page</body></html>', 'text/html'],
  ]) {
    const port = await freePort();
    const oauthCalls = [];
    const { provider } = browserProvider({ port });
    const c = client(provider, {
      fetch: async (url, init) => {
        const u = new URL(url);
        if (u.origin === as.issuer) oauthCalls.push(`${init.method ?? 'GET'} ${u.pathname}`);
        if (u.origin === as.issuer && u.pathname.startsWith('/token')) return new Response(body, { status, headers: { 'content-type': type } });
        return fetch(url, init);
      },
    });
    await assert.rejects(c.authenticate('p', { timeoutMs: 20000 }), (e) => {
      assert.match(e.message, /token exchange failed/i);
      return true;
    });
    assert.ok(oauthCalls.some((x) => x.includes('/.well-known/')), 'discovery went through the custom fetch');
    assert.ok(oauthCalls.some((x) => x.startsWith('POST /token')), 'the token request went through the custom fetch');
    assert.equal(await provider.tokens(), undefined, 'nothing stored');
  }
});

test('oauth: a registration refusal is a clear error naming the server', async () => {
  const closed = await startAuthorizationServer({
    configure: (config) => {
      config.features.registration = { enabled: false };
    },
  });
  const server = await startProtectedMcpServer({ authorizationServer: closed });
  try {
    const port = await freePort();
    const { provider, seen } = browserProvider({ port });
    const c = new MCPClient({ id: `oauth-${n++}`, servers: { closed: { url: server.url, authProvider: provider } } });
    clients.push(c);
    const r = await c.listToolsWithErrors();
    assert.match(r.errors.closed, /^Failed to connect to MCP server closed: UnauthorizedError: authorization could not start: .*regist/i);
    assert.equal(seen.length, 0, 'no redirect without a client identity');
    assert.equal(c.getServerAuthState('closed'), 'needs-auth');
  } finally {
    await server.close();
    await closed.close();
  }
});

test('oauth: createSimpleTokenProvider connects with a token obtained elsewhere', async () => {
  const port = await freePort();
  const { provider } = browserProvider({ port });
  const first = client(provider);
  await first.authenticate('p', { timeoutMs: 20000 });
  const { access_token } = await provider.tokens();
  const { createSimpleTokenProvider } = await import('../index.mjs');
  const simple = createSimpleTokenProvider(access_token, { redirectUrl: `http://127.0.0.1:${port}/cb`, clientMetadata: { redirect_uris: [] } });
  const c = client(simple);
  const tools = await c.listTools();
  assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
  assert.equal(c.getServerAuthState('p'), 'authorized');
});

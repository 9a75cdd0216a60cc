// The interactive OAuth flow of MCPClient as a user meets it, against a real authorization
// server (oidc-provider) and a protected MCP server: what the callback server and the
// provider look like afterwards, cancelling or disconnecting a flow, what goes on the wire.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { freePort } from './fixtures/helpers.mjs';
import { MCPClient, MCPOAuthClientProvider, InMemoryOAuthStorage, createOAuthCallbackServer, getCallbackUrlCandidates } from '../index.mjs';
import { startAuthorizationServer } from './fixtures/oauth/authorization-server.mjs';
import { startProtectedMcpServer } from './fixtures/oauth/protected-mcp-server.mjs';
import { completeAuthorization } from './fixtures/oauth/consent.mjs';
import * as anchor from '@mastra/mcp';

const listen = (port) =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });

/** A promise plus its resolver: "wait for the event". */
function signal() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

let as;
let mcp;
before(async () => {
  as = await startAuthorizationServer({ accessTokenTTL: 300 });
  mcp = await startProtectedMcpServer({ authorizationServer: as });
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await mcp?.close();
  await as?.close();
});
let n = 0;
function client(provider, extra = {}, server = mcp) {
  const c = new MCPClient({ id: `oauth-flow-${n++}`, servers: { p: { url: server.url, authProvider: provider, ...extra } } });
  clients.push(c);
  return c;
}

function metadata(redirectUrl, extra = {}) {
  return {
    client_name: 'mastra-mcp-native flow tests',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  };
}

/** A provider whose "browser" signs in, consents and delivers the callback, as a user would. */
function browserProvider(port, { storage = new InMemoryOAuthStorage(), clientMetadata } = {}) {
  const redirectUrl = `http://127.0.0.1:${port}/oauth/callback`;
  const seen = [];
  const provider = new MCPOAuthClientProvider({
    redirectUrl,
    clientMetadata: clientMetadata ?? metadata(redirectUrl),
    storage,
    onRedirectToAuthorization: (url) => {
      seen.push(url);
      completeAuthorization(url.href, { deliver: true }).catch(() => {});
    },
  });
  return { provider, seen, redirectUrl, storage };
}

test('oauth flow: the callback page says the tab can be closed; close() resolves when the port is free again, idle keep-alive included', { timeout: 60000 }, async () => {
  const port = await freePort();
  const server = await createOAuthCallbackServer({ redirectUrl: `http://127.0.0.1:${port}/cb`, state: 's' });
  const page = await fetch(`${server.url}?code=c&state=s`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /close this tab/i);
  const { code, state } = await server.waitForCode({ timeoutMs: 5000 });
  assert.deepEqual({ code, state }, { code: 'c', state: 's' });
  await server.close();

  const second = await createOAuthCallbackServer({ redirectUrl: `http://127.0.0.1:${port}/cb`, state: 't' });
  assert.equal(second.port, port, 'the first server gave its port back');
  // A browser's idle keep-alive connection (pre-connected, no request yet).
  const idle = net.connect(second.port, '127.0.0.1');
  await new Promise((r, j) => idle.once('connect', r).once('error', j));
  const idleClosed = new Promise((r) => idle.once('close', r));
  idle.on('error', () => {});
  const pending = assert.rejects(second.waitForCode({ timeoutMs: 60000 }), /OAuth callback server closed before receiving an authorization code/);
  await second.close();
  await pending;
  const rebound = await listen(second.port); // rejects with EADDRINUSE if the port were still held
  await new Promise((r) => rebound.close(r));
  await idleClosed;
});

test('oauth flow: a fallback callback port leaves the provider redirectUrl as configured', { timeout: 60000 }, async () => {
  const port = await freePort();
  const busy = await listen(port);
  try {
    const { provider, redirectUrl, seen } = browserProvider(port);
    const c = client(provider);
    await c.authenticate('p', { timeoutMs: 20000 });
    assert.equal(c.getServerAuthState('p'), 'authorized');
    const used = seen.at(-1).searchParams.get('redirect_uri');
    assert.notEqual(new URL(used).port, String(port), 'the busy preferred port was skipped');
    assert.ok(getCallbackUrlCandidates(redirectUrl).some((u) => String(u) === used), `a fallback candidate was used: ${used}`);
    assert.equal(String(provider.redirectUrl), redirectUrl, 'the provider redirect URL is the configured one again');
    const tools = await c.listTools();
    assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
  } finally {
    await new Promise((r) => busy.close(r));
  }
});

test('oauth flow: cancelAuthentication() during setup settles the flow; disconnect() too; a new authenticate() then works', { timeout: 60000 }, async () => {
  const port = await freePort();
  const redirectUrl = `http://127.0.0.1:${port}/oauth/callback`;
  let redirected = signal();
  let hang = true;
  const provider = new MCPOAuthClientProvider({
    redirectUrl,
    clientMetadata: metadata(redirectUrl),
    onRedirectToAuthorization: (url) => {
      redirected.resolve(url);
      if (hang) return new Promise(() => {}); // the host's redirect never returns
      completeAuthorization(url.href, { deliver: true }).catch(() => {});
    },
  });
  const c = client(provider);

  const first = c.authenticate('p', { timeoutMs: 60000 });
  await redirected.promise;
  assert.equal(await c.cancelAuthentication('p'), true);
  // The callback server was listening: cancelling closes it, and the flow ends with @mastra/mcp's message.
  await assert.rejects(first, /OAuth callback server closed before receiving an authorization code/);

  redirected = signal();
  const second = c.authenticate('p', { timeoutMs: 60000 });
  await redirected.promise;
  const disconnecting = c.disconnect();
  hang = false;
  redirected = signal();
  const third = c.authenticate('p', { timeoutMs: 20000 }); // waits for the disconnect, then runs
  await assert.rejects(second, /cancelled|disconnected|closed/i);
  await disconnecting;
  await third;
  assert.equal(c.getServerAuthState('p'), 'authorized');
  const tools = await c.listTools();
  assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
});

test('oauth flow: with stored tokens every request to the MCP endpoint carries Authorization (no discovery state needed)', { timeout: 60000 }, async () => {
  const port = await freePort();
  const { provider, storage } = browserProvider(port);
  await client(provider).authenticate('p', { timeoutMs: 20000 });
  // Tokens as another program (or @mastra/mcp itself) stored them: no saved discovery.
  storage.delete('discovery_state');
  const reuse = new MCPOAuthClientProvider({ redirectUrl: provider.redirectUrl, clientMetadata: provider.clientMetadata, storage });
  const from = mcp.requests.length;
  const asFrom = as.requests.length;
  const c = client(reuse);
  const tools = await c.listTools();
  assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
  const seen = mcp.requests.slice(from).filter((r) => r.path.startsWith('/mcp'));
  assert.ok(seen.length >= 3, `initialize, initialized, tools/list, tools/call: ${seen.map((r) => r.method).join(',')}`);
  const bare = seen.filter((r) => !/^Bearer /.test(r.headers.authorization ?? ''));
  assert.deepEqual(bare.map((r) => `${r.method} ${r.path}`), [], 'no request without the token');
  assert.equal(as.requests.slice(asFrom).filter((r) => !r.path.startsWith('/jwks') && !r.path.startsWith('/.well-known/')).length, 0, 'no OAuth step');
  assert.equal(c.getServerAuthState('p'), 'authorized');
});

test('oauth flow: dynamic registration lists every callback candidate and picks an auth method the server supports (none not offered)', { timeout: 60000 }, async () => {
  const strict = await startAuthorizationServer({
    configure: (config) => {
      config.clientAuthMethods = ['client_secret_basic', 'client_secret_post'];
    },
  });
  const server = await startProtectedMcpServer({ authorizationServer: strict });
  try {
    const port = await freePort();
    const { provider, redirectUrl } = browserProvider(port);
    const c = client(provider, {}, server);
    await c.authenticate('p', { timeoutMs: 20000 });
    assert.equal(c.getServerAuthState('p'), 'authorized');
    const registration = strict.requests.find((r) => r.method === 'POST' && r.path.startsWith('/reg'));
    const submitted = JSON.parse(registration.body);
    assert.deepEqual(submitted.redirect_uris, getCallbackUrlCandidates(redirectUrl).map(String));
    assert.equal(submitted.token_endpoint_auth_method, 'client_secret_basic');
    const info = await provider.clientInformation();
    assert.ok(info.client_secret, 'a confidential client was issued');
    const exchange = strict.requests.find((r) => r.path.startsWith('/token') && r.body.includes('grant_type=authorization_code'));
    assert.equal(exchange.headers.authorization, `Basic ${Buffer.from(`${encodeURIComponent(info.client_id)}:${encodeURIComponent(info.client_secret)}`).toString('base64')}`);
    const tools = await c.listTools();
    assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
  } finally {
    await server.close();
    await strict.close();
  }
});

test('oauth flow: MCPClient honours the provider hooks state(), validateResourceURL and addClientAuthentication', { timeout: 60000 }, async () => {
  const port = await freePort();
  const redirectUrl = `http://127.0.0.1:${port}/oauth/callback`;
  const calls = { auth: [], resource: [] };
  let count = 0;
  class HookedProvider extends MCPOAuthClientProvider {
    async validateResourceURL(serverUrl, resource) {
      calls.resource.push({ serverUrl: String(serverUrl), resource });
      return new URL(resource);
    }
    async addClientAuthentication(headers, params, url, meta) {
      calls.auth.push({ url: String(url), grant: params.get('grant_type'), issuer: meta?.issuer });
      params.set('client_id', (await this.clientInformation()).client_id);
    }
  }
  const seen = [];
  const provider = new HookedProvider({
    redirectUrl,
    clientMetadata: metadata(redirectUrl),
    stateGenerator: () => `hooked-state-${++count}`,
    onRedirectToAuthorization: (url) => {
      seen.push(url);
      completeAuthorization(url.href, { deliver: true }).catch(() => {});
    },
  });
  const c = client(provider);
  await c.authenticate('p', { timeoutMs: 20000 });
  assert.equal(c.getServerAuthState('p'), 'authorized');
  assert.match(seen.at(-1).searchParams.get('state'), /^hooked-state-\d+$/, 'the authorization carries the provider state()');
  assert.ok(calls.resource.some((r) => r.serverUrl === mcp.url && r.resource === mcp.url), JSON.stringify(calls.resource));
  assert.deepEqual(
    calls.auth.map((a) => [a.url, a.grant, a.issuer]),
    [[`${as.issuer}/token`, 'authorization_code', as.issuer]],
    'the code exchange went through addClientAuthentication',
  );
  const tools = await c.listTools();
  assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
});

test('oauth flow: state(), beginAuthorizationSession() and endAuthorizationSession() have the shape of @mastra/mcp 1.18', { timeout: 60000 }, async () => {
  const shape = async (lib) => {
    let n = 0;
    const p = new lib.MCPOAuthClientProvider({ redirectUrl: 'http://127.0.0.1:1/cb', clientMetadata: { redirect_uris: [] }, stateGenerator: () => `s${++n}` });
    const fresh = p.state();
    const pinned = p.beginAuthorizationSession();
    const out = [fresh instanceof Promise, await fresh, pinned instanceof Promise, await pinned, await p.state(), await p.state()];
    p.applyResolvedRedirectUrl('http://127.0.0.1:2/cb', ['http://127.0.0.1:1/cb', 'http://127.0.0.1:2/cb']);
    out.push(String(p.redirectUrl), p.clientMetadata.redirect_uris.length, p.endAuthorizationSession(), String(p.redirectUrl), await p.state());
    return out;
  };
  assert.deepEqual(await shape({ MCPOAuthClientProvider }), await shape(anchor));
});

test('oauth flow: a protected server of the 2026-07-28 era: authenticate(), then every stateless request carries the token', { timeout: 60000 }, async () => {
  const modern = await startProtectedMcpServer({ authorizationServer: as, stateless: true });
  try {
    const port = await freePort();
    const { provider, seen } = browserProvider(port);
    // The fixture serves both eras: 'auto' negotiates the stateless one (the default would open with the handshake).
    const c = client(provider, { protocolVersion: 'auto' }, modern);
    await c.authenticate('p', { timeoutMs: 20000 });
    assert.equal(seen.length, 1, 'one trip through the browser');
    const tools = await c.listTools();
    assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
    assert.deepEqual(c.getServerProtocolVersions(), { p: '2026-07-28' });
    const posts = modern.requests.filter((r) => r.path.startsWith('/mcp') && r.method === 'POST');
    const methods = posts.map((r) => JSON.parse(r.body).method);
    assert.ok(methods.includes('server/discover') && !methods.includes('initialize'), methods.join(' '));
    const afterAuth = posts.slice(methods.lastIndexOf('server/discover'));
    assert.ok(afterAuth.every((r) => /^Bearer /.test(r.headers.authorization ?? '')), 'the token on every request after authorization');
    assert.ok(afterAuth.every((r) => !r.headers['mcp-session-id']), 'no session id in 2026-07-28');
    assert.equal(c.getServerAuthState('p'), 'authorized');
  } finally {
    await modern.close();
  }
});

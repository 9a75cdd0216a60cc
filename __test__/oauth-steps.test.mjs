// The OAuth functions @mastra/mcp re-exports (the MCP SDK's steps) and its OAuth helpers, called
// as user code calls them, against a real authorization server (oidc-provider) and a protected
// MCP server; where practical the same call runs against @mastra/mcp 1.18 and the results are
// compared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as ours from '../index.mjs';
import * as ref from '@mastra/mcp';
import { OAuthError as SdkOAuthError } from '@modelcontextprotocol/client';
import { startAuthorizationServer } from './fixtures/oauth/authorization-server.mjs';
import { startProtectedMcpServer } from './fixtures/oauth/protected-mcp-server.mjs';
import { completeAuthorization } from './fixtures/oauth/consent.mjs';

const REDIRECT = 'http://127.0.0.1:47931/oauth/callback';
const M2M = { client_id: 'm2m-test', client_secret: 'm2m-secret' };

let as;
let mcp;
before(async () => {
  as = await startAuthorizationServer({
    requireConsent: false,
    clients: [
      {
        ...M2M,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    configure(config) {
      config.features.clientCredentials = { enabled: true };
    },
  });
  mcp = await startProtectedMcpServer({ authorizationServer: as });
});
after(async () => {
  await mcp?.close();
  await as?.close();
});

/** A fetch that records the URLs it was asked for. */
function countingFetch() {
  const urls = [];
  const fn = (url, init) => {
    urls.push(String(url));
    return fetch(url, init);
  };
  return { fn, urls };
}

const isPromise = (v) => v !== null && typeof v === 'object' && typeof v.then === 'function';

test('every OAuth function of @mastra/mcp is exported, with the same sync/async nature', () => {
  const names = [
    'auth',
    'discoverOAuthProtectedResourceMetadata',
    'discoverOAuthMetadata',
    'discoverAuthorizationServerMetadata',
    'buildDiscoveryUrls',
    'startAuthorization',
    'exchangeAuthorization',
    'refreshAuthorization',
    'registerClient',
    'extractResourceMetadataUrl',
    'selectResourceURL',
    'parseErrorResponse',
    'generateWWWAuthenticateHeader',
    'generateProtectedResourceMetadata',
    'extractBearerToken',
  ];
  for (const name of names) {
    assert.equal(typeof ours[name], 'function', name);
    assert.equal(typeof ref[name], 'function', `${name} in @mastra/mcp`);
  }
  // Synchronous in the SDK: no promise here either.
  const res = new Response(null, { status: 401, headers: { 'WWW-Authenticate': 'Bearer resource_metadata="http://x/y"' } });
  for (const [name, args] of [
    ['buildDiscoveryUrls', ['https://as.example']],
    ['extractResourceMetadataUrl', [res]],
    ['generateWWWAuthenticateHeader', [{}]],
    ['generateProtectedResourceMetadata', [{ resource: 'https://r', authorizationServers: [] }]],
    ['extractBearerToken', ['Bearer t']],
  ]) {
    assert.equal(isPromise(ours[name](...args)), false, name);
    assert.equal(isPromise(ref[name](...args)), false, `${name} in @mastra/mcp`);
  }
});

test('buildDiscoveryUrls matches the SDK for bare and path issuers', () => {
  for (const issuer of ['https://as.example', 'https://as.example/', 'https://as.example/tenant1', 'https://as.example/a/b/', new URL('http://127.0.0.1:9/x')]) {
    const mine = ours.buildDiscoveryUrls(issuer);
    assert.ok(mine.every((e) => e.url instanceof URL));
    assert.deepEqual(
      mine.map((e) => [e.url.href, e.type]),
      ref.buildDiscoveryUrls(issuer).map((e) => [e.url.href, e.type]),
      String(issuer),
    );
  }
});

test('extractResourceMetadataUrl, generateWWWAuthenticateHeader, extractBearerToken and generateProtectedResourceMetadata match @mastra/mcp', () => {
  const headers = [
    'Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"',
    'Bearer error="invalid_token", resource_metadata="https://rs.example/prm", scope="a b"',
    'Basic resource_metadata="https://rs.example/prm"',
    'Bearer resource_metadata=https://rs.example/prm',
    'Bearer resource_metadata="not a url"',
    'Bearer',
    null,
  ];
  for (const h of headers) {
    const mk = () => new Response(null, { status: 401, headers: h ? { 'WWW-Authenticate': h } : {} });
    const mine = ours.extractResourceMetadataUrl(mk());
    const theirs = ref.extractResourceMetadataUrl(mk());
    assert.equal(mine?.href, theirs?.href, String(h));
    if (mine) assert.ok(mine instanceof URL);
  }
  for (const options of [
    undefined,
    {},
    { resourceMetadataUrl: 'https://rs.example/.well-known/oauth-protected-resource' },
    { resourceMetadataUrl: 'https://rs/x', additionalParams: { error: 'invalid_token', error_description: 'say "no"\\' } },
    { additionalParams: { scope: 'a b' } },
  ]) {
    assert.equal(ours.generateWWWAuthenticateHeader(options), ref.generateWWWAuthenticateHeader(options), JSON.stringify(options));
  }
  for (const h of ['Bearer abc', 'bearer  abc ', 'BEARER x.y.z', 'Bearer ', 'Bearer', 'Basic abc', '', null, undefined, 'Bearerabc']) {
    assert.equal(ours.extractBearerToken(h), ref.extractBearerToken(h), String(h));
  }
  for (const config of [
    { resource: 'https://rs.example/mcp', authorizationServers: ['https://as.example'] },
    {
      resource: 'https://rs.example/mcp',
      authorizationServers: ['https://a', 'https://b'],
      scopesSupported: ['x'],
      resourceName: 'RS',
      resourceDocumentation: 'https://docs',
    },
    { resource: 'https://rs.example/mcp', authorizationServers: [], resourceName: '' },
  ]) {
    assert.deepEqual(ours.generateProtectedResourceMetadata(config), ref.generateProtectedResourceMetadata(config));
  }
});

test('parseErrorResponse returns the SDK OAuthError for a Response or a string, server_error when unparsable', async () => {
  const body = JSON.stringify({ error: 'invalid_client', error_description: 'Client authentication failed', error_uri: 'https://e' });
  for (const make of [() => new Response(body, { status: 401 }), () => body]) {
    const mine = await ours.parseErrorResponse(make());
    const theirs = await ref.parseErrorResponse(make());
    assert.ok(mine instanceof Error);
    assert.ok(mine instanceof SdkOAuthError, 'carries the SDK OAuthError brand');
    assert.equal(mine.name, theirs.name);
    assert.equal(mine.code, theirs.code);
    assert.equal(mine.message, theirs.message);
    assert.equal(mine.errorUri, theirs.errorUri);
    assert.deepEqual(mine.toResponseObject(), theirs.toResponseObject());
  }
  const mine = await ours.parseErrorResponse(new Response('<html>oops</html>', { status: 502 }));
  const theirs = await ref.parseErrorResponse(new Response('<html>oops</html>', { status: 502 }));
  assert.equal(mine.code, theirs.code);
  assert.equal(mine.code, 'server_error');
  assert.match(mine.message, /^HTTP 502: Invalid OAuth error response: .*Raw body: <html>oops<\/html>$/);
});

test('discovery of the protected resource and its authorization server matches the SDK, through a custom fetch', async () => {
  const mineFetch = countingFetch();
  const prm = await ours.discoverOAuthProtectedResourceMetadata(mcp.url, undefined, mineFetch.fn);
  assert.deepEqual(prm, await ref.discoverOAuthProtectedResourceMetadata(mcp.url));
  assert.equal(prm.authorization_servers[0], as.issuer);
  assert.deepEqual(mineFetch.urls, [mcp.resourceMetadataUrl]);

  const explicit = await ours.discoverOAuthProtectedResourceMetadata(new URL(mcp.url), { resourceMetadataUrl: new URL(mcp.rootResourceMetadataUrl) });
  assert.equal(explicit.resource, prm.resource);

  const asFetch = countingFetch();
  const meta = await ours.discoverAuthorizationServerMetadata(as.issuer, { fetchFn: asFetch.fn });
  assert.deepEqual(meta, await ref.discoverAuthorizationServerMetadata(as.issuer));
  assert.equal(meta.issuer, as.issuer);
  assert.deepEqual(asFetch.urls, [as.metadataUrl]);

  const legacy = await ours.discoverOAuthMetadata(as.issuer);
  assert.deepEqual(legacy, await ref.discoverOAuthMetadata(as.issuer));

  // A server without RFC 9728 metadata: the SDK's error.
  const noPrm = `${as.issuer}/nothing-here`;
  const [mineErr, theirErr] = await Promise.all([
    ours.discoverOAuthProtectedResourceMetadata(noPrm).then(() => null, (e) => e),
    ref.discoverOAuthProtectedResourceMetadata(noPrm).then(() => null, (e) => e),
  ]);
  assert.ok(mineErr instanceof Error);
  assert.equal(mineErr.message, theirErr.message);
  assert.equal(await ours.discoverOAuthMetadata(`${mcp.url}`), await ref.discoverOAuthMetadata(`${mcp.url}`));
});

test('discoverAuthorizationServerMetadata refuses metadata whose issuer is not the server asked', async () => {
  const lying = async (url) => {
    const real = await fetch(url);
    const doc = await real.json();
    return new Response(JSON.stringify({ ...doc, issuer: 'https://evil.example' }), { headers: { 'content-type': 'application/json' } });
  };
  const mine = await ours.discoverAuthorizationServerMetadata(as.issuer, { fetchFn: lying }).then(() => null, (e) => e);
  const theirs = await ref.discoverAuthorizationServerMetadata(as.issuer, { fetchFn: lying }).then(() => null, (e) => e);
  assert.ok(mine instanceof Error, 'rejected');
  assert.equal(mine.name, theirs.name);
  assert.equal(mine.message, theirs.message);
  assert.equal(mine.kind, 'metadata');
  const skipped = await ours.discoverAuthorizationServerMetadata(as.issuer, { fetchFn: lying, skipIssuerValidation: true });
  assert.equal(skipped.issuer, 'https://evil.example');
});

test('registerClient, startAuthorization, exchangeAuthorization and refreshAuthorization complete a flow step by step', async () => {
  const metadata = await ours.discoverAuthorizationServerMetadata(as.issuer);
  const client = await ours.registerClient(as.issuer, {
    metadata,
    clientMetadata: {
      client_name: 'steps',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
    scope: 'mcp:read',
  });
  assert.equal(typeof client.client_id, 'string');
  assert.equal(typeof client.client_secret, 'string');
  assert.equal(client.scope, 'mcp:read');
  assert.deepEqual(client.redirect_uris, [REDIRECT]);

  const resource = new URL(mcp.url);
  const started = ours.startAuthorization(as.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT, scope: 'mcp:read', state: 'st-1', resource });
  assert.ok(isPromise(started), 'async as in the SDK');
  const { authorizationUrl, codeVerifier } = await started;
  assert.ok(authorizationUrl instanceof URL);
  assert.equal(authorizationUrl.searchParams.get('state'), 'st-1');
  assert.equal(authorizationUrl.searchParams.get('resource'), mcp.url);
  assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.match(codeVerifier, /^[A-Za-z0-9._~-]{43,128}$/);

  const { params } = await completeAuthorization(authorizationUrl.href);
  assert.equal(params.state, 'st-1');

  // A wrong `iss` is refused before the code is spent (RFC 9207).
  const mixUp = await ours
    .exchangeAuthorization(as.issuer, { metadata, clientInformation: client, authorizationCode: params.code, iss: 'https://evil.example', codeVerifier, redirectUri: REDIRECT, resource })
    .then(() => null, (e) => e);
  assert.equal(mixUp?.name, 'IssuerMismatchError');

  const seen = [];
  const tokens = await ours.exchangeAuthorization(as.issuer, {
    metadata,
    clientInformation: client,
    authorizationCode: params.code,
    iss: params.iss,
    codeVerifier,
    redirectUri: REDIRECT,
    resource,
    fetchFn: (url, init) => {
      seen.push({ url: String(url), body: String(init.body) });
      return fetch(url, init);
    },
  });
  assert.equal(tokens.token_type, 'Bearer');
  assert.equal(typeof tokens.access_token, 'string');
  assert.equal(typeof tokens.refresh_token, 'string');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].url, metadata.token_endpoint);
  // The registered client_secret_post is honoured.
  const form = new URLSearchParams(seen[0].body);
  assert.equal(form.get('client_secret'), client.client_secret);
  assert.equal(form.get('resource'), mcp.url);

  const refreshed = await ours.refreshAuthorization(as.issuer, { metadata, clientInformation: client, refreshToken: tokens.refresh_token, resource });
  assert.equal(typeof refreshed.access_token, 'string');
  assert.notEqual(refreshed.access_token, tokens.access_token);
  assert.equal(typeof refreshed.refresh_token, 'string');

  // The code is spent: the SDK's OAuthError with the server's code, from both implementations.
  const replay = { metadata, clientInformation: client, authorizationCode: params.code, iss: params.iss, codeVerifier, redirectUri: REDIRECT, resource };
  const [mineErr, theirErr] = await Promise.all([
    ours.exchangeAuthorization(as.issuer, replay).then(() => null, (e) => e),
    ref.exchangeAuthorization(as.issuer, replay).then(() => null, (e) => e),
  ]);
  assert.ok(mineErr instanceof SdkOAuthError);
  assert.equal(mineErr.code, 'invalid_grant');
  assert.equal(mineErr.code, theirErr.code);
  assert.equal(mineErr.message, theirErr.message);

});

test('exchangeAuthorization and refreshAuthorization hand the token request to addClientAuthentication', async () => {
  const metadata = await ours.discoverAuthorizationServerMetadata(as.issuer);
  const client = await ours.registerClient(as.issuer, {
    metadata,
    clientMetadata: { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' },
  });
  const { authorizationUrl, codeVerifier } = await ours.startAuthorization(as.issuer, {
    metadata,
    clientInformation: client,
    redirectUrl: REDIRECT,
    scope: 'mcp:read',
    resource: new URL(mcp.url),
  });
  const { params } = await completeAuthorization(authorizationUrl.href);
  const calls = [];
  const addClientAuthentication = async (headers, body, url, md) => {
    calls.push({ headers: headers instanceof Headers, body: body instanceof URLSearchParams, url: url instanceof URL ? url.href : url, issuer: md?.issuer, grant: body.get('grant_type') });
    headers.set('X-Client-Auth', 'custom');
    body.set('client_id', client.client_id);
    body.set('client_secret', client.client_secret);
  };
  const before = as.requests.length;
  const tokens = await ours.exchangeAuthorization(as.issuer, {
    metadata,
    clientInformation: { client_id: 'ignored-when-the-hook-authenticates' },
    authorizationCode: params.code,
    iss: params.iss,
    codeVerifier,
    redirectUri: REDIRECT,
    resource: new URL(mcp.url),
    addClientAuthentication,
  });
  assert.equal(typeof tokens.access_token, 'string');
  const tokenRequest = as.requests.slice(before).find((r) => r.path.startsWith('/token'));
  assert.equal(tokenRequest.headers['x-client-auth'], 'custom');
  assert.equal(tokenRequest.headers.authorization, undefined);
  await ours.refreshAuthorization(as.issuer, { metadata, clientInformation: client, refreshToken: tokens.refresh_token, addClientAuthentication });
  assert.deepEqual(calls, [
    { headers: true, body: true, url: metadata.token_endpoint, issuer: as.issuer, grant: 'authorization_code' },
    { headers: true, body: true, url: metadata.token_endpoint, issuer: as.issuer, grant: 'refresh_token' },
  ]);
});

/** An OAuthClientProvider as user code writes one for the SDK (in-memory). */
function sdkProvider({ redirectUrl = REDIRECT, clientMetadata, clientInformation, hooks = {} } = {}) {
  const store = { client: clientInformation, redirects: [] };
  return {
    store,
    get redirectUrl() {
      return redirectUrl;
    },
    clientMetadata: clientMetadata ?? { client_name: 'sdk-shaped', redirect_uris: redirectUrl ? [redirectUrl] : [], token_endpoint_auth_method: 'none' },
    clientInformation: () => store.client,
    saveClientInformation: (info) => {
      store.client = info;
    },
    tokens: () => store.tokens,
    saveTokens: (t) => {
      store.tokens = t;
    },
    redirectToAuthorization: (url) => {
      store.redirects.push(url);
    },
    saveCodeVerifier: (v) => {
      store.verifier = v;
    },
    codeVerifier: () => store.verifier,
    discoveryState: () => store.discovery,
    saveDiscoveryState: (s) => {
      store.discovery = s;
    },
    ...hooks,
  };
}

test('auth() registers, redirects with the provider state(), then exchanges the callback code', async () => {
  const provider = sdkProvider({ hooks: { state: () => 'provider-state' } });
  const first = await ours.auth(provider, { serverUrl: mcp.url });
  assert.equal(first, 'REDIRECT');
  assert.equal(typeof provider.store.client.client_id, 'string');
  assert.equal(provider.store.client.issuer, as.issuer);
  assert.equal(provider.store.redirects.length, 1);
  const url = provider.store.redirects[0];
  assert.ok(url instanceof URL);
  assert.equal(url.searchParams.get('state'), 'provider-state');
  assert.equal(url.searchParams.get('resource'), mcp.url);
  assert.equal(provider.store.discovery.authorizationServerUrl, as.issuer);

  const { params } = await completeAuthorization(url.href);
  const second = await ours.auth(provider, { serverUrl: mcp.url, authorizationCode: params.code, iss: params.iss });
  assert.equal(second, 'AUTHORIZED');
  assert.equal(typeof provider.store.tokens.access_token, 'string');
  assert.equal(provider.store.tokens.issuer, as.issuer);

  // With a refresh token stored, auth() refreshes instead of redirecting.
  const old = provider.store.tokens.access_token;
  assert.equal(await ours.auth(provider, { serverUrl: mcp.url }), 'AUTHORIZED');
  assert.notEqual(provider.store.tokens.access_token, old);
  assert.equal(provider.store.redirects.length, 1);
});

test('auth() runs a client_credentials grant from prepareTokenRequest with no browser (same result as the SDK)', async () => {
  for (const impl of [ours, ref]) {
    const prepared = [];
    const provider = sdkProvider({
      redirectUrl: null,
      clientMetadata: { client_name: 'm2m', redirect_uris: [], grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' },
      clientInformation: { ...M2M },
      hooks: {
        prepareTokenRequest: (scope) => {
          prepared.push(scope);
          return new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read' });
        },
      },
    });
    const result = await impl.auth(provider, { serverUrl: mcp.url });
    assert.equal(result, 'AUTHORIZED', impl === ours ? 'ours' : '@mastra/mcp');
    assert.equal(provider.store.redirects.length, 0);
    assert.equal(typeof provider.store.tokens.access_token, 'string');
    assert.equal(prepared.length, 1);
  }
});

test('selectResourceURL: the protected resource checked against the server URL, or the provider validateResourceURL', async () => {
  const provider = sdkProvider();
  const prm = await ours.discoverOAuthProtectedResourceMetadata(mcp.url);
  const mine = await ours.selectResourceURL(mcp.url, provider, prm);
  assert.ok(mine instanceof URL);
  assert.equal(mine.href, (await ref.selectResourceURL(mcp.url, provider, prm)).href);
  assert.equal(await ours.selectResourceURL(mcp.url, provider), undefined);
  const other = { ...prm, resource: 'https://elsewhere.example/mcp' };
  const [a, b] = await Promise.all([
    ours.selectResourceURL(mcp.url, provider, other).then(() => null, (e) => e),
    ref.selectResourceURL(mcp.url, provider, other).then(() => null, (e) => e),
  ]);
  assert.ok(a instanceof Error);
  assert.equal(a.message, b.message);

  const asked = [];
  const validating = sdkProvider({
    hooks: {
      validateResourceURL: async (serverUrl, resource) => {
        asked.push([serverUrl instanceof URL ? serverUrl.href : serverUrl, resource]);
        return new URL('https://chosen.example/r');
      },
    },
  });
  assert.equal((await ours.selectResourceURL(`${mcp.url}#frag`, validating, other)).href, 'https://chosen.example/r');
  assert.deepEqual(asked, [[mcp.url, 'https://elsewhere.example/mcp']]);
});

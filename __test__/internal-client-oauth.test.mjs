// InternalMastraMCPClient's OAuth surface against a real authorization server (oidc-provider)
// and a protected MCP server: connect() is refused and asks the provider to redirect the user,
// `authState` says 'needs-auth', the user's browser (a headless consent step) yields a code,
// finishAuth() exchanges it (given the callback URL, so `state` and the RFC 9207 `iss` are
// checked), and connect() then succeeds with `authState` 'authorized'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completeAuthorization } from './fixtures/oauth/consent.mjs';
import { useOAuthTestbed } from './fixtures/oauth/testbed.mjs';

const testbed = useOAuthTestbed();

test('InternalMastraMCPClient: connect → needs-auth → finishAuth(callback URL) → connect → authorized', async () => {
  const { c, provider, redirects } = await testbed.client('mastra-mcp-native internal client');

  await assert.rejects(c.connect(), /Unauthorized/);
  assert.equal(c.authState, 'needs-auth');
  assert.equal(redirects.length, 1, 'the provider was asked to send the user to the authorization server');

  const { params, callbackUrl } = await completeAuthorization(redirects[0].href);
  assert.ok(params.code, 'the authorization server issued a code');
  assert.ok(params.iss, 'this authorization server identifies itself in the callback (RFC 9207)');
  // A bare code cannot be checked against the issuer that server requires: refused, with a hint.
  await assert.rejects(c.finishAuth(params.code), /pass the whole callback URL to finishAuth\(\)/);
  assert.equal(c.authState, 'needs-auth');
  await c.finishAuth(callbackUrl);
  assert.equal(await provider.hasValidTokens(), true, 'tokens stored through the provider');

  assert.equal(await c.connect(), true);
  assert.equal(c.authState, 'authorized');
  const who = await (await c.tools()).whoami.execute({}, {});
  assert.equal(who.sub, 'alice');

  await assert.rejects(c.finishAuth(callbackUrl), /No OAuth authorization is pending/, 'the flow is finished');
});

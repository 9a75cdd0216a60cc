// The official MCP conformance suite 0.1.16 (client mode) driving our MCPClient through
// __test__/conformance/client.mjs, which uses only the documented API. Every client scenario the
// suite lists is either expected to pass or refused on purpose, with the reason, below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { conformance, failures } from './conformance/run.mjs';

const require = createRequire(import.meta.url);
const suite = conformance(require.resolve('@modelcontextprotocol/conformance/dist/index.js'));

const passing = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  // Extension scenarios: the grant in the provider's `prepareTokenRequest`, the client's
  // authentication in its `addClientAuthentication` (see client.mjs).
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/cross-app-access-complete-flow',
];

/** Client scenarios we do not run to a pass, and why (also SPEC material). */
const refused = {
  // The scenario serves authorization-server metadata whose `issuer` differs from the URL it was
  // discovered at; RFC 8414 §3.3 says such metadata MUST NOT be used. We side with the RFC.
  'auth/2025-03-26-oauth-metadata-backcompat': 'issuer mismatch (RFC 8414 §3.3)',
};

test('conformance: every client scenario of the suite is either expected to pass or refused with a reason', async () => {
  const listed = (await suite.list()).map((s) => s.name);
  assert.ok(listed.length >= 20, `the suite lists its client scenarios (${listed.length})`);
  const unaccounted = listed.filter((s) => !passing.includes(s) && !(s in refused));
  assert.deepEqual(unaccounted, [], 'new client scenarios must be run or refused with a reason');
  assert.deepEqual(passing.filter((s) => !listed.includes(s)), [], 'every expected scenario exists');
});

test('conformance: initialize, tools_call, elicitation, sse-retry, the auth and the extension scenarios pass', async () => {
  const { names, why } = failures(await suite.runAll(passing));
  assert.deepEqual(names, [], why);
});

test('conformance: auth/2025-03-26-oauth-metadata-backcompat is refused on purpose (issuer mismatch, RFC 8414 §3.3)', async () => {
  // The scenario serves authorization-server metadata whose `issuer` differs from the URL it
  // was discovered at. RFC 8414 §3.3 says such metadata MUST NOT be used; we side with the RFC.
  const r = (await suite.runAll(['auth/2025-03-26-oauth-metadata-backcompat'])).get('auth/2025-03-26-oauth-metadata-backcompat');
  assert.match(r.out, /issuer mismatch/i);
});

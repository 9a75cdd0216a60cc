// Protocol rules the core owns and the face only forwards (issue 29): 2.0's
// `finishAuth(code, iss)`, the RFC 9207 `iss` given apart from a bare code, read by the core
// (`src/core/authenticate.rs`, `callback_from`) against a real authorization server (oidc-provider).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient } from '../index.mjs';
import { nodeBin, fixturePath } from './fixtures/helpers.mjs';
import { completeAuthorization } from './fixtures/oauth/consent.mjs';
import { useOAuthTestbed } from './fixtures/oauth/testbed.mjs';

const testbed = useOAuthTestbed();

test("finishAuth(code, iss): the core checks the callback's iss given apart, then exchanges the code", async () => {
  const { c, provider, redirects } = await testbed.client('mastra-mcp-native protocol rules');

  await assert.rejects(c.connect(), /Unauthorized/);
  const { params } = await completeAuthorization(redirects[0].href);
  assert.ok(params.code && params.iss, 'a code and the RFC 9207 iss');
  // Another issuer than the one that sent the code: refused before the code is spent.
  await assert.rejects(c.finishAuth(params.code, 'https://not-the-issuer.example'));
  assert.equal(c.authState, 'needs-auth');
  await c.finishAuth(params.code, params.iss);
  assert.equal(await provider.hasValidTokens(), true, 'tokens stored through the provider');
  assert.equal(await c.connect(), true);
  assert.equal(c.authState, 'authorized');
});

// The wait for an input request's answer, bounded by the core (`src/core/asking.rs`): a handler
// registered with `elicitation.onRequest` (the core hears of it: `src/core/user_handlers.rs`) is
// waited for as long as it takes, as in 1.18; the server's `inputRequests` is bounded by its timeout.
const v2Server = fixturePath('mastra2-server/server.mjs');
// 4 s: the timeout bounds the connect too, which takes over 1 s under the full suite's load.
const v2Clients = [];
after(async () => {
  await Promise.all(v2Clients.map((c) => c.disconnect()));
});
let nextV2 = 0;
function v2Client(extra) {
  const c = new MCPClient({ id: `protocol-rules-${nextV2++}`, servers: { s: { command: nodeBin, args: [v2Server, 'stdio'], timeout: 4000, ...extra } } });
  v2Clients.push(c);
  return c;
}

test('an elicitation.onRequest handler is waited for past the request timeout (4 s)', async () => {
  const c = v2Client({});
  await c.elicitation.onRequest('s', async () => {
    await new Promise((r) => setTimeout(r, 4600));
    return { action: 'accept', content: { address: 'late but answered' } };
  });
  const tools = await c.listTools();
  assert.deepEqual(await tools.s_bookDelivery.execute({ orderId: 'late' }, {}), { confirmed: true, address: 'late but answered' });
});

test("inputRequests is bounded by the server's timeout (4 s): its signal aborts with a TimeoutError first", async () => {
  let seen;
  const c = v2Client({
    inputRequests: ({ signal }) => {
      seen = signal;
      return new Promise(() => {});
    },
  });
  const tools = await c.listTools();
  await assert.rejects(tools.s_bookDelivery.execute({ orderId: 'never' }, {}), /Input request '.+' from server s timed out after 4000ms/);
  assert.equal(seen.aborted, true);
  assert.equal(seen.reason?.name, 'TimeoutError');
  assert.match(seen.reason?.message, /timed out after 4000ms/);
});

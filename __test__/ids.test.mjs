// The one id allocator of the face (lib/client/ids.cjs): tool-call ids and OAuth flow ids both go
// into a NativeClient's table of pending operations, where `cancel(id)` finds them. Before it, tool
// calls counted from 1 and flows from 0x40000000 ("disjoint"): after about 2^30 calls the ranges
// met, and cancelling a flow cancelled the tool call that had its id. The test-only hook moves the
// allocator to that boundary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from './fixtures/helpers.mjs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MCPClient, MCPOAuthClientProvider } from '../index.mjs';
import { startAuthorizationServer } from './fixtures/oauth/authorization-server.mjs';
import { startProtectedMcpServer } from './fixtures/oauth/protected-mcp-server.mjs';

const ids = createRequire(import.meta.url)('../lib/client/ids.cjs');
const OLD_FLOW_BASE = 0x40000000;
const stdioServer = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));

test('ids: u32, never 0, never one still pending, across the wrap', () => {
  ids.__setNextForTest(0xfffffffe);
  const a = ids.allocate();
  const b = ids.allocate();
  const c = ids.allocate();
  assert.deepEqual([a, b, c], [0xfffffffe, 0xffffffff, 1]);
  ids.__setNextForTest(0xfffffffe);
  const d = ids.allocate();
  assert.ok(![a, b, c].includes(d) && d > 1 && d <= 0xffffffff, `an id not pending: ${d}`);
  for (const id of [a, b, c, d]) ids.release(id);
  ids.__setNextForTest(a);
  assert.equal(ids.allocate(), a, 'a released id is handed out again');
  ids.release(a);
});

let as;
let mcp;
before(async () => {
  as = await startAuthorizationServer({});
  mcp = await startProtectedMcpServer({ authorizationServer: as });
});
after(async () => {
  await mcp?.close();
  await as?.close();
});

test('ids: cancelling an OAuth flow never reaches a tool call, at the old flow-id boundary', async () => {
  const port = await freePort();
  const quiet = new MCPOAuthClientProvider({
    redirectUrl: `http://127.0.0.1:${port}/cb`,
    clientMetadata: { client_name: 'quiet', redirect_uris: [`http://127.0.0.1:${port}/cb`], token_endpoint_auth_method: 'none' },
    onRedirectToAuthorization: () => {}, // the user never comes back
  });
  const client = new MCPClient({
    id: 'ids-boundary',
    servers: { p: { url: mcp.url, authProvider: quiet }, s: { command: process.execPath, args: [stdioServer] } },
  });
  try {
    const tools = await client.listTools(); // `s` connected: its calls take the direct path
    // The flow takes the first id of the old flow range...
    ids.__setNextForTest(OLD_FLOW_BASE);
    const flow = client.authenticate('p', { timeoutMs: 10000 });
    flow.catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(ids.__isPendingForTest(OLD_FLOW_BASE), 'the flow holds the id');
    // ...and tool calls reach the same count (after 2^30 calls, before the one allocator).
    ids.__setNextForTest(OLD_FLOW_BASE);
    const call = tools.s_slow.execute({ ms: 800 }, {});
    assert.ok(ids.__isPendingForTest(OLD_FLOW_BASE + 1), 'the call took the next id that was not pending');
    assert.equal(await client.cancelAuthentication('p'), true);
    await assert.rejects(flow, /closed before receiving an authorization code|cancelled/);
    assert.deepEqual(await call, { content: [{ type: 'text', text: 'slept' }] }, 'the tool call was not cancelled');
    assert.ok(!ids.__isPendingForTest(OLD_FLOW_BASE) && !ids.__isPendingForTest(OLD_FLOW_BASE + 1), 'both ids released');
  } finally {
    ids.__setNextForTest(1);
    await client.disconnect();
  }
});

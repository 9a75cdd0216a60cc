// Resources: list and templates (every page, grouped by server, a failed server reported), read, subscribe →
// onUpdated, unsubscribe, missing resources; against our stdio fixture and @mastra/mcp 2.0's MCPServer.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MastraError } from '@mastra/core/error';
import { MCPClient } from '../index.mjs';
import { stdioFixtureServer, startMastra2Http, waitFor, nodeBin, fixturePath } from './fixtures/helpers.mjs';

const server2 = fixturePath('mastra2-server/server.mjs');
let httpServer;
before(async () => {
  httpServer = await startMastra2Http();
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await httpServer?.stop();
});
let n = 0;
const client = (servers, extra = {}) => {
  const c = new MCPClient({ id: `resources-${n++}`, servers, ...extra });
  clients.push(c);
  return c;
};
/** One server named `s`, as the 2.0 tests define it. */
const clientOfS = (def, options = {}) => client({ s: def }, options);

test('resources: list and templates follow every page, grouped by server; a failed server is reported', async () => {
  const c = client({ fx: stdioFixtureServer(), down: { command: 'no-such-binary-abc' } });
  const r = await c.resources.listWithErrors();
  assert.deepEqual(r.resources.fx.map((x) => x.uri), [1, 2, 3, 4, 5].map((i) => `fixture://r/${i}`));
  assert.match(r.errors.down, /ENOENT/);
  assert.equal(r.resources.down, undefined);
  const t = await c.resources.templates();
  assert.equal(t.fx.length, 1);
  assert.equal(t.fx[0].uriTemplate, 'fixture://t/{id}');
});

test('resources: read, subscribe → onUpdated, unsubscribe; missing resources are MastraErrors with the server cause', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const read = await c.resources.read('fx', 'fixture://r/2');
  assert.equal(read.contents[0].uri, 'fixture://r/2');
  assert.equal(typeof read.contents[0].text, 'string');
  const updates = [];
  await c.resources.onUpdated('fx', (params) => updates.push(params));
  assert.deepEqual(await c.resources.subscribe('fx', 'fixture://r/1'), {});
  await waitFor(() => updates.length > 0, { message: 'resource update delivered' });
  assert.equal(updates[0].uri, 'fixture://r/1');
  assert.deepEqual(await c.resources.unsubscribe('fx', 'fixture://r/1'), {});
  await assert.rejects(c.resources.read('fx', 'fixture://nope'), (e) => {
    assert.ok(e instanceof MastraError);
    assert.equal(e.id, 'MCP_CLIENT_READ_RESOURCE_FAILED');
    assert.equal(e.cause.code, -32002);
    return true;
  });
});

// @mastra/mcp 2.0's MCPServer (fixtures/mastra2-server), one server named `s`.
const TRANSPORTS = [
  ['stdio', (extra = {}) => ({ command: nodeBin, args: [server2, 'stdio'], ...extra })],
  ['Streamable HTTP', (extra = {}) => ({ url: httpServer.url, ...extra })],
];

for (const [label, define] of TRANSPORTS) {
  describe(`resources against @mastra/mcp 2.0's MCPServer (${label})`, () => {
    const client = clientOfS;
    test('resource subscriptions: onUpdated fires for a subscribed resource', async () => {
      const updates = [];
      const c = client(define());
      await c.resources.onUpdated('s', (params) => updates.push(params.uri));
      await c.resources.subscribe('s', 'weather://forecast');
      const tools = await c.listTools();
      await tools.s_setForecast.execute({ text: 'rain' }, {});
      await waitFor(() => updates.includes('weather://forecast'), { timeoutMs: 20000, message: 'a resource update' });
      const read = await c.resources.read('s', 'weather://forecast');
      assert.equal(read.contents[0].text, 'rain');
      await c.resources.unsubscribe('s', 'weather://forecast');
    });
  });
}

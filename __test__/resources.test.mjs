// Resources: list and templates (every page, grouped by server, a failed server reported), read, subscribe →
// onUpdated, unsubscribe, missing resources; against our stdio fixture and @mastra/mcp 2.0's MCPServer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MastraError } from '@mastra/core/error';
import { stdioFixtureServer, waitFor } from './fixtures/helpers.mjs';
import { useTestbed } from './fixtures/testbed.mjs';

const { client, clientOfS, mastra2Transports: TRANSPORTS } = useTestbed('resources', { mastra2: true });

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

// @mastra/mcp 2.0's MCPServer (fixtures/mastra2-server), one server named `s`: `TRANSPORTS`.

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

// Behaviours where @mastra/mcp 1.18's documented API and ours used to differ, against
// server-everything over stdio, Streamable HTTP and the legacy HTTP+SSE transport:
// - `enableProgressTracking: false` sends no progress token, so no progress reaches the handler;
// - an accepting elicitation answer gets the `default`s of the fields it left out (SEP-1034);
// - `getServerInstructions()` is synchronous.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MCPClient } from '../index.mjs';
import { startEverythingHttp, waitFor, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
let http;
let sse;
before(async () => {
  [http, sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await Promise.all([http?.stop(), sse?.stop()]);
});

const transports = {
  stdio: () => ({ command: nodeBin, args: [everythingEntry, 'stdio'] }),
  streamableHttp: () => ({ url: http.url }),
  sse: () => ({ url: sse.url }),
};

let nextId = 0;
function client(servers) {
  const c = new MCPClient({ id: `parity-behaviours-${nextId++}`, servers });
  clients.push(c);
  return c;
}

for (const [transport, define] of Object.entries(transports)) {
  test(`${transport}: enableProgressTracking false sends no progress token and delivers no progress`, async () => {
    const c = client({ off: { ...define(), enableProgressTracking: false }, on: define() });
    const progress = { off: [], on: [] };
    const listChanged = { off: 0 };
    await c.progress.onUpdate('off', (p) => progress.off.push(p));
    await c.progress.onUpdate('on', (p) => progress.on.push(p));
    await c.resources.onListChanged('off', () => listChanged.off++);
    const tools = await c.listTools();

    // Control: with tracking on (the default) the same call reports its steps.
    await tools['on_trigger-long-running-operation'].execute({ duration: 0.2, steps: 2 }, { runId: `on-${transport}` });
    await waitFor(() => progress.on.length >= 2, { message: 'progress with tracking on' });

    const result = await tools['off_trigger-long-running-operation'].execute({ duration: 0.2, steps: 2 }, { runId: `off-${transport}` });
    assert.match(JSON.stringify(result), /Long running operation completed/);
    // Events of one server are delivered in arrival order: once a notification the server sends
    // after the call has arrived, any progress of the call would have been delivered before it.
    await tools['off_gzip-file-as-resource'].execute({ name: `barrier-${transport}.gz`, data: 'data:text/plain;base64,aGk=' }, {});
    await waitFor(() => listChanged.off > 0, { message: 'resources/list_changed after the call' });
    assert.deepEqual(progress.off, [], 'no progress without tracking');
  });

  test(`${transport}: with tracking off, a progressToken the caller puts in _meta still gets its progress`, async () => {
    const c = client({ off: { ...define(), enableProgressTracking: false } });
    const progress = [];
    await c.progress.onUpdate('off', (p) => progress.push(p));
    const tools = await c.listTools();
    await tools['off_trigger-long-running-operation'].execute({ duration: 0.2, steps: 2 }, { _meta: { progressToken: `mine-${transport}` } });
    await waitFor(() => progress.length >= 2, { message: 'progress for the caller-supplied token' });
    assert.ok(progress.every((p) => p.progressToken === `mine-${transport}`), JSON.stringify(progress));
  });

  test(`${transport}: elicitation applies requestedSchema defaults to fields an accept left out`, async () => {
    const c = client({ ev: define() });
    const asked = [];
    await c.elicitation.onRequest('ev', async (request) => {
      asked.push(request);
      return { action: 'accept', content: { name: 'Grace Hopper' } };
    });
    const tools = await waitFor(async () => {
      const t = await c.listTools();
      return t['ev_trigger-elicitation-request'] ? t : undefined;
    }, { timeoutMs: 10000, message: 'elicitation tool listed' });
    const result = await tools['ev_trigger-elicitation-request'].execute({}, {});
    const text = result.content.map((b) => b.text).join('\n');
    const raw = JSON.parse(text.slice(text.indexOf('{', text.indexOf('Raw result:'))));
    assert.equal(raw.action, 'accept');
    assert.equal(raw.content.name, 'Grace Hopper', 'the answer wins over the default');
    const schema = asked[0].requestedSchema.properties;
    for (const [field, property] of Object.entries(schema)) {
      if (field === 'name' || !('default' in property)) continue;
      assert.deepEqual(raw.content[field], property.default, `default of ${field} applied`);
    }
    assert.equal(raw.content.check, undefined, 'a field without a default stays absent');
    assert.ok(Object.keys(raw.content).length > 3, 'several defaults applied');
  });

  test(`${transport}: getServerInstructions is synchronous and follows the session`, async () => {
    const c = client({ ev: define() });
    const before = c.getServerInstructions();
    assert.equal(typeof before?.then, 'undefined', 'not a Promise');
    assert.deepEqual(before, { ev: undefined });
    await c.listTools();
    const during = c.getServerInstructions();
    assert.equal(typeof during.ev, 'string');
    assert.ok(during.ev.length > 0);
    await c.disconnect();
    assert.deepEqual(c.getServerInstructions(), { ev: undefined });
  });
}

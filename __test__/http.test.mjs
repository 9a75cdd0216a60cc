// Transport parity: the same server (server-everything) over stdio, Streamable HTTP and legacy
// SSE gives the same tools, tool results, resources and prompts; and over each of them the whole surface works
// (resources with a subscription update and list_changed, prompts, tools list_changed, progress, all three
// elicitation outcomes, server logs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MCPClient } from '../index.mjs';
import { startEverythingHttp, waitFor, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
let streamable;
let sse;
before(async () => {
  [streamable, sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await Promise.all([streamable?.stop(), sse?.stop()]);
});

async function snapshot(def, label) {
  const c = new MCPClient({ id: `parity-${label}`, servers: { ev: def } });
  clients.push(c);
  const tools = await c.listTools();
  const echo = await tools.ev_echo.execute({ message: 'same everywhere' }, {});
  const sum = await tools['ev_get-sum'].execute({ a: 2, b: 3 }, {});
  const resources = await c.resources.list();
  const first = resources.ev.find((r) => r.mimeType === 'text/plain') ?? resources.ev[0];
  const read = await c.resources.read('ev', first.uri);
  const prompts = await c.prompts.list();
  const simple = prompts.ev.find((p) => !p.arguments?.some((arg) => arg.required));
  const prompt = await c.prompts.get({ serverName: 'ev', name: simple.name });
  return {
    tools: Object.keys(tools).sort(),
    echo,
    sum,
    resource: { uri: first.uri, contents: read.contents },
    prompt: { name: simple.name, messages: prompt.messages },
  };
}

test('parity: listTools, execute, resources.read and prompts.get are identical over stdio, Streamable HTTP and SSE', async () => {
  const overStdio = await snapshot({ command: nodeBin, args: [everythingEntry, 'stdio'] }, 'stdio');
  const overHttp = await snapshot({ url: new URL(streamable.url) }, 'http');
  const overSse = await snapshot({ url: sse.url }, 'sse');
  assert.deepEqual(overStdio.echo.content, [{ type: 'text', text: 'Echo: same everywhere' }]);
  assert.deepEqual(overHttp, overStdio);
  assert.deepEqual(overSse, overStdio);
});

test('fallback: a URL that is not /sse first tries Streamable HTTP, then falls back to SSE', async () => {
  const url = `${sse.url}/`; // ends with "/sse/": POST is refused, the SSE GET works
  const c = new MCPClient({ id: 'parity-fallback', servers: { ev: { url } } });
  clients.push(c);
  const tools = await c.listTools();
  assert.equal((await tools.ev_echo.execute({ message: 'fell back' }, {})).content[0].text, 'Echo: fell back');
  assert.deepEqual(c.sessionIds, {}, 'connected over SSE, not Streamable HTTP');
});

test('http: a refused connection fails within the connect timeout, naming the server', { timeout: 60000 }, async () => {
  const c = new MCPClient({ id: 'parity-refused', servers: { remote: { url: 'http://127.0.0.1:9/mcp', connectTimeout: 1000, timeout: 1000 } } });
  clients.push(c);
  const r = await c.listToolsWithErrors();
  assert.match(r.errors.remote, /^Failed to connect to MCP server remote: Could not connect to server with any available HTTP transport/);
});

const definitions = {
  stdio: () => ({ command: nodeBin, args: [everythingEntry, 'stdio'] }),
  streamableHttp: () => ({ url: streamable.url }),
  sse: () => ({ url: sse.url }),
};

for (const [transport, define] of Object.entries(definitions)) {
  test(`surface over ${transport}: resources, prompts, notifications, progress, elicitation, logs`, async () => {
    const logs = [];
    const c = new MCPClient({ id: `everything-${transport}`, servers: { ev: { ...define(), logger: (m) => logs.push(m) } } });
    clients.push(c);

    // Elicitation is advertised because the handler is registered before the first connect.
    const answers = [{ action: 'accept', content: { name: 'Ada Lovelace', check: true } }, { action: 'decline' }, { action: 'cancel' }];
    const asked = [];
    await c.elicitation.onRequest('ev', async (params) => {
      asked.push(params);
      return answers.shift();
    });

    // Server-everything registers its elicitation tool after initialization and announces it
    // with tools/list_changed; the cached list must pick it up.
    const tools = await waitFor(async () => {
      const t = await c.listTools();
      return t['ev_trigger-elicitation-request'] ? t : undefined;
    }, { timeoutMs: 10000, message: 'tools/list_changed refreshed the list' });

    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      const result = await tools['ev_trigger-elicitation-request'].execute({}, {});
      outcomes.push(result.content.map((b) => b.text).join('\n'));
    }
    assert.equal(asked.length, 3);
    assert.match(asked[0].message, /Please provide inputs/);
    assert.match(outcomes[0], /"action": "accept"/);
    assert.match(outcomes[0], /Ada Lovelace/);
    assert.match(outcomes[1], /"action": "decline"/);
    assert.match(outcomes[2], /"action": "cancel"/);

    // Progress from the long-running tool, with the run id as token.
    const progress = [];
    await c.progress.onUpdate('ev', (p) => progress.push(p));
    await tools['ev_trigger-long-running-operation'].execute({ duration: 0.3, steps: 3 }, { runId: `run-${transport}` });
    await waitFor(() => progress.length >= 3, { message: 'progress updates' });
    assert.ok(progress.every((p) => p.progressToken === `run-${transport}`));
    assert.deepEqual(progress.slice(0, 3).map((p) => p.progress), [1, 2, 3], 'in order');

    // Resources: every page, templates, read; list_changed after a session resource appears.
    const resources = (await c.resources.list()).ev;
    assert.ok(resources.length > 0);
    assert.ok((await c.resources.templates()).ev.length > 0);
    const text = resources.find((r) => r.mimeType === 'text/plain') ?? resources[0];
    assert.ok((await c.resources.read('ev', text.uri)).contents.length > 0);
    let listChanged = 0;
    await c.resources.onListChanged('ev', () => listChanged++);
    await tools['ev_gzip-file-as-resource'].execute({ name: `hello-${transport}.gz`, data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=' }, {});
    await waitFor(() => listChanged > 0, { message: 'resources/list_changed delivered' });

    // A subscription delivers an update (server-everything emits them every 5 s once toggled).
    const updates = [];
    await c.resources.onUpdated('ev', (params) => updates.push(params));
    assert.deepEqual(await c.resources.subscribe('ev', text.uri), {});
    await tools['ev_toggle-subscriber-updates'].execute({}, {});
    await waitFor(() => updates.some((u) => u.uri === text.uri), { timeoutMs: 12000, message: 'resource update delivered' });
    assert.deepEqual(await c.resources.unsubscribe('ev', text.uri), {});
    await tools['ev_toggle-subscriber-updates'].execute({}, {});

    // Prompts.
    const prompts = (await c.prompts.list()).ev;
    const simple = prompts.find((p) => !p.arguments?.some((a) => a.required));
    const got = await c.prompts.get({ serverName: 'ev', name: simple.name });
    assert.ok(got.messages.length > 0);
    assert.equal(got.prompt.name, simple.name);

    // Server logs reach the logger handler.
    await tools['ev_toggle-simulated-logging'].execute({}, {});
    await waitFor(() => logs.some((m) => m.message === '[ev] [MCP SERVER LOG]'), { timeoutMs: 12000, message: 'server log delivered' });
    await tools['ev_toggle-simulated-logging'].execute({}, {});
  });
}

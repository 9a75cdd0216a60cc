// The whole client surface over stdio: resources, prompts, notifications, progress, elicitation,
// logging, proxies; against our fixture server and server-everything.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MastraError } from '@mastra/core/error';
import { MCPServerBase } from '@mastra/core/mcp';
import { MCPClient } from '../index.mjs';
import { stdioFixtureServer, waitFor, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everything = { command: nodeBin, args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] };
const clients = [];
after(async () => Promise.all(clients.map((c) => c.disconnect())));
let n = 0;
const client = (servers, extra = {}) => {
  const c = new MCPClient({ id: `surface-${n++}`, servers, ...extra });
  clients.push(c);
  return c;
};

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

test('prompts: list all pages; get returns the GetPromptResult fields plus prompt', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const list = await c.prompts.list();
  assert.deepEqual(list.fx.map((p) => p.name).sort(), ['greeting', 'talk']);
  const got = await c.prompts.get({ serverName: 'fx', name: 'talk', args: { topic: 'rust' } });
  assert.equal(got.messages[0].content.text, 'Talk about rust');
  assert.equal(got.prompt.name, 'talk');
  await assert.rejects(c.prompts.get({ serverName: 'fx', name: 'talk', args: {} }), (e) => e.id === 'MCP_CLIENT_GET_PROMPT_FAILED');
});

test('tools.onListChanged: the handler runs and the cached list is refreshed', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const first = await c.listTools();
  assert.equal(await c.listTools().then((t) => t.fx_cwd), first.fx_cwd, 'unchanged lists reuse tool objects');
  let changed = 0;
  await c.tools.onListChanged('fx', () => changed++);
  await first.fx_notify_tools_changed.execute({}, {});
  await waitFor(() => changed === 1, { message: 'list_changed handler called' });
  const second = await c.listTools();
  assert.notEqual(second.fx_cwd, first.fx_cwd, 'a list_changed notification invalidates the cache');
});

test('progress: updates carry the run id as progress token', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const updates = [];
  await c.progress.onUpdate('fx', (p) => updates.push(p));
  const tools = await c.listTools();
  await tools.fx_progress.execute({}, { runId: 'run-123' });
  await waitFor(() => updates.length === 3, { message: 'three progress updates' });
  // In arrival order, each with the run id as its token.
  assert.deepEqual(updates.map((u) => [u.progressToken, u.progress, u.total, u.message]), [
    ['run-123', 1, 3, 'step 1'],
    ['run-123', 2, 3, 'step 2'],
    ['run-123', 3, 3, 'step 3'],
  ]);
});

test('progress: server-everything long-running operation reports progress', async () => {
  const c = client({ everything });
  const updates = [];
  await c.progress.onUpdate('everything', (p) => updates.push(p));
  const tools = await c.listTools();
  await tools['everything_trigger-long-running-operation'].execute({ duration: 0.3, steps: 3 }, { runId: 'lr' });
  await waitFor(() => updates.length >= 3, { message: 'progress from server-everything' });
  assert.ok(updates.every((u) => u.progressToken === 'lr'));
});

test('elicitation: accept, decline and cancel reach the server; a throwing handler gives the server an error', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const answers = [
    { action: 'accept', content: { name: 'Ada' } },
    { action: 'decline' },
    { action: 'cancel' },
    { action: 'maybe', content: 42 },
  ];
  const seen = [];
  await c.elicitation.onRequest('fx', async (params) => {
    seen.push(params.message);
    const a = answers.shift();
    if (!a) throw new Error('no more answers');
    return a;
  });
  const tools = await c.listTools();
  const results = [];
  for (let i = 0; i < 5; i++) results.push(JSON.parse((await tools.fx_elicit.execute({}, {})).content[0].text));
  assert.deepEqual(results[0], { action: 'accept', content: { name: 'Ada' } });
  assert.equal(results[1].action, 'decline');
  assert.equal(results[2].action, 'cancel');
  // An invalid result and a throwing handler both reach the server as JSON-RPC errors.
  assert.match(JSON.stringify(results[3]), /invalid result/);
  assert.match(JSON.stringify(results[4]), /no more answers/);
  assert.equal(seen[0], 'Your name?');
  await assert.rejects(
    client({ late: stdioFixtureServer() }).listTools().then(() => clients.at(-1).elicitation.onRequest('late', async () => ({ action: 'cancel' }))),
    (e) => e.id === 'MCP_CLIENT_ON_REQUEST_ELICITATION_FAILED' && /after connecting/.test(e.message),
  );
});

test('logging: server logs reach the logger (or log) handler; enableServerLogs false drops them', async () => {
  const a = [];
  const b = [];
  const quiet = [];
  const c = client({
    fx: stdioFixtureServer({}, { logger: (m) => a.push(m) }),
    fy: stdioFixtureServer({}, { log: (m) => b.push(m) }),
    fz: stdioFixtureServer({}, { logger: (m) => quiet.push(m), enableServerLogs: false }),
  });
  const tools = await c.listTools();
  await tools.fx_log.execute({ level: 'warning', data: { hello: 'world' } }, {});
  await tools.fy_log.execute({}, {});
  await tools.fz_log.execute({}, {});
  await waitFor(() => a.some((m) => m.message.includes('[MCP SERVER LOG]')) && b.some((m) => m.message.includes('[MCP SERVER LOG]')));
  const entry = a.find((m) => m.message === '[fx] [MCP SERVER LOG]');
  assert.equal(entry.level, 'warning');
  assert.equal(entry.serverName, 'fx');
  assert.deepEqual(entry.details, { logger: 'fixture', data: { hello: 'world' } });
  assert.ok(entry.timestamp instanceof Date);
  assert.equal(entry.requestContext, null);
  assert.ok(!quiet.some((m) => m.message.includes('[MCP SERVER LOG]')));
});

test('handlers survive disconnect and reconnect', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const updates = [];
  await c.progress.onUpdate('fx', (p) => updates.push(p));
  await c.disconnect();
  await c.reconnectServer('fx');
  const tools = await c.listTools();
  await tools.fx_progress.execute({}, { runId: 'after' });
  await waitFor(() => updates.length === 3, { message: 'handler still registered' });
});

test('toMCPServerProxies: proxies list and execute remote tools and read resources', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const proxies = c.toMCPServerProxies();
  assert.ok(proxies.fx instanceof MCPServerBase);
  const info = await proxies.fx.getToolListInfo();
  const cwd = info.tools.find((t) => t.id === 'cwd');
  assert.equal(cwd.name, 'fx_cwd');
  const out = await proxies.fx.executeTool('cwd', {});
  assert.equal(out.content[0].text, process.cwd());
  await assert.rejects(proxies.fx.executeTool('nope', {}), /Tool 'nope' not found on remote MCP server 'fx'/);
  const res = await proxies.fx.listResources();
  assert.equal(res.resources.length, 5);
  const read = await proxies.fx.readResource('fixture://r/1');
  assert.equal(read.contents[0].uri, 'fixture://r/1');
  await assert.rejects(proxies.fx.startStdio(), /does not support stdio transport/);
});

// Behaviours where we must be at least as good as @mastra/mcp 1.18 on real servers (besides the
// era start, which real-servers.test.mjs covers): a server restarted under a live Streamable HTTP
// session, results with the server's JSON key order, a 2026-07-28 session that holds no idle
// subscriptions/listen stream, an SSE-only URL bounded by `timeout`, and MCPClientServerProxy
// built as @mastra/mcp builds it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MCPClient, MCPClientServerProxy, InternalMastraMCPClient } from '../index.mjs';
import { startEverythingHttp, fixturePath, nodeBin, methodSpy } from './fixtures/helpers.mjs';
import { startHttpFixture } from './fixtures/http-server.mjs';
import { pythonWithMcp } from '../scripts/python-venv.mjs';
import { startPythonHttp } from './fixtures/python-http.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const pyServer = fixturePath('python/server.py');
let python;
let pyHttp;
let fixture;
const clients = [];
const stops = [];

before(async () => {
  python = pythonWithMcp();
  [pyHttp, fixture] = await Promise.all([startPythonHttp(python, pyServer), startHttpFixture()]);
});
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect().catch(() => {})));
  await Promise.all([pyHttp?.stop(), fixture?.close(), ...stops.map((s) => s())]);
});

let nextId = 0;
function client(servers) {
  const c = new MCPClient({ id: `never-worse-${process.pid}-${nextId++}`, servers });
  clients.push(c);
  return c;
}

test('a Streamable HTTP server restarted under a live session: the next call initializes again and succeeds, run once', async () => {
  const first = await startEverythingHttp('streamableHttp');
  let current = first;
  stops.push(() => current.stop());
  const { methods, fetchSpy } = methodSpy();
  const c = client({ ev: { url: new URL(first.url), fetch: fetchSpy } });
  const tools = await c.listTools();
  assert.match(JSON.stringify(await tools.ev_echo.execute({ message: 'before' }, {})), /Echo: before/);
  const sessionBefore = c.sessionIds.ev;
  assert.equal(typeof sessionBefore, 'string');

  await first.stop();
  current = await startEverythingHttp('streamableHttp', { port: first.port });

  const result = await tools.ev_echo.execute({ message: 'after' }, {});
  assert.match(JSON.stringify(result), /Echo: after/, JSON.stringify(result));
  assert.equal(methods.filter((m) => m === 'initialize').length, 2, methods.join(' '));
  const calls = methods.filter((m) => m === 'tools/call').length;
  // before, the one the restarted server refused unrun (404: unknown session), and that call once more.
  assert.equal(calls, 3, `the refused call is sent again, once: ${methods.join(' ')}`);
  assert.notEqual(c.sessionIds.ev, sessionBefore, 'a new session');
});

for (const [label, define] of [
  ['stdio', () => ({ command: python, args: [pyServer, 'stdio'] })],
  ['Streamable HTTP', () => ({ url: new URL(pyHttp.url) })],
  ['stdio, 2026-07-28', () => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: '2026-07-28' })],
  ['Streamable HTTP, 2026-07-28', () => ({ url: new URL(pyHttp.url), protocolVersion: '2026-07-28' })],
]) {
  test(`results keep the server's JSON key order over ${label}`, async () => {
    const c = client({ py: define() });
    const tools = await c.listTools();
    const result = await tools.py_weather.execute({ city: 'Oslo' }, {});
    const structured = result.structuredContent ?? result;
    assert.deepEqual(Object.keys(structured), ['temperature', 'conditions'], JSON.stringify(result));
  });
}

test('a 2026-07-28 session opens subscriptions/listen only once a handler or a subscription needs it', async () => {
  const { methods, fetchSpy } = methodSpy();
  const c = client({ py: { url: new URL(pyHttp.url), protocolVersion: '2026-07-28', fetch: fetchSpy } });
  await c.listTools();
  await (await c.listTools()).py_echo.execute({ message: 'hi' }, {});
  assert.ok(!methods.includes('subscriptions/listen'), `no stream without interest: ${methods.join(' ')}`);
  let changed = 0;
  await c.tools.onListChanged('py', () => changed++);
  const deadline = Date.now() + 10_000;
  while (!methods.includes('subscriptions/listen') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(methods.includes('subscriptions/listen'), `a list-changed handler opens the stream: ${methods.join(' ')}`);
  assert.equal(changed, 0);
});

test('an SSE-only URL (ending in /sse) that never answers fails after `timeout`, not the longer connect timeout', async () => {
  const c = client({ hole: { url: new URL(`${fixture.url}/blackhole/sse`), timeout: 1500, connectTimeout: 6000 } });
  const { errors } = await c.listToolsWithErrors();
  assert.match(errors.hole, /1500 ms/, errors.hole);
  assert.doesNotMatch(errors.hole, /6000 ms/);
});

test('MCPClientServerProxy built as @mastra/mcp builds it, over an InternalMastraMCPClient getter', async () => {
  const internal = new InternalMastraMCPClient({ name: 'ev', server: { command: nodeBin, args: [everythingEntry, 'stdio'] } });
  clients.push(internal);
  const proxy = new MCPClientServerProxy({ name: 'ev' }, async () => internal);
  const { resources } = await proxy.listResources();
  assert.ok(resources.length > 0, 'resources listed through the internal client');
  const read = await proxy.readResource(resources[0].uri);
  assert.ok(read.contents.length > 0 && read.contents[0].uri, JSON.stringify(read));
  const list = await proxy.getToolListInfo();
  assert.ok(list.tools.some((t) => t.id === 'echo'), JSON.stringify(list.tools.map((t) => t.id)));
  assert.match(JSON.stringify(await proxy.executeTool('echo', { message: 'via proxy' })), /Echo: via proxy/);

  // An answer without `contents` reads as none, as in @mastra/mcp.
  const bare = new MCPClientServerProxy({ name: 'bare' }, async () => ({ resources: { read: async () => ({}) } }));
  assert.deepEqual(await bare.readResource('x://y'), { contents: [] });
});

test('reconnectServer() of a 2026-07-28 session over Streamable HTTP sends nothing, keeps the era, and survives an outage', async () => {
  let server = await startPythonHttp(python, pyServer);
  stops.push(() => server.stop());
  const { methods, fetchSpy } = methodSpy();
  const c = client({ py: { url: new URL(server.url), protocolVersion: '2026-07-28', fetch: fetchSpy } });
  const tools = await c.listTools();
  assert.deepEqual(c.getServerProtocolVersions(), { py: '2026-07-28' });
  const sent = methods.length;
  await c.reconnectServer('py');
  assert.equal(methods.length, sent, `nothing sent by the reconnect: ${methods.slice(sent).join(' ')}`);
  assert.deepEqual(c.getServerProtocolVersions(), { py: '2026-07-28' });

  await server.stop();
  await c.reconnectServer('py'); // during the outage: does not throw
  server = await startPythonHttp(python, pyServer, { port: server.port });
  assert.match(JSON.stringify(await tools.py_echo.execute({ message: 'back' }, {})), /Echo: back/);
  assert.equal(methods.filter((m) => m === 'server/discover').length, 1, `no second probe: ${methods.join(' ')}`);
});

test('concurrent resource subscriptions in a 2026-07-28 session end on one stream asking for all of them', async () => {
  const bodies = [];
  const fetchSpy = async (url, init) => {
    const body = init?.body == null ? '' : typeof init.body === 'string' ? init.body : Buffer.from(init.body).toString();
    if (body.includes('"subscriptions/listen"')) bodies.push(JSON.parse(body));
    return fetch(url, init);
  };
  const c = client({ py: { url: new URL(pyHttp.url), protocolVersion: '2026-07-28', fetch: fetchSpy } });
  await c.listTools();
  await Promise.all([c.resources.subscribe('py', 'fixture://greeting'), c.resources.subscribe('py', 'fixture://other')]);
  const deadline = Date.now() + 10_000;
  while (bodies.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const last = bodies.at(-1);
  assert.ok(last, 'a subscriptions/listen was sent');
  assert.deepEqual(JSON.stringify(last.params).match(/fixture:\/\/\w+/g).sort(), ['fixture://greeting', 'fixture://other'], JSON.stringify(bodies));
});

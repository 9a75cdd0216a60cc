// One scenario suite over both protocol eras and both stdio and Streamable HTTP:
// server-everything (2025-11-25, initialize handshake) and a server on the official Python SDK
// 2.x, which speaks 2026-07-28 (server/discover, per-request _meta) and the handshake alike.
// Omitted, the client opens with the handshake (as @mastra/mcp 1.18 does) and speaks 2026-07-28 only
// with a server that refuses it (real-servers.test.mjs has the modern-only servers); `'auto'` discovers
// first and falls back to the handshake (as @mastra/mcp 2.0 does by default); `'legacy'` or a handshake
// revision pins the handshake; `'2026-07-28'` pins the stateless revision. Then what a session of each era keeps:
// the server's JSON key order, a 2026-07-28 session's subscriptions/listen stream (opened only when needed, one for
// all subscriptions), reconnectServer() of a 2026-07-28 session, and @mastra/mcp 2.0's MCPServer's era.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MCPClient, InternalMastraMCPClient, MCP_CLIENT_PROTOCOL_VERSION } from '../index.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEverythingHttp, startMastra2Http, waitFor, nodeBin, fixturePath, stdioFixtureServer, methodSpy } from './fixtures/helpers.mjs';
import { pythonWithMcp } from '../scripts/python-venv.mjs';
import { startPythonHttp } from './fixtures/python-http.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const pyServer = fixturePath('python/server.py');
let python;


const http = {};
before(async () => {
  python = pythonWithMcp();
  [http.everything, http.python, http.mastra2] = await Promise.all([
    startEverythingHttp('streamableHttp'),
    startPythonHttp(python, pyServer),
    startMastra2Http(),
  ]);
});
const clients = [];
const stops = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect().catch(() => {})));
  await Promise.all([...Object.values(http).map((s) => s.stop()), ...stops.map((s) => s())]);
});

const everything = {
  echo: 'echo',
  progress: { tool: 'trigger-long-running-operation', args: { duration: 0.3, steps: 3 } },
};
const py = { echo: 'echo', progress: { tool: 'count', args: { steps: 3 } }, instructions: 'Python fixture: be brief.' };

// name → [server definition, expectations, the protocol revision the session must speak]
const targets = {
  'server-everything over stdio, auto': [() => ({ command: nodeBin, args: [everythingEntry, 'stdio'], protocolVersion: 'auto' }), everything, '2025-11-25'],
  'server-everything over Streamable HTTP, auto': [() => ({ url: http.everything.url, protocolVersion: 'auto' }), everything, '2025-11-25'],
  'python SDK over stdio, auto': [() => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: 'auto' }), py, '2026-07-28'],
  'python SDK over Streamable HTTP, auto': [() => ({ url: http.python.url, protocolVersion: 'auto' }), py, '2026-07-28'],
  'server-everything over stdio, protocolVersion omitted': [() => ({ command: nodeBin, args: [everythingEntry, 'stdio'] }), everything, '2025-11-25'],
  'python SDK over stdio, protocolVersion omitted': [() => ({ command: python, args: [pyServer, 'stdio'] }), py, '2025-11-25'],
  'python SDK over Streamable HTTP, protocolVersion omitted': [() => ({ url: http.python.url }), py, '2025-11-25'],
  'python SDK over stdio, legacy': [() => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: 'legacy' }), py, '2025-11-25'],
  'python SDK over Streamable HTTP, pinned 2026-07-28': [() => ({ url: http.python.url, protocolVersion: '2026-07-28' }), py, '2026-07-28'],
  'python SDK over stdio, pinned 2025-11-25': [() => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: '2025-11-25' }), py, '2025-11-25'],
  'python SDK over Streamable HTTP, pinned 2025-11-25': [() => ({ url: http.python.url, protocolVersion: '2025-11-25' }), py, '2025-11-25'],
  'python SDK over stdio, pinned 2026-07-28': [() => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: '2026-07-28' }), py, '2026-07-28'],
};

let nextId = 0;
for (const [label, [define, expect, era]] of Object.entries(targets)) {
  test(`eras: ${label} speaks ${era}: tools, progress, resources, prompts, instructions`, async () => {
    const logs = [];
    const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: { ...define(), logger: (m) => logs.push(m) } } });
    clients.push(c);
    assert.deepEqual(c.getServerProtocolVersions(), { s: undefined }, 'no revision before connecting');
    const progress = [];
    await c.progress.onUpdate('s', (p) => progress.push(p));

    const tools = await c.listTools();
    assert.ok(logs.some((l) => l.message.includes(`Connected (protocol ${era})`)), `negotiated ${era}: ${logs.map((l) => l.message).join(' | ')}`);
    assert.deepEqual(c.getServerProtocolVersions(), { s: era });
    const echoed = await tools[`s_${expect.echo}`].execute({ message: 'hi' }, {});
    assert.match(JSON.stringify(echoed), /Echo: hi/);

    const runId = `run-${nextId}`;
    await tools[`s_${expect.progress.tool}`].execute(expect.progress.args, { runId });
    await waitFor(() => progress.filter((p) => p.progressToken === runId).length >= 3, { timeoutMs: 10000, message: 'progress updates' });

    const resources = (await c.resources.list()).s;
    assert.ok(resources.length > 0, 'resources listed');
    const text = resources.find((r) => r.mimeType === 'text/plain') ?? resources[0];
    assert.ok((await c.resources.read('s', text.uri)).contents.length > 0, 'resource read');

    const prompts = (await c.prompts.list()).s;
    const simple = prompts.find((p) => !p.arguments?.some((a) => a.required));
    assert.ok(simple, 'a prompt without required arguments');
    const got = await c.prompts.get({ serverName: 's', name: simple.name });
    assert.ok(got.messages.length > 0, 'prompt messages');

    const instructions = (await c.getServerInstructions()).s;
    if (expect.instructions) assert.equal(instructions, expect.instructions);
    else assert.equal(typeof instructions, 'string');
    // A 2026-07-28 session has no Mcp-Session-Id.
    if (era === '2026-07-28') assert.equal(c.sessionIds.s, undefined);
  });
}

test('eras: a server that answered with the handshake is remembered: the reconnect skips discovery', async () => {
  const methods = [];
  const fetchSpy = async (url, init) => {
    const body = init?.body == null ? '' : typeof init.body === 'string' ? init.body : Buffer.from(init.body).toString();
    for (const m of body.matchAll(/"method":"([^"]+)"/g)) methods.push(m[1]);
    return fetch(url, init);
  };
  const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: { url: http.everything.url, fetch: fetchSpy, protocolVersion: 'auto' } } });
  clients.push(c);
  await c.listTools();
  await c.reconnectServer('s');
  await c.listTools();
  assert.equal(methods.filter((m) => m === 'server/discover').length, 1, methods.join(' '));
  assert.equal(methods.filter((m) => m === 'initialize').length, 2, methods.join(' '));
});

for (const [label, define] of [
  ['stdio', () => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: 'auto' })],
  ['Streamable HTTP', () => ({ url: http.python.url, protocolVersion: 'auto' })],
]) {
  test(`eras: in a 2026-07-28 session over ${label}, list changes and resource updates arrive through subscriptions/listen`, async () => {
    const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: define() } });
    clients.push(c);
    let toolsChanged = 0;
    const updates = [];
    await c.tools.onListChanged('s', () => toolsChanged++);
    await c.resources.onUpdated('s', (params) => updates.push(params));
    const tools = await c.listTools();
    assert.deepEqual(await c.resources.subscribe('s', 'fixture://greeting'), {});
    // The subscription is (re)opened asynchronously: touch until both arrive.
    await waitFor(
      async () => {
        await tools.s_touch.execute({ uri: 'fixture://greeting' }, {});
        return toolsChanged > 0 && updates.some((u) => u.uri === 'fixture://greeting');
      },
      { timeoutMs: 15000, intervalMs: 200, message: 'tools list_changed and resource update delivered' },
    );
    assert.deepEqual(await c.resources.unsubscribe('s', 'fixture://greeting'), {});
  });
}

test('eras: protocolVersion omitted opens with the handshake, as @mastra/mcp 1.18: no server/discover reaches a dual-era or a handshake-era server', async () => {
  const modern = methodSpy();
  const legacy = methodSpy();
  const c = new MCPClient({
    id: `eras-${nextId++}`,
    servers: { py: { url: http.python.url, fetch: modern.fetchSpy }, ev: { url: http.everything.url, fetch: legacy.fetchSpy } },
  });
  clients.push(c);
  await c.listTools();
  for (const { methods } of [modern, legacy]) {
    assert.deepEqual(methods.slice(0, 2), ['initialize', 'notifications/initialized'], methods.join(' '));
    assert.ok(!methods.includes('server/discover'), methods.join(' '));
  }
  assert.deepEqual(c.getServerProtocolVersions(), { py: '2025-11-25', ev: '2025-11-25' });
  assert.equal(typeof c.sessionIds.ev, 'string', 'the handshake session has its Mcp-Session-Id');
});

test("eras: protocolVersion 'legacy' sends no server/discover (the handshake, as @mastra/mcp 1.18 does by default)", async () => {
  const { methods, fetchSpy } = methodSpy();
  const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: { url: http.python.url, fetch: fetchSpy, protocolVersion: 'legacy' } } });
  clients.push(c);
  await c.listTools();
  assert.equal(methods[0], 'initialize', methods.join(' '));
  assert.ok(!methods.includes('server/discover'), methods.join(' '));
  assert.deepEqual(c.getServerProtocolVersions(), { s: '2025-11-25' });
});

test("eras: 'auto': a stdio server that exits when probed with server/discover is started again with the handshake; omitted, it gets the handshake first", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'eras-'));
  try {
    const recv = join(dir, 'recv.log');
    const c = new MCPClient({
      id: `eras-${nextId++}`,
      servers: { s: { ...stdioFixtureServer({ FIXTURE_PRE_INIT: 'exit', FIXTURE_RECV_LOG: recv }), protocolVersion: 'auto' } },
    });
    clients.push(c);
    const tools = await c.listTools();
    const cwd = await tools.s_cwd.execute({}, {});
    assert.equal(cwd.content[0].text, process.cwd());
    assert.deepEqual(c.getServerProtocolVersions(), { s: '2025-11-25' });
    const methods = readFileSync(recv, 'utf8').trim().split('\n').map((l) => JSON.parse(l).method);
    assert.deepEqual(methods.slice(0, 2), ['server/discover', 'initialize'], methods.join(' '));
    // Remembered: a reconnect goes straight to the handshake.
    await c.reconnectServer('s');
    await c.listTools();
    const after = readFileSync(recv, 'utf8').trim().split('\n').map((l) => JSON.parse(l).method);
    assert.equal(after.filter((m) => m === 'server/discover').length, 1, after.join(' '));
    await c.disconnect();

    const defaultRecv = join(dir, 'default-recv.log');
    const d = new MCPClient({ id: `eras-${nextId++}`, servers: { s: stdioFixtureServer({ FIXTURE_PRE_INIT: 'exit', FIXTURE_RECV_LOG: defaultRecv }) } });
    clients.push(d);
    assert.ok((await d.listTools()).s_cwd, 'connected');
    const sent = readFileSync(defaultRecv, 'utf8').trim().split('\n').map((l) => JSON.parse(l).method);
    assert.deepEqual(sent.slice(0, 2), ['initialize', 'notifications/initialized'], sent.join(' '));
    assert.ok(!sent.includes('server/discover'), sent.join(' '));
    await d.disconnect();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('eras: pinned 2026-07-28 against a handshake-only server fails naming the server, without the SSE fallback', async () => {
  const methods = [];
  const fetchSpy = async (url, init) => {
    const body = init?.body == null ? '' : typeof init.body === 'string' ? init.body : Buffer.from(init.body).toString();
    methods.push(`${init?.method ?? 'GET'} ${body.match(/"method":"([^"]+)"/)?.[1] ?? ''}`);
    return fetch(url, init);
  };
  const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: { url: http.everything.url, fetch: fetchSpy, protocolVersion: '2026-07-28' } } });
  clients.push(c);
  const { errors } = await c.listToolsWithErrors();
  assert.match(errors.s, /\bs\b/);
  assert.ok(!methods.some((m) => m.startsWith('GET')), `no SSE GET: ${methods.join(' | ')}`);
  assert.ok(!methods.some((m) => m.endsWith(' initialize')), `no handshake: ${methods.join(' | ')}`);
});

test('eras: an unknown protocolVersion is a configuration error naming the server and the field', async () => {
  const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: { url: http.python.url, protocolVersion: '2030-01-01' } } });
  clients.push(c);
  const { errors } = await c.listToolsWithErrors();
  assert.match(errors.s, /protocolVersion/);
  assert.match(errors.s, /"s"|server s|\bs\b/);
});

for (const [label, define] of [
  ['stdio', () => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: 'auto' })],
  ['Streamable HTTP', () => ({ url: http.python.url, protocolVersion: '2026-07-28' })],
]) {
  test(`eras: in a 2026-07-28 session over ${label}, an input_required result is answered by the elicitation handler and the call retried`, async () => {
    const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: define() } });
    clients.push(c);
    const asked = [];
    await c.elicitation.onRequest('s', async (params) => {
      asked.push(params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const tools = await c.listTools();
    const result = await tools.s_confirm.execute({ question: 'Who are you?' }, {});
    assert.equal(asked.length, 1, 'one input request');
    assert.equal(asked[0].message, 'Who are you?');
    assert.match(JSON.stringify(result), /accept: Ada/);
  });
}

test('eras: in a 2026-07-28 session over Streamable HTTP, an x-mcp-header argument travels as its Mcp-Param header too', async () => {
  const sent = [];
  const fetchSpy = async (url, init) => {
    const body = init?.body == null ? '' : typeof init.body === 'string' ? init.body : Buffer.from(init.body).toString();
    if (body.includes('"tools/call"')) sent.push(new Headers(init.headers));
    return fetch(url, init);
  };
  const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: { url: http.python.url, fetch: fetchSpy, protocolVersion: '2026-07-28' } } });
  clients.push(c);
  const tools = await c.listTools();
  const routed = await tools.s_route.execute({ region: 'eu-west', query: 'tides' }, {});
  assert.match(JSON.stringify(routed), /eu-west: tides/);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].get('mcp-param-region'), 'eu-west');
  assert.equal(sent[0].get('mcp-method'), 'tools/call');
  assert.equal(sent[0].get('mcp-name'), 'route');
});

test('eras: a JSON Schema 2020-12 input schema ($defs, $ref, prefixItems) validates arguments before the call', async () => {
  const c = new MCPClient({ id: `eras-${nextId++}`, servers: { s: { command: python, args: [pyServer, 'stdio'] } } });
  clients.push(c);
  const definitions = await c.listToolDefinitions();
  const schema = definitions.s.book.inputSchema;
  assert.ok(schema.$defs?.Place && schema.$defs?.Trip, JSON.stringify(schema));
  const tools = await c.listTools();
  const trip = { start: { city: 'Oslo', country: 'NO' }, stops: [{ city: 'Bergen', country: 'NO' }], pair: ['seat', 12] };
  assert.match(JSON.stringify(await tools.s_book.execute({ trip }, {})), /Oslo via 1 stops, seat=12/);
  const refused = await tools.s_book.execute({ trip: { ...trip, start: { city: 'Oslo' } } }, {});
  assert.equal(refused.error, true, JSON.stringify(refused));
  assert.match(refused.message, /trip\.start.*country/);
});

let nextClient = 0;
const clientOfServers = (servers, extra) => client(servers, extra);
function client(servers, extra = {}) {
  const c = new MCPClient({ id: `eras-${process.pid}-c${nextClient++}`, servers, ...extra });
  clients.push(c);
  return c;
}

for (const [label, define] of [
  ['stdio', () => ({ command: python, args: [pyServer, 'stdio'] })],
  ['Streamable HTTP', () => ({ url: new URL(http.python.url) })],
  ['stdio, 2026-07-28', () => ({ command: python, args: [pyServer, 'stdio'], protocolVersion: '2026-07-28' })],
  ['Streamable HTTP, 2026-07-28', () => ({ url: new URL(http.python.url), protocolVersion: '2026-07-28' })],
]) {
  test(`eras: results keep the server's JSON key order over ${label}`, async () => {
    const c = client({ py: define() });
    const tools = await c.listTools();
    const result = await tools.py_weather.execute({ city: 'Oslo' }, {});
    const structured = result.structuredContent ?? result;
    assert.deepEqual(Object.keys(structured), ['temperature', 'conditions'], JSON.stringify(result));
  });
}

test('eras: a 2026-07-28 session opens subscriptions/listen only once a handler or a subscription needs it', async () => {
  const { methods, fetchSpy } = methodSpy();
  const c = client({ py: { url: new URL(http.python.url), protocolVersion: '2026-07-28', fetch: fetchSpy } });
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

test('eras: reconnectServer() of a 2026-07-28 session over Streamable HTTP sends nothing, keeps the era, and survives an outage', async () => {
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

test('eras: concurrent resource subscriptions in a 2026-07-28 session end on one stream asking for all of them', async () => {
  const bodies = [];
  const fetchSpy = async (url, init) => {
    const body = init?.body == null ? '' : typeof init.body === 'string' ? init.body : Buffer.from(init.body).toString();
    if (body.includes('"subscriptions/listen"')) bodies.push(JSON.parse(body));
    return fetch(url, init);
  };
  const c = client({ py: { url: new URL(http.python.url), protocolVersion: '2026-07-28', fetch: fetchSpy } });
  await c.listTools();
  await Promise.all([c.resources.subscribe('py', 'fixture://greeting'), c.resources.subscribe('py', 'fixture://other')]);
  const deadline = Date.now() + 10_000;
  while (bodies.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const last = bodies.at(-1);
  assert.ok(last, 'a subscriptions/listen was sent');
  assert.deepEqual(JSON.stringify(last.params).match(/fixture:\/\/\w+/g).sort(), ['fixture://greeting', 'fixture://other'], JSON.stringify(bodies));
});

// @mastra/mcp 2.0's MCPServer (fixtures/mastra2-server), one server named `s`.
const server2 = fixturePath('mastra2-server/server.mjs');
const TRANSPORTS = [
  ['stdio', (extra = {}) => ({ command: nodeBin, args: [server2, 'stdio'], ...extra })],
  ['Streamable HTTP', (extra = {}) => ({ url: http.mastra2.url, ...extra })],
];

for (const [label, define] of TRANSPORTS) {
  describe(`eras: @mastra/mcp 2.0's MCPServer (${label})`, () => {
    const client = (def, options = {}) => clientOfServers({ s: def }, options);
    test('the session is 2026-07-28', async () => {
      const c = client(define());
      await c.listTools();
      assert.deepEqual(c.getServerProtocolVersions(), { s: MCP_CLIENT_PROTOCOL_VERSION });
    });

    test('InternalMastraMCPClient: negotiatedProtocolVersion', async () => {
      const internal = new InternalMastraMCPClient({ name: 's', server: define() });
      try {
        assert.equal(internal.negotiatedProtocolVersion, undefined);
        await internal.connect();
        assert.equal(internal.negotiatedProtocolVersion, '2026-07-28');
      } finally {
        await internal.disconnect();
      }
    });
  });
}

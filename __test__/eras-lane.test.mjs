// The 2026-07-28 era (no handshake) on the fast stdio lane, and server logs in both eras.
// A server on the official Python SDK 2.x over stdio and Streamable HTTP: in 2026-07-28 it sends
// `notifications/message` for a request only when that request's `_meta` asks for a log level,
// so the user's `logger` sees server logs in that era only if every request carries one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient } from '../index.mjs';
import { waitFor, fixturePath } from './fixtures/helpers.mjs';
import { pythonWithMcp } from '../scripts/python-venv.mjs';
import { startPythonHttp } from './fixtures/python-http.mjs';

const pyServer = fixturePath('python/server.py');
let python;
let httpServer;
const clients = [];


before(async () => {
  python = pythonWithMcp();
  httpServer = await startPythonHttp(python, pyServer);
});
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await httpServer?.stop();
});

let nextId = 0;
function client(def) {
  const c = new MCPClient({ id: `eras-lane-${nextId++}`, servers: { s: def } });
  clients.push(c);
  return c;
}

const stdio = (extra = {}) => ({ command: python, args: [pyServer, 'stdio'], ...extra });
const http = (extra = {}) => ({ url: httpServer.url, ...extra });
/** The request id the `request_id` tool answered with (structured output `{ result }`). */
const idOf = (r) => r?.result ?? r?.content?.[0]?.text;
const serverLogs = (logs) => logs.filter((l) => l.message === '[s] [MCP SERVER LOG]');

for (const [label, define, era] of [
  ['stdio, 2026-07-28', () => stdio({ protocolVersion: '2026-07-28' }), '2026-07-28'],
  ['stdio, negotiated', () => stdio({ protocolVersion: 'auto' }), '2026-07-28'],
  ['stdio, handshake', () => stdio({ protocolVersion: '2025-11-25' }), '2025-11-25'],
  ['Streamable HTTP, 2026-07-28', () => http({ protocolVersion: '2026-07-28' }), '2026-07-28'],
  ['Streamable HTTP, handshake', () => http({ protocolVersion: '2025-11-25' }), '2025-11-25'],
]) {
  test(`eras: server logs of a tool call reach the server's logger (${label})`, async () => {
    const logs = [];
    const c = client({ ...define(), logger: (m) => logs.push(m) });
    const tools = await c.listTools();
    assert.ok(logs.some((l) => l.message.includes(`Connected (protocol ${era})`)), logs.map((l) => l.message).join(' | '));
    assert.match(JSON.stringify(await tools.s_chatter.execute({}, {})), /chattered/);
    // 2026-07-28: logs are asked for per request at `serverLogLevel`, by default 'info' (as in @mastra/mcp 2.0);
    // a handshake-era server sends every level.
    const expected = [
      ['debug', 'chatter', 'debug'],
      ['info', 'chatter', 'info'],
      ['warning', 'chatter', 'warning'],
      ['error', 'chatter', 'error'],
    ].slice(era === '2026-07-28' ? 1 : 0);
    await waitFor(() => serverLogs(logs).length >= expected.length, { timeoutMs: 10000, message: `${expected.length} server logs: ${JSON.stringify(serverLogs(logs))}` });
    const got = serverLogs(logs).map((l) => [l.level, l.details?.logger, l.details?.data?.said]);
    assert.deepEqual(got, expected);
    assert.equal(serverLogs(logs)[0].serverName, 's');
  });
}

for (const [label, define] of [
  ['stdio', () => stdio({ protocolVersion: '2026-07-28' })],
  ['Streamable HTTP', () => http({ protocolVersion: '2026-07-28' })],
]) {
  test(`eras: serverLogLevel sets the lowest level a 2026-07-28 server sends (${label})`, async () => {
    const logs = [];
    const c = client({ ...define(), serverLogLevel: 'warning', logger: (m) => logs.push(m) });
    const tools = await c.listTools();
    assert.match(JSON.stringify(await tools.s_chatter.execute({}, {})), /chattered/);
    await waitFor(() => serverLogs(logs).length >= 2, { timeoutMs: 10000, message: `two server logs: ${JSON.stringify(serverLogs(logs))}` });
    assert.deepEqual(
      serverLogs(logs).map((l) => l.level),
      ['warning', 'error'],
    );
  });
}

test('eras: an unknown serverLogLevel is a configuration error naming the server', async () => {
  const c = client(stdio({ serverLogLevel: 'loud' }));
  const { errors } = await c.listToolsWithErrors();
  assert.match(errors.s, /serverLogLevel/);
  assert.match(errors.s, /"s"/);
});

test('eras: a 2026-07-28 request asks for server logs only while enableServerLogs is on', async () => {
  const bodies = [];
  const spy = (into) => async (url, init) => {
    if (typeof init?.body === 'string') into.push(init.body);
    return fetch(url, init);
  };
  const on = client(http({ protocolVersion: '2026-07-28', fetch: spy(bodies) }));
  await (await on.listTools()).s_echo.execute({ message: 'x' }, {});
  const call = bodies.find((b) => b.includes('"tools/call"'));
  assert.ok(call, bodies.join('\n'));
  assert.equal(JSON.parse(call).params._meta['io.modelcontextprotocol/logLevel'], 'info', 'the default serverLogLevel, as in @mastra/mcp 2.0');

  const quiet = [];
  const logs = [];
  const off = client(http({ protocolVersion: '2026-07-28', fetch: spy(quiet), enableServerLogs: false, logger: (m) => logs.push(m) }));
  const tools = await off.listTools();
  await tools.s_echo.execute({ message: 'x' }, {});
  await tools.s_chatter.execute({}, {});
  const quietCall = quiet.find((b) => b.includes('"tools/call"'));
  assert.ok(quietCall, quiet.join('\n'));
  const meta = JSON.parse(quietCall).params._meta;
  assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
  assert.equal(meta['io.modelcontextprotocol/logLevel'], undefined);
  assert.deepEqual(serverLogs(logs), []);
});

for (const [label, define] of [
  ['2026-07-28', () => stdio({ protocolVersion: '2026-07-28' })],
  ['negotiated', () => stdio({ protocolVersion: 'auto' })],
  ['handshake', () => stdio({ protocolVersion: '2025-11-25' })],
]) {
  test(`eras: stdio tool calls take the lane (${label}): plain calls, progress`, async () => {
    const c = client(define());
    const progress = [];
    await c.progress.onUpdate('s', (p) => progress.push(p));
    const tools = await c.listTools();
    // The lane's request ids are "n<seq>"; rmcp's are numbers.
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(String(idOf(await tools.s_request_id.execute({}, {}))));
    for (const id of ids) assert.match(id, /^n\d+$/, `lane ids: ${ids.join(', ')}`);
    assert.equal(new Set(ids).size, 3);
    const [a, b] = await Promise.all([tools.s_add.execute({ a: 2, b: 3 }, {}), tools.s_echo.execute({ message: 'lane' }, {})]);
    assert.match(JSON.stringify(a), /\b5\b/);
    assert.match(JSON.stringify(b), /Echo: lane/);
    await tools.s_count.execute({ steps: 3 }, { runId: `run-${label}` });
    await waitFor(() => progress.filter((p) => p.progressToken === `run-${label}`).length >= 3, { timeoutMs: 10000, message: 'progress' });
    assert.deepEqual(
      progress.filter((p) => p.progressToken === `run-${label}`).map((p) => p.progress),
      [1, 2, 3],
    );
  });
}

test('eras: over the stdio lane in 2026-07-28, an input_required answer is followed up once, the retry on the lane', async () => {
  const c = client(stdio({ protocolVersion: '2026-07-28' }));
  const asked = [];
  await c.elicitation.onRequest('s', async (params) => {
    asked.push(params);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  const tools = await c.listTools();
  // The session is live, so the call is written on the lane.
  assert.match(String(idOf(await tools.s_request_id.execute({}, {}))), /^n\d+$/);
  const results = await Promise.all([
    tools.s_confirm.execute({ question: 'Who are you?' }, {}),
    tools.s_confirm.execute({ question: 'And you?' }, {}),
  ]);
  assert.deepEqual(asked.map((a) => a.message).sort(), ['And you?', 'Who are you?']);
  // The retry that carried the answer went out on the lane too.
  for (const r of results) assert.match(JSON.stringify(r), /accept: Ada \(request n\d+\)/);
  // Plain calls still take the lane afterwards.
  assert.match(String(idOf(await tools.s_request_id.execute({}, {}))), /^n\d+$/);
});

test('eras: aborting a lane call while its input request is answered ends the call', async () => {
  const c = client(stdio({ protocolVersion: '2026-07-28' }));
  let askedResolve;
  const asked = new Promise((resolve) => (askedResolve = resolve));
  await c.elicitation.onRequest('s', () => {
    askedResolve();
    return new Promise(() => {}); // never answers: only the abort ends the call
  });
  const tools = await c.listTools();
  const controller = new AbortController();
  const call = tools.s_confirm.execute({ question: 'Who?' }, { abortSignal: controller.signal });
  await asked;
  controller.abort('user stopped it');
  await assert.rejects(call, /user stopped it|abort/i);
  // The session stays usable.
  assert.match(JSON.stringify(await tools.s_echo.execute({ message: 'after' }, {})), /Echo: after/);
});

// Idle sessions: a Streamable HTTP session whose server has no stream to give (GET answers 405)
// parks after a quiet second — its rmcp machinery ends, the session stays the server's — and the
// next request resumes it. What a user can see: the server gets the same session id and nothing
// but the user's own requests (no new `initialize`, no DELETE until `disconnect()`), calls work as
// before, alone or many at once, across an expiry, and a session with a stream never parks.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MCPClient, InternalMastraMCPClient } from '../index.mjs';
import { startHttpFixture } from './fixtures/http-server.mjs';
import { startPythonHttp } from './fixtures/python-http.mjs';
import { fixturePath } from './fixtures/helpers.mjs';
import { realServers } from '../scripts/real-servers.mjs';

const fixtures = [];
after(() => Promise.all(fixtures.map((f) => f.close())));
async function fixture(options) {
  const f = await startHttpFixture(options);
  fixtures.push(f);
  return f;
}

let nextId = 0;
function client(f, extra = {}) {
  const logs = [];
  const c = new MCPClient({
    id: `idle-${nextId++}`,
    servers: { s: { url: new URL(f.mcpUrl ?? f.url), logger: (m) => logs.push(m), ...extra } },
  });
  return { c, logs };
}

const parkedLogs = (logs) => logs.filter((l) => /parked until the next request/.test(l.message));
const resumedLogs = (logs) => logs.filter((l) => /Parked session resumed/.test(l.message));

/** Waits (bounded) until the client says its session parked `n` times. */
async function parked(logs, n = 1, bound = 8000) {
  const until = Date.now() + bound;
  while (parkedLogs(logs).length < n) {
    if (Date.now() > until) assert.fail(`the session did not park (${n}) within ${bound} ms: ${logs.map((l) => l.message).join(" | ")}`);
    await sleep(50);
  }
}

/** The JSON-RPC methods of the POSTs the server received from index `from` on, with their session ids. */
function postsSince(f, from) {
  return f.requests
    .slice(from)
    .filter((r) => r.method === 'POST')
    .map((r) => ({ rpc: JSON.parse(r.body).method, session: r.headers['mcp-session-id'] }));
}

test('an idle session parks and resumes: same session, only the user\'s requests reach the server, DELETE at disconnect', async () => {
  const f = await fixture({ getStream: false });
  const { c, logs } = client(f);
  const tools = await c.listTools();
  assert.equal((await tools.s_count.execute({}, {})).content[0].text, '1');
  const session = c.sessionIds.s;
  assert.ok(session, 'a session id');
  await parked(logs);
  assert.equal(c.sessionIds.s, session, 'a parked session is still the session');
  assert.deepEqual(f.state.deletedSessions, [], 'parking does not end the session on the server');

  const from = f.requests.length;
  assert.equal((await tools.s_count.execute({}, {})).content[0].text, '2');
  assert.equal(resumedLogs(logs).length, 1);
  assert.deepEqual(postsSince(f, from), [{ rpc: 'tools/call', session }], 'resumed without a request of its own');
  assert.equal(c.sessionIds.s, session);

  // Parked again, then disconnected: the session ends on the server, once.
  await parked(logs, 2);
  await c.disconnect();
  assert.deepEqual(f.state.deletedSessions, [session]);
  assert.equal(f.state.executions, 2, 'each call ran once');
});

test('many calls at once on a parked session resume it once and each runs once', async () => {
  const f = await fixture({ getStream: false });
  const { c, logs } = client(f);
  const tools = await c.listTools();
  await tools.s_echo.execute({ message: 'first' }, {});
  const session = c.sessionIds.s;
  await parked(logs);
  const from = f.requests.length;
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => tools.s_echo.execute({ message: `m${i}` }, {})));
  assert.deepEqual(answers.map((a) => a.content[0].text), Array.from({ length: 8 }, (_, i) => `Echo: m${i}`));
  assert.equal(resumedLogs(logs).length, 1, 'one resume for all of them');
  const posts = postsSince(f, from);
  assert.equal(posts.length, 8);
  assert.ok(posts.every((p) => p.rpc === 'tools/call' && p.session === session), JSON.stringify(posts));
  // Resources and prompts resume it as well.
  await parked(logs, 2);
  assert.equal((await c.resources.read('s', 'fixture://http/1')).contents[0].text, 'http resource 1 content');
  await c.disconnect();
});

test('a session that expired while parked is opened again, and the call runs once', async () => {
  const f = await fixture({ getStream: false });
  const { c, logs } = client(f);
  const tools = await c.listTools();
  await tools.s_count.execute({}, {});
  const first = c.sessionIds.s;
  await parked(logs);
  f.expireSessions();
  const from = f.requests.length;
  assert.equal((await tools.s_count.execute({}, {})).content[0].text, '2', 'ran once, on a new session');
  const rpcs = postsSince(f, from).map((p) => p.rpc);
  assert.deepEqual(rpcs.filter((m) => m === 'tools/call').length, 2, `the call was refused (404) and sent again: ${rpcs}`);
  assert.ok(rpcs.includes('initialize'), 'a new session was opened');
  assert.notEqual(c.sessionIds.s, first);
  assert.equal(f.state.executions, 2);
  await c.disconnect();
});

test('a call in flight keeps the session live; a server with a stream keeps its session live', async () => {
  const noStream = await fixture({ getStream: false });
  const busy = client(noStream);
  const tools = await busy.c.listTools();
  assert.equal((await tools.s_slow.execute({ ms: 2500 }, {})).content[0].text, 'slept');
  assert.equal(parkedLogs(busy.logs).length, 0, 'not parked while a call ran');
  await busy.c.disconnect();

  const withStream = await fixture();
  const { c, logs } = client(withStream);
  await c.listTools();
  await sleep(2500);
  assert.equal(parkedLogs(logs).length, 0, 'a session with a stream never parks');
  assert.equal(withStream.state.openGetStreams, 1, 'its GET stream is open');
  await c.disconnect();
});

test('reconnectServer ends a parked session on the server and opens a new one', async () => {
  const f = await fixture({ getStream: false });
  const { c, logs } = client(f);
  const tools = await c.listTools();
  await tools.s_echo.execute({ message: 'x' }, {});
  const session = c.sessionIds.s;
  await parked(logs);
  await c.reconnectServer('s');
  assert.deepEqual(f.state.deletedSessions, [session], 'the parked session ended on the server');
  assert.notEqual(c.sessionIds.s, session, 'a new session');
  assert.equal((await tools.s_echo.execute({ message: 'y' }, {})).content[0].text, 'Echo: y');
  await c.disconnect();
});

test("a real Python SDK server's stateless session (no id, no stream) parks and resumes", async () => {
  const python = await startPythonHttp(realServers().python1, fixturePath('python/v1_server.py'), { env: { STATELESS: '1' } });
  try {
    const { c, logs } = client(python);
    const tools = await c.listTools();
    assert.equal((await tools.s_echo.execute({ message: 'a' }, {})).result, 'Echo: a');
    await parked(logs);
    const answers = await Promise.all(['b', 'c'].map((m) => tools.s_echo.execute({ message: m }, {})));
    assert.deepEqual(answers.map((a) => a.result), ['Echo: b', 'Echo: c']);
    assert.equal(resumedLogs(logs).length, 1);
    await c.disconnect();
  } finally {
    await python.stop();
  }
});

test('a roots change on a parked session reaches the server in that session', async () => {
  const f = await fixture({ getStream: false });
  const logs = [];
  const c = new InternalMastraMCPClient({ name: 's', server: { url: new URL(f.mcpUrl), logger: (m) => logs.push(m) } });
  try {
    await c.connect();
    await c.tools();
    const session = f.requests.find((r) => r.headers['mcp-session-id'])?.headers['mcp-session-id'];
    assert.ok(session);
    await parked(logs);
    const from = f.requests.length;
    await c.setRoots([{ uri: 'file:///tmp/project', name: 'project' }]);
    assert.deepEqual(postsSince(f, from), [{ rpc: 'notifications/roots/list_changed', session }], 'resumed for it, nothing else sent');
  } finally {
    await c.disconnect();
  }
});

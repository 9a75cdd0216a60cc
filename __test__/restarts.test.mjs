// A server restart costs no call that never reached it (SPEC 14.5): an HTTP server stopped and
// started again on its port while calls wait, a stdio server killed under load, a stdio server
// that keeps crashing. Each server keeps a ledger of the calls it ran: none runs twice.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent as UndiciAgent } from 'undici';
import { MCPClient } from '../index.mjs';
import { neverConnected } from '../lib/fetch-bridge.cjs';
import { startPerUserServer } from './fixtures/per-user-server.mjs';
import { startSseLedgerServer } from './fixtures/sse-ledger-server.mjs';
import { fixturePath, nodeBin, startEverythingHttp, tmpFile, waitFor, methodSpy } from './fixtures/helpers.mjs';
import { startPythonHttp } from './fixtures/python-http.mjs';
import { pythonWithMcp } from '../scripts/python-venv.mjs';

const cleanup = [];

/**
 * A call to a server that stays unreachable past its timeout fails saying it was never sent. That it fails
 * rather than hangs is bounded by the test's own timeout; how close to the call's timeout is the benchmark's.
 */
async function rejectsNotSent(echo) {
  await assert.rejects(echo.execute({ message: 'lost' }), (e) => {
    assert.match(e.message, /not sent: the server was unreachable for \d+ ms/);
    assert.match(e.message, /server s/);
    return true;
  });
}
after(async () => {
  for (const f of cleanup.reverse()) await f();
});

// No keep-alive: a call made the instant a server stops could otherwise go out on a pooled
// connection the server has just closed, which the client cannot tell from a call that reached
// it ("may have run", never sent again). These tests are about calls for which no connection
// could be opened; every call here opens its own.
const noKeepAlive = { connection: 'close' };
const token = { Authorization: 'Bearer restart-token', ...noKeepAlive };

// The same in the 2026-07-28 era: no session to lose, every request stateless. Pinned on the
// official Python SDK's server (2.3, dual-era); learned ('auto') on a 2026-07-28-only server.
const eraServers = {
  'the Python SDK (pinned 2026-07-28)': {
    start: async (ledger, port) => {
      const s = await startPythonHttp(pythonWithMcp(), fixturePath('python/server.py'), { port, env: { MCP_FIXTURE_LEDGER: ledger } });
      return { ...s, text: (m) => `Echo: ${m}`, definition: { protocolVersion: '2026-07-28', requestInit: { headers: noKeepAlive } } };
    },
  },
  'a 2026-07-28-only server (learned)': {
    start: async (ledger, port) => {
      const s = await startPerUserServer({ modern: 'only', port, ledger });
      return { ...s, port: Number(new URL(s.url).port), text: (m) => `restart:${m}`, definition: { requestInit: { headers: token } } };
    },
  },
};
/** What a tool call said: its text, or a structured `result` (the Python SDK's string results). */
const said = (r) => r?.content?.[0]?.text ?? r?.result ?? JSON.stringify(r);
for (const [label, { start }] of Object.entries(eraServers)) {
  test(`2026-07-28, ${label}: calls waiting while the server restarts on its port are sent once it is back, and run once`, async () => {
    const ledger = tmpFile('ledger');
    writeFileSync(ledger, '');
    let server = await start(ledger);
    cleanup.push(() => server.stop());
    const timeout = 20000;
    const c = new MCPClient({ id: `restart-2026-${label}`, servers: { s: { url: new URL(server.url), timeout, ...server.definition } } });
    cleanup.push(() => c.disconnect());
    const echo = (await c.listToolsets()).s.echo;
    assert.equal(said(await echo.execute({ message: 'before' })), server.text('before'));
    assert.deepEqual(c.getServerProtocolVersions(), { s: '2026-07-28' }, 'the session is in the 2026-07-28 era');
    const { port, text } = server;
    await server.stop();
    const calls = Promise.allSettled(Array.from({ length: 6 }, (_, i) => echo.execute({ message: `during${i}` })));
    // The server stays down a while (an outage, not a synchronisation: nothing can answer meanwhile).
    await new Promise((r) => setTimeout(r, 600));
    server = await start(ledger, port);
    const settled = await calls;
    assert.deepEqual(settled.filter((s) => s.status === 'rejected').map((s) => s.reason?.message), [], 'every waiting call succeeded');
    assert.deepEqual(settled.map((s) => said(s.value)).sort(), Array.from({ length: 6 }, (_, i) => text(`during${i}`)));
    const ran = ledgerLines(ledger);
    assert.deepEqual(ran.filter((l) => l.startsWith('during')).sort(), Array.from({ length: 6 }, (_, i) => `during${i}`), `each ran once: ${ran.join(', ')}`);
    assert.deepEqual(c.getServerProtocolVersions(), { s: '2026-07-28' }, 'still in the 2026-07-28 era');
  });
}

test('a fetch failure counts as never sent only when its cause says no connection was opened', () => {
  const failed = (cause) => Object.assign(new TypeError('fetch failed'), { cause });
  const code = (c) => Object.assign(new Error(c), { code: c });
  assert.equal(neverConnected(failed(code('ECONNREFUSED'))), 'ECONNREFUSED');
  assert.equal(neverConnected(failed(code('ENOTFOUND'))), 'ENOTFOUND');
  assert.equal(neverConnected(failed(new AggregateError([code('ECONNREFUSED'), code('EHOSTUNREACH')]))), 'ECONNREFUSED');
  assert.equal(neverConnected(failed(new AggregateError([code('ECONNREFUSED'), code('ECONNRESET')]))), undefined, 'one attempt may have connected');
  assert.equal(neverConnected(failed(code('ECONNRESET'))), undefined, 'a reset connection may have carried the request');
  assert.equal(neverConnected(failed(code('UND_ERR_SOCKET'))), undefined);
  assert.equal(neverConnected(new Error('fetch boom')), undefined);
});

// Over every way the bytes go: the built-in client, a user's `fetch` (whose failures say, in
// `err.cause`, whether a connection was opened), `requestInit.dispatcher` (an undici Agent, which
// goes through `fetch` too). 16 calls in flight when the server stops: 8 had reached it (its ledger
// shows them) and die with their connections: they may have run, so they fail and are never sent
// again; 8 more are made while it is down: their connections are refused, so they wait, are sent once
// it is back on its port, and run once.
const carriers = {
  'built-in HTTP': () => ({ requestInit: { headers: token } }),
  'a user fetch': (counted) => ({ fetch: (url, init) => (counted.n++, fetch(url, init)), requestInit: { headers: token } }),
  'requestInit.dispatcher': () => ({ requestInit: { headers: token, dispatcher: new UndiciAgent() } }),
};
for (const [carrier, definition] of Object.entries(carriers)) {
  test(`${carrier}: a server restarted under 16 calls in flight runs none twice and loses none that never reached it`, { timeout: 60_000 }, async () => {
    const ledger = tmpFile('ledger');
    writeFileSync(ledger, '');
    let server = await startPerUserServer({ ledger });
    cleanup.push(() => server.stop());
    const port = Number(new URL(server.url).port);
    const counted = { n: 0 };
    const c = new MCPClient({ id: `restart-16-${carrier}`, servers: { s: { url: new URL(server.url), timeout: 15_000, ...definition(counted) } } });
    cleanup.push(() => c.disconnect());
    const echo = (await c.listToolsets()).s.echo;
    assert.equal((await echo.execute({ message: 'before' })).content[0].text, 'restart:before');
    const outcome = (p) => p.then((r) => ({ ok: r.content[0].text }), (e) => ({ failed: e.message }));
    const reached = Array.from({ length: 8 }, (_, i) => outcome(echo.execute({ message: `slow:reached${i}` })));
    await waitFor(() => ledgerLines(ledger).filter((l) => l.startsWith('slow:')).length === 8, { timeoutMs: 10_000, message: 'the first 8 calls reached the server' });
    await server.stop();
    const unsent = Array.from({ length: 8 }, (_, i) => outcome(echo.execute({ message: `unsent${i}` })));
    // The server stays down a while (an outage, not a synchronisation: nothing can answer meanwhile).
    await new Promise((r) => setTimeout(r, 600));
    server = await startPerUserServer({ port, ledger });
    for (const [i, o] of (await Promise.all(reached)).entries()) {
      assert.match(o.failed ?? `succeeded: ${o.ok}`, /may have run/, `call ${i}, in flight at the server when it stopped`);
    }
    assert.deepEqual((await Promise.all(unsent)).map((o) => o.ok ?? o.failed), Array.from({ length: 8 }, (_, i) => `restart:unsent${i}`), 'every call that never reached it ran after the restart');
    const ran = ledgerLines(ledger);
    assert.equal(new Set(ran).size, ran.length, `none ran twice: ${ran.join(', ')}`);
    assert.deepEqual(server.state.calls.length, 8, 'the restarted server ran the 8 waiting calls, and none of those that had reached the first');
    if (carrier === 'a user fetch') assert.ok(counted.n > 0, 'through the user fetch');
  });
}

test('a call that outlives its timeout while the server is down fails saying it was never sent', { timeout: 60_000 }, async () => {
  const server = await startPerUserServer();
  const timeout = 1200;
  const c = new MCPClient({ id: 'restart-gone', servers: { s: { url: new URL(server.url), timeout, requestInit: { headers: token } } } });
  cleanup.push(() => c.disconnect());
  const echo = (await c.listToolsets()).s.echo;
  await server.stop();
  await rejectsNotSent(echo);
});

test('SSE: calls whose POST is refused before the client sees its stream end wait, and run once on a new session', { timeout: 60_000 }, async () => {
  const server = await startSseLedgerServer();
  cleanup.push(() => server.stop());
  const logged = [];
  const c = new MCPClient({ id: 'restart-sse-refused', servers: { s: { url: new URL(server.url), timeout: 8000, log: (m) => logged.push(JSON.stringify(m)) } } });
  cleanup.push(() => c.disconnect());
  const echo = (await c.listToolsets()).s.echo;
  assert.equal((await echo.execute({ message: 'before' })).content[0].text, 'echo:before');
  // The server stops accepting connections; its event stream stays open, so the session looks alive.
  await server.stopAccepting();
  const calls = Array.from({ length: 4 }, (_, i) => echo.execute({ message: `during${i}` }).then((r) => r.content[0].text, (e) => `failed: ${e.message}`));
  // Their POSTs are refused: never sent. The first to find the server gone says so (a diagnostic) and
  // gives up the session; the calls wait for the server.
  await waitFor(() => logged.some((m) => m.includes('was not sent')), { message: 'a call found the server gone' });
  await server.listenAgain();
  assert.deepEqual((await Promise.all(calls)).sort(), ['echo:during0', 'echo:during1', 'echo:during2', 'echo:during3']);
  assert.deepEqual(server.state.calls.filter((m) => m.startsWith('during')).sort(), ['during0', 'during1', 'during2', 'during3'], 'each ran once');
  assert.equal(server.state.sessions, 2, 'one new session for every waiting call');
});

test('SSE: calls a restarted server answers 404 (it does not know the session) before the client saw its stream end run once on a new session', async () => {
  const server = await startSseLedgerServer();
  cleanup.push(() => server.stop());
  const c = new MCPClient({ id: 'restart-sse-404', servers: { s: { url: new URL(server.url), timeout: 8000 } } });
  cleanup.push(() => c.disconnect());
  const echo = (await c.listToolsets()).s.echo;
  assert.equal((await echo.execute({ message: 'before' })).content[0].text, 'echo:before');
  server.forgetSessions();
  const results = await Promise.all(Array.from({ length: 4 }, (_, i) => echo.execute({ message: `again${i}` }).then((r) => r.content[0].text, (e) => `failed: ${e.message}`)));
  assert.deepEqual(results.sort(), ['echo:again0', 'echo:again1', 'echo:again2', 'echo:again3']);
  assert.deepEqual(server.state.calls.filter((m) => m.startsWith('again')).sort(), ['again0', 'again1', 'again2', 'again3'], 'each ran once');
  assert.equal(server.state.sessions, 2, 'one new session for every refused call');
});

test('SSE: a call that outlives its timeout while the server is down fails saying it was never sent', async () => {
  const server = await startSseLedgerServer();
  cleanup.push(() => server.stop());
  const timeout = 1200;
  const c = new MCPClient({ id: 'restart-sse-gone', servers: { s: { url: new URL(server.url), timeout } } });
  cleanup.push(() => c.disconnect());
  const echo = (await c.listToolsets()).s.echo;
  await server.stopAccepting();
  await rejectsNotSent(echo);
  assert.deepEqual(server.state.calls, [], 'nothing ran');
});

/** A stdio server whose `work` tool writes its call to a ledger, then takes `ms` to answer; `crash` exits at once. */
function ledgerServer(ledger) {
  const script = `
const fs = require('fs');
fs.appendFileSync(${JSON.stringify(ledger)}, 'start ' + process.pid + '\\n');
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'ledger', version: '1' } } });
  if (m.method === 'tools/list') return send({ jsonrpc: '2.0', id: m.id, result: { tools: [
    { name: 'work', inputSchema: { type: 'object', properties: { n: { type: 'string' }, ms: { type: 'number' } } } },
    { name: 'crash', inputSchema: { type: 'object' } } ] } });
  if (m.params?.name === 'crash') { process.stderr.write('fatal: crash requested\\n'); setTimeout(() => process.exit(7), 20); return; }
  if (m.method === 'tools/call') {
    fs.appendFileSync(${JSON.stringify(ledger)}, 'call ' + m.params.arguments.n + '\\n');
    setTimeout(() => send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'done ' + m.params.arguments.n }] } }), m.params.arguments.ms ?? 0);
    return;
  }
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
});`;
  return { command: nodeBin, args: ['-e', script], stderr: 'pipe', timeout: 5000 };
}

const ledgerLines = (ledger) => readFileSync(ledger, 'utf8').trim().split('\n');

test('a stdio server killed under load: calls in flight may have run, later calls get one restart, none runs twice', async () => {
  const ledger = tmpFile('ledger');
  writeFileSync(ledger, '');
  const c = new MCPClient({ id: 'restart-stdio', servers: { s: ledgerServer(ledger) } });
  cleanup.push(() => c.disconnect());
  const tools = await c.listTools();
  const inFlight = Array.from({ length: 3 }, (_, i) => tools.s_work.execute({ n: `slow${i}`, ms: 5000 }).then(() => 'ok', (e) => e.message));
  await waitFor(() => ledgerLines(ledger).filter((l) => l.startsWith('call')).length === 3, { message: 'the calls reached the server' });
  const pid = Number(ledgerLines(ledger)[0].split(' ')[1]);
  process.kill(pid, 'SIGKILL');
  for (const outcome of await Promise.all(inFlight)) {
    assert.match(outcome, /may have run/);
    assert.match(outcome, /it was killed by signal 9 \(SIGKILL\)/, 'how the server ended');
  }
  const later = await Promise.all(Array.from({ length: 4 }, (_, i) => tools.s_work.execute({ n: `later${i}` })));
  assert.deepEqual(later.map((r) => r.content[0].text).sort(), ['done later0', 'done later1', 'done later2', 'done later3']);
  const lines = ledgerLines(ledger);
  assert.equal(lines.filter((l) => l.startsWith('start')).length, 2, 'one restart served every later call');
  const calls = lines.filter((l) => l.startsWith('call'));
  assert.equal(new Set(calls).size, calls.length, `no call ran twice: ${calls.join(', ')}`);
});

test('reconnectServer under a stdio call in flight: the call fails saying it may have run, and is never sent again', async () => {
  const ledger = tmpFile('ledger');
  writeFileSync(ledger, '');
  const c = new MCPClient({ id: 'reconnect-inflight', servers: { s: ledgerServer(ledger) } });
  cleanup.push(() => c.disconnect());
  const tools = await c.listTools();
  const inFlight = tools.s_work.execute({ n: 'slow', ms: 5000 }).then(() => 'ok', (e) => e.message);
  await waitFor(() => ledgerLines(ledger).includes('call slow'), { message: 'the call reached the server' });
  await c.reconnectServer('s');
  assert.match(await inFlight, /^Connection to MCP server s closed \(tools\/call\): .*may have run/);
  assert.equal((await tools.s_work.execute({ n: 'after' })).content[0].text, 'done after');
  const lines = ledgerLines(ledger);
  assert.deepEqual(lines.filter((l) => l.startsWith('call')), ['call slow', 'call after'], 'the call in flight ran once, on the old server');
  assert.equal(lines.filter((l) => l.startsWith('start')).length, 2);
});

test('a stdio server that keeps crashing is not started again forever; the error names it and its last words', async () => {
  const ledger = tmpFile('ledger');
  writeFileSync(ledger, '');
  const c = new MCPClient({ id: 'restart-loop', servers: { s: ledgerServer(ledger) } });
  cleanup.push(() => c.disconnect());
  const tools = await c.listTools();
  const errors = [];
  for (let i = 0; i < 9; i++) errors.push(await tools.s_crash.execute({}).then(() => 'ok', (e) => e.message));
  const starts = ledgerLines(ledger).filter((l) => l.startsWith('start')).length;
  assert.ok(starts <= 7, `restarts are bounded (${starts} starts for 9 crashing calls)`);
  const last = errors.at(-1);
  assert.match(last, /MCP server s keeps exiting \(5 times within 60 s\): not started again/);
  assert.match(last, /fatal: crash requested/, 'its last stderr lines');
  assert.match(last, /it exited with code 7/, 'its exit code');
  // An explicit reconnect starts it again.
  await c.reconnectServer('s');
  assert.equal((await tools.s_work.execute({ n: 'after-reconnect' })).content[0].text, 'done after-reconnect');
  appendFileSync(ledger, '');
});

// Every request kind rides through a restart, over Streamable HTTP and the legacy SSE transport.
// Over SSE the server's death ends the event stream, and calls made just before the client sees it
// end are either dropped unsent by rmcp's loop or have their POST refused: both were never sent.
// The calls are settled, never left rejected while the server restarts (an early rejection once
// ended the test while its body went on to start a server nobody stopped, and the run hung).
for (const mode of ['streamableHttp', 'sse']) {
  test(`${mode}: lists, resource reads and prompts wait for a restarted server and are sent once it is back`, async () => {
    let ev = await startEverythingHttp(mode);
    cleanup.push(() => ev.stop());
    const c = new MCPClient({ id: `restart-kinds-${mode}`, servers: { ev: { url: new URL(ev.url), timeout: 15000, requestInit: { headers: noKeepAlive } } } });
    cleanup.push(() => c.disconnect());
    const listed = (await c.resources.list()).ev;
    const resource = listed.find((r) => r.mimeType === 'text/plain') ?? listed[0];
    const prompt = (await c.prompts.list()).ev.find((p) => !p.arguments?.some((arg) => arg.required));
    assert.ok(resource && prompt, 'the server has a text resource and a prompt without required arguments');
    const port = ev.port;
    await ev.stop();
    const waiting = Promise.allSettled([
      c.listTools(),
      c.resources.list(),
      c.resources.read('ev', resource.uri),
      c.prompts.get({ serverName: 'ev', name: prompt.name }),
    ]);
    // The server stays down a while (an outage, not a synchronisation: nothing can answer meanwhile).
    await new Promise((r) => setTimeout(r, 600));
    ev = await startEverythingHttp(mode, { port });
    const settled = await waiting;
    assert.deepEqual(settled.filter((s) => s.status === 'rejected').map((s) => s.reason?.message), [], 'every waiting call succeeded');
    const [tools, resources, read, got] = settled.map((s) => s.value);
    assert.ok(Object.keys(tools).some((name) => name.startsWith('ev_')), 'tools listed from the restarted server');
    assert.ok(resources.ev.some((r) => r.uri === resource.uri), 'resources listed from the restarted server');
    assert.equal(read.contents[0].uri, resource.uri);
    assert.ok(got.messages.length > 0, 'the prompt came back');
  });
}

let nextId = 0;
function client(servers) {
  const c = new MCPClient({ id: `restarts-${process.pid}-${nextId++}`, servers });
  cleanup.push(() => c.disconnect().catch(() => {}));
  return c;
}

test('a Streamable HTTP server restarted under a live session: the next call initializes again and succeeds, run once', async () => {
  const first = await startEverythingHttp('streamableHttp');
  let current = first;
  cleanup.push(() => current.stop());
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

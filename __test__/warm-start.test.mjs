// Warm starts (issue 38): with an MCP store on the client, what a process learned about a
// handshake-era Streamable HTTP server — its session (id, `initialize` answer, refused GET
// stream) and, while `toolsCacheTtlMs` allows, its tool catalog — is kept in the store per
// scope and per credentials, and a fresh process (a serverless invocation) starts from it.
// Each invocation is a real child process against a real loopback server that counts requests.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWarmServer } from './fixtures/warm-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const worker = path.join(here, 'fixtures', 'warm-worker.mjs');
const dir = mkdtempSync(path.join(tmpdir(), 'warm-start-'));
const servers = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

let stores = 0;
const newStore = () => `file:${path.join(dir, `store-${stores++}.db`)}`;

async function server(options) {
  const s = await startWarmServer(options);
  servers.push(s);
  return s;
}

/** One invocation: a fresh Node process (bounded at 30 s). */
function invoke(cfg) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [worker, JSON.stringify({ secret: 'warm-secret', token: 'alice-token', ...cfg })], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`worker failed: ${err.message}\n${stderr}`));
      const line = stdout.trim().split('\n').pop();
      const out = JSON.parse(line);
      if (out.error) return reject(new Error(`worker error: ${out.error}\n${stderr}`));
      resolve(out);
    });
  });
}

test('a fresh process resumes the kept session: its call is the only request the server receives, and disconnect() leaves the session', async () => {
  const s = await server();
  const storeUrl = newStore();
  const first = await invoke({ storeUrl, serverUrl: s.url, message: 'one' });
  assert.equal(first.text, '1.0.0:alice:one');
  assert.deepEqual(s.posts(), ['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
  assert.equal(s.state.requests.filter((r) => r.method === 'DELETE').length, 0, 'the session stays the server\'s');
  const mark = s.state.requests.length;
  const second = await invoke({ storeUrl, serverUrl: s.url, message: 'two', list: true });
  assert.equal(second.text, '1.0.0:alice:two');
  assert.equal(second.session, first.session, 'the same session');
  assert.deepEqual(s.posts(mark), ['tools/list', 'tools/call'], 'no handshake');
  assert.ok(s.state.requests.slice(mark).every((r) => r.session === first.session));
  assert.equal(s.state.sessions.size, 1);
});

test('with toolsCacheTtlMs, listTools() of a fresh process sends nothing: the first call is its one round trip', async () => {
  const s = await server();
  const storeUrl = newStore();
  await invoke({ storeUrl, serverUrl: s.url, ttlMs: 60_000 });
  const mark = s.state.requests.length;
  const out = await invoke({ storeUrl, serverUrl: s.url, ttlMs: 60_000, message: 'fast' });
  assert.deepEqual(out.listed, ['s_echo']);
  assert.equal(out.text, '1.0.0:alice:fast');
  assert.deepEqual(s.posts(mark), ['tools/call'], 'one request from process start to the first tool result');
});

test('a catalog whose TTL ran out is listed again', async () => {
  const s = await server();
  const storeUrl = newStore();
  await invoke({ storeUrl, serverUrl: s.url, ttlMs: 1 });
  s.setTools(['echo', 'added']);
  const mark = s.state.requests.length;
  const out = await invoke({ storeUrl, serverUrl: s.url, ttlMs: 1 });
  assert.deepEqual(out.listed, ['s_added', 's_echo']);
  assert.deepEqual(s.posts(mark), ['tools/list', 'tools/call']);
});

test('a list_changed heard by one process drops the kept catalog for all', async () => {
  const s = await server({ getStream: true });
  const storeUrl = newStore();
  const ttlMs = 600_000;
  // The listening process: lists (and keeps the catalog), then waits for the announcement.
  const listening = invoke({ storeUrl, serverUrl: s.url, ttlMs, wait: true });
  const until = Date.now() + 15_000;
  while (!s.state.requests.some((r) => r.method === 'GET' && r.session) || !s.state.calls.length) {
    if (Date.now() > until) assert.fail('the listening process did not open its stream');
    await new Promise((r) => setTimeout(r, 20));
  }
  s.setTools(['echo', 'renamed']);
  assert.equal((await listening).changed, true);
  const mark = s.state.requests.length;
  const out = await invoke({ storeUrl, serverUrl: s.url, ttlMs });
  assert.deepEqual(out.listed, ['s_echo', 's_renamed'], 'the new catalog');
  assert.ok(s.posts(mark).includes('tools/list'));
});

test('a kept session the server expired is opened again once, and the call runs once', async () => {
  const s = await server();
  const storeUrl = newStore();
  const first = await invoke({ storeUrl, serverUrl: s.url });
  s.expireSessions();
  const mark = s.state.requests.length;
  const out = await invoke({ storeUrl, serverUrl: s.url, list: false, message: 'once' });
  assert.equal(out.text, '1.0.0:alice:once');
  assert.notEqual(out.session, first.session);
  assert.equal(s.state.calls.filter((c) => c.message === 'once').length, 1, 'the call ran once');
  assert.equal(s.posts(mark).filter((m) => m === 'initialize').length, 1, 'one new session');
  // The new session is the kept one now.
  const mark2 = s.state.requests.length;
  const again = await invoke({ storeUrl, serverUrl: s.url, list: false });
  assert.equal(again.session, out.session);
  assert.deepEqual(s.posts(mark2), ['tools/call']);
});

test('two scopes, and two bearer tokens, never share a session', async () => {
  const s = await server();
  const storeUrl = newStore();
  const a = await invoke({ storeUrl, serverUrl: s.url, scope: 'tenant-a' });
  const b = await invoke({ storeUrl, serverUrl: s.url, scope: 'tenant-b' });
  assert.notEqual(a.session, b.session);
  const a2 = await invoke({ storeUrl, serverUrl: s.url, scope: 'tenant-a' });
  assert.equal(a2.session, a.session);
  const bob = await invoke({ storeUrl, serverUrl: s.url, scope: 'tenant-a', token: 'bob-token' });
  assert.notEqual(bob.session, a.session);
  assert.equal(bob.text, '1.0.0:bob:hi');
  assert.equal(s.state.mismatches, 0, 'no request rode another user\'s session');
});

test('a server replaced at the same URL (new serverInfo) starts clean', async () => {
  const s = await server();
  const storeUrl = newStore();
  await invoke({ storeUrl, serverUrl: s.url, ttlMs: 600_000 });
  const { port } = s;
  await s.stop();
  servers.splice(servers.indexOf(s), 1);
  const replaced = await server({ port, serverVersion: '2.0.0' });
  replaced.setTools(['echo', 'only_in_v2']);
  // The first process finds out by the 404 of the kept session: its call runs once on the new server.
  const out = await invoke({ storeUrl, serverUrl: replaced.url, ttlMs: 600_000, list: false, message: 'x' });
  assert.equal(out.text, '2.0.0:alice:x');
  assert.equal(replaced.state.calls.length, 1);
  // What was kept of the old server is gone: the next process lists the new catalog.
  const mark = replaced.state.requests.length;
  const next = await invoke({ storeUrl, serverUrl: replaced.url, ttlMs: 600_000 });
  assert.deepEqual(next.listed, ['s_echo', 's_only_in_v2']);
  assert.deepEqual(replaced.posts(mark), ['tools/list', 'tools/call'], 'the new session resumed, the catalog read again');
});

test('a 2026-07-28 server whose hints allow reuse: a fresh process sends only its call', async () => {
  const s = await server({ modern: true, discoverTtlMs: 600_000, listTtlMs: 600_000 });
  const storeUrl = newStore();
  const first = await invoke({ storeUrl, serverUrl: s.url });
  assert.equal(first.text, '1.0.0:alice:hi');
  assert.deepEqual(s.posts(), ['initialize', 'server/discover', 'tools/list', 'tools/call']);
  const mark = s.state.requests.length;
  const out = await invoke({ storeUrl, serverUrl: s.url, message: 'modern' });
  assert.deepEqual(out.listed, ['s_echo']);
  assert.equal(out.text, '1.0.0:alice:modern');
  assert.deepEqual(s.posts(mark), ['tools/call'], 'no refused handshake, no discover, no list');
  // Another user (another bearer token) starts from nothing kept for this one.
  const mark2 = s.state.requests.length;
  await invoke({ storeUrl, serverUrl: s.url, token: 'bob-token' });
  assert.deepEqual(s.posts(mark2), ['initialize', 'server/discover', 'tools/list', 'tools/call']);
});

test('a 2026-07-28 server whose hints allow nothing: the era is kept, the answer and the list are asked again', async () => {
  const s = await server({ modern: true });
  const storeUrl = newStore();
  await invoke({ storeUrl, serverUrl: s.url });
  const mark = s.state.requests.length;
  await invoke({ storeUrl, serverUrl: s.url });
  assert.deepEqual(s.posts(mark), ['server/discover', 'tools/list', 'tools/call'], 'no refused handshake');
});

test('over PostgreSQL: a fresh process resumes the kept session and, within toolsCacheTtlMs, sends only its call', async () => {
  const { startPostgres } = await import('./fixtures/databases.mjs');
  const pg = await startPostgres();
  try {
    const s = await server();
    const { url: storeUrl } = await pg.database();
    const first = await invoke({ storeUrl, serverUrl: s.url, ttlMs: 60_000, message: 'one' });
    const mark = s.state.requests.length;
    const second = await invoke({ storeUrl, serverUrl: s.url, ttlMs: 60_000, message: 'two' });
    assert.equal(second.text, '1.0.0:alice:two');
    assert.equal(second.session, first.session, 'the same session');
    assert.deepEqual(s.posts(mark), ['tools/call'], 'one request from process start to the first tool result');
  } finally {
    await pg.stop();
  }
});

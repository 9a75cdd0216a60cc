// Process hygiene, the no-core fallback, and what lives across a connection: handlers survive disconnect and
// reconnect; getServerInstructions (synchronous) follows the session, over stdio, Streamable HTTP and SSE.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MCPClient } from '../index.mjs';
import { stdioFixtureServer, waitFor, isAlive, tmpFile, nodeBin, startEverythingHttp } from './fixtures/helpers.mjs';

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
let n = 0;
function client(servers, extra = {}) {
  const c = new MCPClient({ id: `lifecycle-${n++}`, servers, ...extra });
  clients.push(c);
  return c;
}

test('lifecycle: connecting installs no signal or exit listeners in the host process', async () => {
  const before = ['SIGTERM', 'SIGHUP', 'SIGINT', 'exit', 'beforeExit'].map((s) => process.listenerCount(s));
  const c = new MCPClient({ id: 'listeners', servers: { fx: stdioFixtureServer(), down: { command: 'no-such-cmd-q' } } });
  await c.listToolsWithErrors();
  await c.listToolsWithErrors();
  const afterConnect = ['SIGTERM', 'SIGHUP', 'SIGINT', 'exit', 'beforeExit'].map((s) => process.listenerCount(s));
  await c.disconnect();
  assert.deepEqual(afterConnect, before);
});

test('lifecycle: a SIGKILLed Node process leaves no orphan MCP server behind', async () => {
  const pidFile = tmpFile('orphan-pid');
  const script = `
    const { MCPClient } = require(${JSON.stringify(require.resolve('../index.js'))});
    const c = new MCPClient({ servers: { fx: ${JSON.stringify(stdioFixtureServer({ FIXTURE_PID_FILE: pidFile }))} } });
    c.listTools().then(() => { console.log('ready'); setInterval(() => {}, 1000); });
  `;
  const host = spawn(nodeBin, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  host.stdout.on('data', (d) => (out += d));
  await waitFor(() => out.includes('ready') && existsSync(pidFile), { timeoutMs: 15000, message: 'host connected' });
  const serverPid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(isAlive(serverPid));
  host.kill('SIGKILL');
  await waitFor(() => !isAlive(serverPid), { timeoutMs: 5000, message: 'MCP server died with its parent' });
});

test('lifecycle: without @mastra/core, listTools returns plain tool objects of the same shape', async () => {
  const { createFace } = require('../lib/face.cjs');
  const { MCPClient: Bare } = createFace({});
  const c = new Bare({ id: 'bare', servers: { fx: stdioFixtureServer() } });
  try {
    const tools = await c.listTools();
    const t = tools.fx_cwd;
    assert.equal(Object.getPrototypeOf(t), Object.prototype, 'a plain object');
    assert.equal(t.id, 'fx_cwd');
    assert.equal(typeof t.execute, 'function');
    assert.equal((await t.execute({}, {})).content[0].text, process.cwd());
    await assert.rejects(tools.fx_fail.execute({}, {}), (e) => e.id === 'MCP_CLIENT_TOOL_EXECUTION_FAILED');
  } finally {
    await c.disconnect();
  }
});

test('lifecycle: handlers survive disconnect and reconnect', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const updates = [];
  await c.progress.onUpdate('fx', (p) => updates.push(p));
  await c.disconnect();
  await c.reconnectServer('fx');
  const tools = await c.listTools();
  await tools.fx_progress.execute({}, { runId: 'after' });
  await waitFor(() => updates.length === 3, { message: 'handler still registered' });
});

const transports = {
  stdio: () => ({ command: nodeBin, args: [everythingEntry, 'stdio'] }),
  streamableHttp: () => ({ url: http.url }),
  sse: () => ({ url: sse.url }),
};

for (const [transport, define] of Object.entries(transports)) {
  test(`lifecycle over ${transport}: getServerInstructions is synchronous and follows the session`, async () => {
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

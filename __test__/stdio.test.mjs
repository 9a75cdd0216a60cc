// stdio transport, end to end: server-everything and our fixture server as real child processes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MCPClient } from '../index.mjs';
import { stdioFixtureServer, waitFor, isAlive, tmpFile, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const everything = { command: nodeBin, args: [everythingEntry, 'stdio'] };

const clients = [];
function client(opts) {
  const c = new MCPClient({ id: `stdio-${clients.length}`, ...opts });
  clients.push(c);
  return c;
}
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
});

test('stdio: lists server-everything tools namespaced server_tool and calls echo', async () => {
  const c = client({ servers: { everything } });
  const tools = await c.listTools();
  assert.ok(tools.everything_echo, 'echo tool is listed');
  assert.equal(tools.everything_echo.id, 'everything_echo');
  const out = await tools.everything_echo.execute({ message: 'hello native' }, {});
  assert.deepEqual(out.content, [{ type: 'text', text: 'Echo: hello native' }]);
});

test('stdio: structured content comes back as the value with hidden content and meta', async () => {
  const { getMcpCallToolContent, getMcpCallToolMeta } = await import('../index.mjs');
  const c = client({ servers: { fx: stdioFixtureServer() } });
  const tools = await c.listTools();
  const out = await tools.fx_structured.execute({}, {});
  assert.deepEqual({ ...out }, { a: 1 });
  assert.deepEqual(getMcpCallToolContent(out), [{ type: 'text', text: 'a is 1' }]);
  assert.deepEqual(getMcpCallToolMeta(out), { ui: { resourceUri: 'ui://x', serverId: 'fx' } });
  assert.deepEqual(tools.fx_structured.toModelOutput(out), { type: 'text', value: 'a is 1' });
  const bad = await tools.fx_bad_structured.execute({}, {});
  assert.equal(bad.error, true, 'schema mismatch is reported as a validation error');
  assert.match(bad.message, /output validation failed/i);
});

test('stdio: server-everything structured tool returns its structuredContent', async () => {
  const c = client({ servers: { everything } });
  const tools = await c.listTools();
  const out = await tools['everything_get-structured-content'].execute({ location: 'New York' }, {});
  assert.equal(typeof out.temperature, 'number');
});

test('stdio: a secret in the parent env does not reach the child; env adds to the whitelist', async () => {
  process.env.SECRET_KEY_FOR_TEST = 'hunter2';
  try {
    const c = client({ servers: { fx: stdioFixtureServer({ EXTRA: 'yes' }) } });
    const tools = await c.listTools();
    const out = await tools.fx_env_dump.execute({}, {});
    const env = out.env;
    assert.equal(env.SECRET_KEY_FOR_TEST, undefined);
    assert.equal(env.EXTRA, 'yes');
    assert.equal(env.PATH, process.env.PATH);
    const allowed = new Set(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'EXTRA']);
    for (const key of Object.keys(env)) assert.ok(allowed.has(key), `unexpected variable ${key} reached the child`);
  } finally {
    delete process.env.SECRET_KEY_FOR_TEST;
  }
});

test('stdio: inheritDefaultEnv false passes only env', async () => {
  const c = client({ servers: { fx: stdioFixtureServer({ ONLY: '1' }, { inheritDefaultEnv: false }) } });
  const out = await (await c.listTools()).fx_env_dump.execute({}, {});
  assert.deepEqual(Object.keys(out.env), ['ONLY']);
});

test('stdio: cwd is passed to the child', async () => {
  const c = client({ servers: { fx: stdioFixtureServer({}, { cwd: '/tmp' }) } });
  const out = await (await c.listTools()).fx_cwd.execute({}, {});
  assert.equal(out.content[0].text, '/tmp');
});

test('stdio: stderr pipe is readable through getServerStderr', async () => {
  const c = client({ servers: { fx: stdioFixtureServer({}, { stderr: 'pipe' }) } });
  const stream = c.getServerStderr('fx');
  assert.ok(stream, 'a stream exists for a pipe server');
  let seen = '';
  stream.on('data', (d) => (seen += d));
  await (await c.listTools()).fx_stderr.execute({ text: 'to-stderr-42' }, {});
  await waitFor(() => seen.includes('to-stderr-42'), { message: 'stderr text arrives' });
  assert.equal(c.getServerStderr('nosuch'), null);
});

test('stdio: concurrent first uses share one child process', async () => {
  const pidFile = tmpFile('pid');
  const c = client({ servers: { fx: stdioFixtureServer({ FIXTURE_PID_FILE: pidFile, FIXTURE_RECV_LOG: pidFile + '.log' }) } });
  await Promise.all([c.listTools(), c.listTools(), c.listToolsets()]);
  const inits = readFileSync(pidFile + '.log', 'utf8').split('\n').filter((l) => l.includes('"initialize"'));
  assert.equal(inits.length, 1, 'one initialize handshake');
});

test('stdio: disconnect leaves no child process behind, and the client reconnects lazily', async () => {
  const pidFile = tmpFile('pid');
  const c = client({ servers: { fx: stdioFixtureServer({ FIXTURE_PID_FILE: pidFile }) } });
  await c.listTools();
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(isAlive(pid));
  await c.disconnect();
  assert.equal(isAlive(pid), false, 'child is gone after disconnect');
  const tools = await c.listTools();
  assert.ok(tools.fx_cwd, 'usable again after disconnect');
});

test('stdio: a child that ignores stdin EOF and SIGTERM is killed on disconnect', async () => {
  const pidFile = tmpFile('pid');
  const c = client({ servers: { fx: stdioFixtureServer({ FIXTURE_MODE: 'ignore_sigterm_stdin', FIXTURE_PID_FILE: pidFile }) } });
  await c.listTools();
  const pid = Number(readFileSync(pidFile, 'utf8'));
  await c.disconnect();
  assert.equal(isAlive(pid), false);
});

test('stdio: after the server crashes, the next call respawns it; a call is never executed twice', async () => {
  const counter = tmpFile('count');
  writeFileSync(counter, '0');
  const c = client({ servers: { fx: stdioFixtureServer({ FIXTURE_COUNTER_FILE: counter }) } });
  const tools = await c.listTools();
  // The crashing call counts its execution before the server dies: a resend would count again.
  await assert.rejects(tools.fx_count_then_exit.execute({}, {}), /closed/i, 'the call that killed the server fails');
  assert.equal(readFileSync(counter, 'utf8').trim(), '1', 'the crashed call ran exactly once (not resent)');
  const out = await tools.fx_count_calls.execute({}, {});
  assert.equal(out.content[0].text, '2', 'the next call ran on a fresh server, once');
  assert.equal(readFileSync(counter, 'utf8').trim(), '2', 'two calls, two executions');
});

test('stdio: isError becomes MCP_CLIENT_TOOL_EXECUTION_FAILED, or the raw result with onToolError return', async () => {
  const c = client({ servers: { fx: stdioFixtureServer(), fr: stdioFixtureServer({}, { onToolError: 'return' }) } });
  const tools = await c.listTools();
  await assert.rejects(tools.fx_fail.execute({}, {}), (e) => {
    assert.equal(e.id, 'MCP_CLIENT_TOOL_EXECUTION_FAILED');
    assert.equal(e.message, 'boom from fixture');
    assert.deepEqual(e.details, { toolName: 'fail', serverName: 'fx' });
    return true;
  });
  const raw = await tools.fr_fail.execute({}, {});
  assert.equal(raw.isError, true);
});

test('stdio: per-request timeout and abortSignal end a call, and the connection stays usable', async () => {
  // The server timeout also bounds the spawn and handshake: large enough for a loaded machine.
  const c = client({ servers: { fx: stdioFixtureServer({}, { timeout: 5000 }) } });
  const tools = await c.listTools();
  await assert.rejects(tools.fx_slow.execute({ ms: 120000 }, {}), (e) => e.code === 'REQUEST_TIMEOUT' && /timed out/i.test(e.message));
  const ac = new AbortController();
  const pending = tools.fx_slow.execute({ ms: 300 }, { abortSignal: ac.signal });
  setTimeout(() => ac.abort(new Error('user abort')), 50);
  await assert.rejects(pending, /user abort/);
  const ok = await tools.fx_slow.execute({ ms: 10 }, {});
  assert.equal(ok.content[0].text, 'slept');
});

test('stdio: annotations, strict and mcpMetadata reach the tool', async () => {
  const c = client({
    servers: { fx: stdioFixtureServer({ FIXTURE_INSTRUCTIONS: 'Use fx wisely.' }, { forwardInstructions: true, instructionsMaxLength: 100 }) },
  });
  const tools = await c.listTools();
  const t = tools.fx_annotated;
  assert.equal(t.mcp.annotations.readOnlyHint, true);
  assert.equal(t.strict, true);
  assert.deepEqual(t.mcpMetadata, {
    serverName: 'fx',
    serverVersion: '9.9.9',
    serverInstructions: 'Use fx wisely.',
    forwardInstructions: true,
    instructionsMaxLength: 100,
  });
  // Synchronous, as the typings say: a plain object, not a Promise.
  const instructions = c.getServerInstructions();
  assert.equal(typeof instructions.then, 'undefined');
  assert.equal(instructions.fx, 'Use fx wisely.');
});

test('stdio: tool lists follow nextCursor across pages', async () => {
  const c = client({ servers: { fx: stdioFixtureServer() } });
  const defs = await c.listToolDefinitions();
  assert.ok(Object.keys(defs.fx).length >= 14, `all pages listed, got ${Object.keys(defs.fx).length}`);
  assert.deepEqual(JSON.parse(JSON.stringify(defs)), defs, 'definitions are JSON-safe');
});

// Faults over stdio, as a user sees them: misbehaving fixture servers (crashes, hangs, garbage,
// a closed stdout, floods, grandchildren), what the error says and which server it names, that
// every call settles, and that nothing is left behind: no child or grandchild process, no
// descriptor, no thread, no listener, no client kept alive after disconnect().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MCPClient } from '../index.mjs';
import { stdioFixtureServer, fixturePath, nodeBin, tmpFile, isAlive, waitFor } from './fixtures/helpers.mjs';
import { onLinux, fdCount, threadCount, descendants, waitGone, gc, processListeners, readPid } from './fixtures/observe.mjs';

const require = createRequire(import.meta.url);
let n = 0;
const newClient = (servers, extra = {}) => new MCPClient({ id: `faults-stdio-${n++}`, servers, ...extra });

/** Runs `fn(client)` and always disconnects. */
async function using(servers, fn, extra) {
  const c = newClient(servers, extra);
  try {
    return await fn(c);
  } finally {
    await c.disconnect();
  }
}

let listenersBefore;
before(() => {
  listenersBefore = processListeners();
});
after(() => {
  assert.deepEqual(processListeners(), listenersBefore, 'no process listeners were added');
});

/** Every process this test process started is gone (from /proc on Linux, `ps` elsewhere). */
async function noProcessesLeft() {
  await waitFor(() => descendants().length === 0, { timeoutMs: 10000, message: `no child processes (left: ${descendants().join(', ')})` });
}

test('faults/stdio: a server that crashes at start fails the connect naming the server; nothing is left', async () => {
  await using({ crashy: stdioFixtureServer({ FIXTURE_MODE: 'crash' }) }, async (c) => {
    const r = await c.listToolsWithErrors();
    assert.match(r.errors.crashy, /^Failed to connect to MCP server crashy: .*(closed|exited)/i);
    assert.equal(r.errorDetails.crashy.code, 'CONNECT_FAILED');
  });
  await noProcessesLeft();
});

test('faults/stdio: a crash mid-call fails that call (named, "closed"), runs it once, and the next call respawns', async () => {
  const counter = tmpFile('count');
  writeFileSync(counter, '0');
  await using({ mid: stdioFixtureServer({ FIXTURE_COUNTER_FILE: counter }) }, async (c) => {
    const tools = await c.listTools();
    await assert.rejects(tools.mid_count_then_exit.execute({}, {}), (e) => {
      assert.match(e.message, /closed/i);
      assert.match(e.message, /server mid/);
      return true;
    });
    assert.equal(readFileSync(counter, 'utf8'), '1', 'the crashed call was not resent');
    const out = await tools.mid_count_calls.execute({}, {});
    assert.equal(out.content[0].text, '2');
  });
  await noProcessesLeft();
});

// The error texts below name the configured timeout, which proves which wait ended the call; the
// test's own `timeout` (a generous multiple) bounds a hang without comparing wall-clock times.
test('faults/stdio: a server that hangs on initialize times out (named) and its process is ended', { timeout: 60000 }, async () => {
  const pidFile = tmpFile('hang-pid');
  const timeout = 1500;
  await using({ hung: stdioFixtureServer({ FIXTURE_MODE: 'hang', FIXTURE_PID_FILE: pidFile }, { timeout }) }, async (c) => {
    const r = await c.listToolsWithErrors();
    assert.equal(r.errors.hung, `Failed to connect to MCP server hung: Request timed out after ${timeout} ms (initialize on server hung)`);
    assert.equal(r.errorDetails.hung.code, 'REQUEST_TIMEOUT');
    // The timed-out connect does not leave its child running until disconnect().
    await waitGone([await readPid(pidFile)], 10000, 'the hung server');
  });
  await noProcessesLeft();
});

test('faults/stdio: a call that hangs times out (named), its waiters are released, the session stays usable', { timeout: 60000 }, async () => {
  const timeout = 4000; // also bounds the spawn: generous for a loaded machine
  await using({ slowpoke: stdioFixtureServer({}, { timeout }) }, async (c) => {
    const tools = await c.listTools();
    const ac = new AbortController();
    await assert.rejects(tools.slowpoke_slow.execute({ ms: 600000 }, { abortSignal: ac.signal }), (e) => {
      assert.equal(e.code, 'REQUEST_TIMEOUT');
      assert.match(e.message, /^Request timed out after 4000 ms \(tools\/call on server slowpoke\)$/);
      return true;
    });
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0, 'no abort listener left on the signal');
    assert.equal((await tools.slowpoke_cwd.execute({}, {})).content[0].text, process.cwd());
  });
  await noProcessesLeft();
});

test('faults/stdio: garbage instead of JSON-RPC at start fails the connect (named); garbage mid-session is skipped', async () => {
  await using({ junk: stdioFixtureServer({ FIXTURE_MODE: 'garbage' }, { timeout: 1500 }) }, async (c) => {
    const r = await c.listToolsWithErrors();
    assert.match(r.errors.junk, /^Failed to connect to MCP server junk: /);
  });
  await using({ noisy: stdioFixtureServer() }, async (c) => {
    const tools = await c.listTools();
    assert.equal((await tools.noisy_garbage_then_answer.execute({}, {})).content[0].text, 'ok');
  });
  await noProcessesLeft();
});

test('faults/stdio: a 20 MB answer line (over rmcp\'s default 16 MiB line cap) arrives whole', async () => {
  await using({ big: stdioFixtureServer() }, async (c) => {
    const tools = await c.listTools();
    const out = await tools.big_big.execute({ bytes: 20_000_000 }, {});
    assert.equal(out.content[0].text.length, 20_000_000);
  });
});

test('faults/stdio: an answer over the 64 MiB line cap fails its call with a clear error (not at the timeout); the session goes on', { timeout: 120000 }, async () => {
  // The configured timeout is far beyond the test's own: settling at all proves it did not wait it out.
  await using({ huge: stdioFixtureServer({}, { timeout: 3_600_000 }) }, async (c) => {
    const tools = await c.listTools();
    await assert.rejects(tools.huge_big.execute({ bytes: 65 * 1024 * 1024 }, {}), (e) => {
      assert.match(e.message, /tools\/call failed on server huge: the server's answer is longer than 64 MiB/);
      return true;
    });
    assert.equal((await tools.huge_cwd.execute({}, {})).content[0].text, process.cwd());
  });
});

test('faults/stdio: a live server that closes its stdout fails the in-flight call promptly with "closed"; the next call reconnects', { timeout: 120000 }, async () => {
  const pidFile = tmpFile('closer-pid');
  // Far beyond the test's own timeout: the call settling with TRANSPORT_CLOSED proves it did not wait it out.
  const timeout = 3_600_000;
  // The server also ignores stdin EOF and SIGTERM: the call must not wait out a graceful shutdown.
  await using({ closer: stdioFixtureServer({ FIXTURE_MODE: 'ignore_sigterm_stdin', FIXTURE_PID_FILE: pidFile }, { timeout }) }, async (c) => {
    const tools = await c.listTools();
    const pid = await readPid(pidFile);
    await assert.rejects(tools.closer_close_stdout.execute({}, {}), (e) => {
      assert.equal(e.code, 'TRANSPORT_CLOSED');
      assert.match(e.message, /^Connection to MCP server closer closed \(tools\/call\)/);
      return true;
    });
    // The call fails as soon as stdout closes; the server is ended right after (no grace period).
    await waitFor(() => !isAlive(pid), { timeoutMs: 3000, message: 'the server that stopped answering to be ended' });
    assert.equal((await tools.closer_cwd.execute({}, {})).content[0].text, process.cwd());
  });
  await noProcessesLeft();
});

test('faults/stdio: a stderr flood is drained to getServerStderr and calls keep working', async () => {
  await using({ flood: stdioFixtureServer({}, { stderr: 'pipe' }) }, async (c) => {
    let received = 0;
    c.getServerStderr('flood').on('data', (d) => (received += d.length));
    const tools = await c.listTools();
    const bytes = 8 * 1024 * 1024;
    assert.equal((await tools.flood_stderr_flood.execute({ bytes }, {})).content[0].text, 'flooded');
    await waitFor(() => received >= bytes, { timeoutMs: 15000, message: 'the whole flood to arrive' });
    assert.equal((await tools.flood_cwd.execute({}, {})).content[0].text, process.cwd());
  });
  await noProcessesLeft();
});

test('faults/stdio: grandchildren (sh -c → node → node) are ended with their server on disconnect', { skip: !onLinux && 'needs /proc' }, async () => {
  const pidFile = tmpFile('gc-server');
  const childFile = tmpFile('gc-child');
  const fixture = fixturePath('stdio-server.mjs');
  // dash does not exec the last command of -c: sh stays the parent of the node server, which
  // starts a child that ignores stdin EOF and SIGTERM.
  const server = {
    command: 'sh',
    args: ['-c', `"${nodeBin}" "${fixture}"; exit 0`],
    env: { FIXTURE_PID_FILE: pidFile, FIXTURE_CHILD_PID_FILE: childFile },
  };
  let pids;
  await using({ tree: server }, async (c) => {
    await c.listTools();
    pids = [await readPid(pidFile), await readPid(childFile), ...descendants()];
    assert.ok(pids.every(isAlive));
    assert.ok(pids.length >= 3, `sh, node server and its child run (${pids.join(', ')})`);
  });
  await waitGone(pids, 10000, 'the whole process group');
  await noProcessesLeft();
});

test('faults/stdio: a SIGKILLed host leaves neither its server nor the server\'s child behind', { skip: !onLinux && 'needs /proc' }, async () => {
  const pidFile = tmpFile('orphan-server');
  const childFile = tmpFile('orphan-child');
  const def = stdioFixtureServer({ FIXTURE_PID_FILE: pidFile, FIXTURE_CHILD_PID_FILE: childFile });
  const script = `
    const { MCPClient } = require(${JSON.stringify(require.resolve('../index.js'))});
    const c = new MCPClient({ servers: { fx: ${JSON.stringify(def)} } });
    c.listTools().then(() => { console.log('ready'); setInterval(() => {}, 1000); });
  `;
  const host = spawn(nodeBin, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  host.stdout.on('data', (d) => (out += d));
  try {
    await waitFor(() => out.includes('ready'), { timeoutMs: 20000, message: 'the host to connect' });
    const pids = [await readPid(pidFile), await readPid(childFile)];
    assert.ok(pids.every(isAlive));
    host.kill('SIGKILL');
    await waitGone(pids, 15000, 'the orphaned server and its child');
  } finally {
    host.kill('SIGKILL');
  }
});

test('faults/stdio: a JSON-RPC error answer to tools/call names the server and keeps its code', async () => {
  await using({ rpc: stdioFixtureServer() }, async (c) => {
    const tool = await c.toolFromDefinition({ serverName: 'rpc', definition: { name: 'nope', inputSchema: { type: 'object' } } });
    await assert.rejects(tool.execute({}, {}), (e) => {
      assert.equal(e.message, 'MCP error -32602: Unknown tool: nope (MCP server rpc)');
      assert.equal(e.code, -32602);
      return true;
    });
  });
});

test('faults/stdio: callbacks that throw (logger, elicitation, list-changed handler) do not break the client', async () => {
  const logger = () => {
    throw new Error('logger boom');
  };
  await using({ cb: stdioFixtureServer({}, { logger, enableServerLogs: true }) }, async (c) => {
    await c.elicitation.onRequest('cb', () => {
      throw new Error('elicitation boom');
    });
    let changed = 0;
    await c.tools.onListChanged('cb', () => {
      changed += 1;
      throw new Error('handler boom');
    });
    const tools = await c.listTools();
    const answer = await tools.cb_elicit.execute({}, {});
    assert.match(answer.content[0].text, /elicitation boom/, 'the server got an error answer');
    await tools.cb_notify_tools_changed.execute({}, {});
    await waitFor(() => changed === 1, { message: 'the throwing handler ran' });
    await tools.cb_log.execute({ level: 'error', data: 'x' }, {});
    assert.equal((await tools.cb_cwd.execute({}, {})).content[0].text, process.cwd());
  });
  await noProcessesLeft();
});

test('faults/stdio: a client per request leaves descriptors, threads and processes flat, and is collected', { skip: !onLinux && 'needs /proc' }, async () => {
  const cycle = async (i) => {
    const c = newClient({ once: stdioFixtureServer() });
    const tools = await c.listTools();
    assert.equal((await tools.once_cwd.execute({ i }, {})).content[0].text, process.cwd());
    await c.disconnect();
    return new WeakRef(c);
  };
  await cycle(-1); // warm-up: the addon, its runtime and the watchdog exist from here on
  gc();
  const fds = fdCount();
  const threads = threadCount();
  const refs = [];
  for (let i = 0; i < 30; i++) refs.push(await cycle(i));
  await noProcessesLeft();
  await waitFor(() => fdCount() <= fds, { timeoutMs: 5000, message: `descriptors back to ${fds} (now ${fdCount()})` });
  assert.ok(threadCount() <= threads + 2, `threads flat (${threads} → ${threadCount()})`);
  await waitFor(
    () => {
      gc();
      return refs.every((r) => r.deref() === undefined);
    },
    { timeoutMs: 10000, message: 'disconnected clients to be collected' },
  );
});

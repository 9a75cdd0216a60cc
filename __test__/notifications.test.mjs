// Notifications and server-initiated messages: tools/list_changed, progress (with and without
// `enableProgressTracking`), server logs (`logger`/`log`, `enableServerLogs`, 2.0's `serverLogLevel`); against our
// stdio fixture, server-everything over stdio, Streamable HTTP and SSE, and @mastra/mcp 2.0's MCPServer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InternalMastraMCPClient } from '../index.mjs';
import { fixturePath, nodeBin, startUrlServer, stdioFixtureServer, waitFor } from './fixtures/helpers.mjs';
import { everythingStdio, useTestbed } from './fixtures/testbed.mjs';

const everything = everythingStdio();
const { client, clientOfS, everythingTransports: transports, mastra2Transports: TRANSPORTS } = useTestbed('notifications', { everything: true, mastra2: true });

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

// Progress over Streamable HTTP whatever carries the bytes and whichever client class: a call made
// as @mastra/mcp 1.x's own test makes it (`execute(args)`, no context) reports its steps to the
// handler, with the same token on each, by the time it resolves or soon after.
const carriers = { 'built-in HTTP': () => ({}), 'a user fetch': () => ({ fetch: (url, init) => fetch(url, init) }) };
const perServer = [];
const progressClients = {
  MCPClient: async (def, onUpdate) => {
    const c = client({ ev: def });
    await c.progress.onUpdate('ev', onUpdate);
    return (await c.listTools())['ev_trigger-long-running-operation'];
  },
  InternalMastraMCPClient: async (def, onUpdate) => {
    const c = new InternalMastraMCPClient({ name: 'ev', server: def });
    perServer.push(c);
    c.progress.onUpdate(onUpdate);
    await c.connect();
    return (await c.tools())['trigger-long-running-operation'];
  },
};
after(() => Promise.all(perServer.map((c) => c.disconnect())));
for (const [kind, make] of Object.entries(progressClients)) {
  for (const [carrier, carry] of Object.entries(carriers)) {
    test(`progress through ${kind} over ${carrier}: a call without context reports its steps`, async () => {
      const updates = [];
      const longTask = await make({ ...transports.streamableHttp(), enableProgressTracking: true, ...carry() }, (p) => updates.push(p));
      assert.match(JSON.stringify(await longTask.execute({ duration: 0.2, steps: 3 })), /Long running operation completed/);
      await waitFor(() => updates.length >= 3, { message: `three progress updates (got ${JSON.stringify(updates)})` });
      assert.deepEqual(updates.map((u) => u.progress), [1, 2, 3]);
      assert.equal(new Set(updates.map((u) => u.progressToken)).size, 1, 'one token for the call');
      assert.equal(typeof updates[0].progressToken, 'string');
    });
  }
}

// Progress a server sends outside the request (the TS SDK's `server.notification()`, as the server of mastra's
// own 1.x progress test does) travels on the session's GET stream: a registered progress handler opens it as
// the session opens. The steps are a millisecond apart and the call answers at once, in an app that loaded
// Mastra first (no quiet spell before the call): every update has arrived when the call resolves.
let outOfBand;
before(async () => {
  outOfBand = await startUrlServer('progress-oob', nodeBin, [fixturePath('progress-oob-server.mjs')]);
});
after(() => outOfBand?.stop());
const outOfBandClients = {
  MCPClient: async (def, onUpdate) => {
    const c = client({ oob: def });
    await c.progress.onUpdate('oob', onUpdate);
    return (await c.listTools()).oob_longTask;
  },
  InternalMastraMCPClient: async (def, onUpdate) => {
    const c = new InternalMastraMCPClient({ name: 'progress-client', server: def });
    perServer.push(c);
    c.progress.onUpdate(onUpdate);
    await c.connect();
    return (await c.tools()).longTask;
  },
};
for (const [kind, make] of Object.entries(outOfBandClients)) {
  for (const [carrier, carry] of Object.entries(carriers)) {
    test(`progress sent outside the request through ${kind} over ${carrier}: every update has arrived when the call resolves`, async () => {
      await import('@mastra/core/tools');
      const updates = [];
      const longTask = await make({ url: new URL(outOfBand.url), enableProgressTracking: true, ...carry() }, (p) => updates.push(p));
      assert.match(JSON.stringify(await longTask.execute({ count: 3, delayMs: 1 })), /Long task completed/);
      assert.deepEqual(updates.map((u) => u.progress), [1, 2, 3], JSON.stringify(updates));
      assert.ok(updates.every((u) => u.total === 3 && typeof u.progressToken === 'string'));
    });
  }
}

for (const [transport, define] of Object.entries(transports)) {
  test(`progress over ${transport}: enableProgressTracking false sends no progress token and delivers no progress`, async () => {
    const c = client({ off: { ...define(), enableProgressTracking: false }, on: define() });
    const progress = { off: [], on: [] };
    const listChanged = { off: 0 };
    await c.progress.onUpdate('off', (p) => progress.off.push(p));
    await c.progress.onUpdate('on', (p) => progress.on.push(p));
    await c.resources.onListChanged('off', () => listChanged.off++);
    const tools = await c.listTools();

    // Control: with tracking on (the default) the same call reports its steps.
    await tools['on_trigger-long-running-operation'].execute({ duration: 0.2, steps: 2 }, { runId: `on-${transport}` });
    await waitFor(() => progress.on.length >= 2, { message: 'progress with tracking on' });

    const result = await tools['off_trigger-long-running-operation'].execute({ duration: 0.2, steps: 2 }, { runId: `off-${transport}` });
    assert.match(JSON.stringify(result), /Long running operation completed/);
    // Events of one server are delivered in arrival order: once a notification the server sends
    // after the call has arrived, any progress of the call would have been delivered before it.
    await tools['off_gzip-file-as-resource'].execute({ name: `barrier-${transport}.gz`, data: 'data:text/plain;base64,aGk=' }, {});
    await waitFor(() => listChanged.off > 0, { message: 'resources/list_changed after the call' });
    assert.deepEqual(progress.off, [], 'no progress without tracking');
  });

  test(`progress over ${transport}: with tracking off, a progressToken the caller puts in _meta still gets its progress`, async () => {
    const c = client({ off: { ...define(), enableProgressTracking: false } });
    const progress = [];
    await c.progress.onUpdate('off', (p) => progress.push(p));
    const tools = await c.listTools();
    await tools['off_trigger-long-running-operation'].execute({ duration: 0.2, steps: 2 }, { _meta: { progressToken: `mine-${transport}` } });
    await waitFor(() => progress.length >= 2, { message: 'progress for the caller-supplied token' });
    assert.ok(progress.every((p) => p.progressToken === `mine-${transport}`), JSON.stringify(progress));
  });
}

// @mastra/mcp 2.0's MCPServer (fixtures/mastra2-server), one server named `s`: `TRANSPORTS`.
const serverLogs = (logs) => logs.filter((l) => l.message === '[s] [MCP SERVER LOG]');

for (const [label, define] of TRANSPORTS) {
  describe(`logging against @mastra/mcp 2.0's MCPServer (${label})`, () => {
    const client = clientOfS;
    test('per-request server logs arrive at serverLogLevel, by default info (as in 2.0)', async () => {
      const logs = [];
      const c = client(define({ logger: (m) => logs.push(m) }));
      const tools = await c.listTools();
      await tools.s_chatty.execute({ tag: 'default' }, {});
      await waitFor(() => serverLogs(logs).length >= 2, { timeoutMs: 20000, message: `two server logs: ${JSON.stringify(serverLogs(logs))}` });
      assert.deepEqual(serverLogs(logs).map((l) => l.level), ['info', 'warning']);

      const warnings = [];
      const w = client(define({ serverLogLevel: 'warning', logger: (m) => warnings.push(m) }));
      await (await w.listTools()).s_chatty.execute({ tag: 'warn' }, {});
      await waitFor(() => serverLogs(warnings).length >= 1, { timeoutMs: 20000, message: 'a warning log' });
      assert.deepEqual(serverLogs(warnings).map((l) => l.level), ['warning']);
      assert.match(JSON.stringify(serverLogs(warnings)[0].details), /warn: warning line/);
    });
  });
}

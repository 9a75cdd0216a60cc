// Faults over HTTP, as a user sees them: 5xx bursts, dropped streams, a black hole, session
// expiry, a redirect loop, throwing callbacks; what the error says and which server it names,
// that every call settles within its budget, and that disconnect() leaves nothing open: no
// socket, no pooled connection, no GET stream, no client kept alive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient } from '../index.mjs';
import { startHttpFixture } from './fixtures/http-server.mjs';
import { waitFor } from './fixtures/helpers.mjs';
import { onLinux, fdCount, socketCount, threadCount, gc, processListeners } from './fixtures/observe.mjs';

let n = 0;
const newClient = (servers, extra = {}) => new MCPClient({ id: `faults-http-${n++}`, servers, ...extra });

async function using(servers, fn, extra) {
  const c = newClient(servers, extra);
  try {
    return await fn(c);
  } finally {
    await c.disconnect();
  }
}

let fx;
let fxSse;
let listenersBefore;
before(async () => {
  listenersBefore = processListeners();
  fx = await startHttpFixture();
  fxSse = await startHttpFixture({ sse: true });
});
after(async () => {
  await fx.close();
  await fxSse.close();
  assert.deepEqual(processListeners(), listenersBefore, 'no process listeners were added');
});

test('faults/http: a burst of 503s fails those calls (named, with the status), then calls recover on the same session', async () => {
  await using({ burst: { url: new URL(fx.mcpUrl) } }, async (c) => {
    const tools = await c.listTools();
    const session = c.sessionIds.burst;
    fx.failNext(3);
    for (let i = 0; i < 3; i++) {
      await assert.rejects(tools.burst_echo.execute({ message: 'x' }, {}), (e) => {
        assert.match(e.message, /server burst/);
        assert.match(e.message, /HTTP 503/);
        assert.equal(e.status, 503);
        return true;
      });
    }
    const before = fx.state.executions;
    assert.equal((await tools.burst_echo.execute({ message: 'back' }, {})).content[0].text, 'Echo: back');
    assert.equal((await tools.burst_count.execute({}, {})).content[0].text, String(before + 1), 'executed once');
    assert.equal(c.sessionIds.burst, session, 'the session survived the burst');
  });
});

test('faults/http: a dropped response stream (SSE or JSON) fails that call (named) and the next call works', { timeout: 120000 }, async () => {
  for (const [name, f] of [['sse', fxSse], ['json', fx]]) {
    // A request timeout far beyond the test's own: a "closed" failure proves the drop was noticed, not waited out.
    await using({ [name]: { url: new URL(f.mcpUrl), timeout: 3_600_000 } }, async (c) => {
      const tools = await c.listTools();
      await assert.rejects(tools[`${name}_drop`].execute({}, {}), (e) => {
        assert.match(e.message, new RegExp(`server ${name}`));
        assert.match(e.message, /closed/i);
        return true;
      });
      assert.equal((await tools[`${name}_echo`].execute({ message: 'again' }, {})).content[0].text, 'Echo: again');
    });
  }
});

// The budget is proven by the errors (the Streamable HTTP wait named, SSE not tried); the test's own timeout bounds it.
test('faults/http: a black hole settles within one connect budget for both transports', { timeout: 60000 }, async () => {
  const timeout = 1500; // budget: max(timeout, connectTimeout 3000 by default)
  await using({ void: { url: new URL(`${fx.url}/blackhole`), timeout } }, async (c) => {
    const r = await c.listToolsWithErrors();
    assert.match(r.errors.void, /^Failed to connect to MCP server void: Could not connect to server with any available HTTP transport/);
    assert.match(r.errors.void, /Streamable HTTP: Request timed out after 3000 ms/);
    assert.match(r.errors.void, /SSE: not tried: the connect budget of 3000 ms was used up/);
  });
  // Only SSE is tried for a URL ending in /sse: `timeout` bounds it, as in @mastra/mcp.
  await using({ void2: { url: new URL(`${fx.url}/blackhole/sse`), timeout } }, async (c) => {
    const r = await c.listToolsWithErrors();
    assert.match(r.errors.void2, /Request timed out after 1500 ms \(SSE connect on server void2\)/);
  });
});

test('faults/http: an expired session is re-initialized and the call runs exactly once', async () => {
  await using({ exp: { url: new URL(fx.mcpUrl) } }, async (c) => {
    const tools = await c.listTools();
    const first = c.sessionIds.exp;
    fx.expireSessions({ closeStreams: true });
    const before = fx.state.executions;
    assert.equal((await tools.exp_count.execute({}, {})).content[0].text, String(before + 1));
    assert.equal(fx.state.executions, before + 1, 'executed once');
    assert.notEqual(c.sessionIds.exp, first, 'a new session');
  });
});

test('faults/http: a redirect loop stops at the hop limit with the anchor\'s error id and text', async () => {
  await using({ loop: { url: new URL(`${fx.url}/redirect-loop`), allowedHosts: [new URL(fx.url).host] } }, async (c) => {
    const r = await c.listToolsWithErrors();
    assert.equal(r.errorDetails.loop.code, 'MCP_CLIENT_TOO_MANY_REDIRECTS');
    assert.match(r.errors.loop, /Exceeded the maximum of 5 redirect hops/);
  });
});

test('faults/http: a JSON-RPC error answer to tools/call names the server and keeps its code', async () => {
  await using({ rpc: { url: new URL(fx.mcpUrl) } }, async (c) => {
    const tool = await c.toolFromDefinition({ serverName: 'rpc', definition: { name: 'nope', inputSchema: { type: 'object' } } });
    await assert.rejects(tool.execute({}, {}), (e) => {
      assert.equal(e.message, 'MCP error -32602: Unknown tool: nope (MCP server rpc)');
      assert.equal(e.code, -32602);
      return true;
    });
  });
});

test('faults/http: callbacks that throw (custom fetch, list-changed handler) fail cleanly, naming the server', async () => {
  const fetch = () => {
    throw new Error('fetch boom');
  };
  await using({ cf: { url: new URL(fx.mcpUrl), fetch } }, async (c) => {
    const r = await c.listToolsWithErrors();
    assert.match(r.errors.cf, /^Failed to connect to MCP server cf: .*the fetch for MCP server cf failed, and may have run: fetch boom/);
  });
  await using({ lc: { url: new URL(fx.mcpUrl) } }, async (c) => {
    let calls = 0;
    await c.tools.onListChanged('lc', () => {
      calls += 1;
      throw new Error('handler boom');
    });
    await waitFor(() => fx.state.openGetStreams > 0, { message: 'the GET listener' });
    fx.notify('notifications/tools/list_changed');
    await waitFor(() => calls === 1, { message: 'the throwing handler ran' });
    const tools = await c.listTools();
    assert.equal((await tools.lc_echo.execute({ message: 'still' }, {})).content[0].text, 'Echo: still');
  });
});

test('faults/http: after disconnect() nothing of the client stays open — no socket, no GET stream, no session', { skip: !onLinux && 'needs /proc' }, async () => {
  const f = await startHttpFixture();
  try {
    const sockets = socketCount();
    const c = newClient({ one: { url: new URL(f.mcpUrl) } });
    await c.listTools();
    await waitFor(() => f.state.openGetStreams === 1, { message: 'the GET listener' });
    assert.ok(socketCount() > sockets, 'connected');
    await c.disconnect();
    assert.equal(f.state.sessions.size, 0, 'the session was deleted');
    await waitFor(() => f.state.openGetStreams === 0, { message: 'the GET stream to close' });
    await waitFor(() => socketCount() <= sockets, { timeoutMs: 5000, message: `sockets back to ${sockets} (now ${socketCount()})` });
  } finally {
    await f.close();
  }
});

test('faults/http: a client per request leaves sockets, descriptors, threads and the heap flat, and is collected', { skip: !onLinux && 'needs /proc' }, async () => {
  const cycle = async (i) => {
    const c = newClient({ once: { url: new URL(fx.mcpUrl) } });
    const tools = await c.listTools();
    assert.equal((await tools.once_echo.execute({ message: `m${i}` }, {})).content[0].text, `Echo: m${i}`);
    await c.disconnect();
    fx.requests.length = 0; // the fixture's own request log is not the client's memory
    fx.state.deletedSessions.length = 0;
    return new WeakRef(c);
  };
  for (let i = 0; i < 20; i++) await cycle(i); // warm-up
  gc();
  const sockets = socketCount();
  const fds = fdCount();
  const threads = threadCount();
  const heap = process.memoryUsage().heapUsed;
  const refs = [];
  for (let i = 0; i < 200; i++) refs.push(await cycle(i));
  // Idle keep-alive connections of the process's shared pool may stay (a few, closed after 30 s idle); 200
  // clients that each kept one would show here as 200.
  const pooled = 4;
  await waitFor(() => socketCount() <= sockets + pooled, { timeoutMs: 5000, message: `sockets back to ${sockets} (+${pooled} pooled; now ${socketCount()})` });
  await waitFor(() => fdCount() <= fds + pooled, { timeoutMs: 5000, message: `descriptors back to ${fds} (+${pooled} pooled; now ${fdCount()})` });
  assert.ok(threadCount() <= threads + 2, `threads flat (${threads} → ${threadCount()})`);
  await waitFor(
    () => {
      gc();
      return refs.every((r) => r.deref() === undefined);
    },
    { timeoutMs: 10000, message: 'disconnected clients to be collected' },
  );
  gc();
  const grown = (process.memoryUsage().heapUsed - heap) / 1e6;
  assert.ok(grown < 10, `JS heap flat after 200 clients (+${grown.toFixed(1)} MB)`);
});

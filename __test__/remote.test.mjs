// Remote servers over real HTTP: Streamable HTTP, legacy SSE, the fallback rules, custom fetch
// and the allowedHosts policy, against our fixture server and server-everything.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RequestContext } from '@mastra/core/request-context';
import { MastraError } from '@mastra/core/error';
import { InternalMastraMCPClient, MCPClient } from '../index.mjs';
import { startHttpFixture } from './fixtures/http-server.mjs';
import { waitFor } from './fixtures/helpers.mjs';

let a; // main fixture
let b; // a second origin
before(async () => {
  [a, b] = await Promise.all([startHttpFixture(), startHttpFixture()]);
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await Promise.all([a?.close(), b?.close()]);
});
let n = 0;
function client(def, extra = {}) {
  const c = new MCPClient({ id: `remote-${n++}`, servers: { r: def }, ...extra });
  clients.push(c);
  return c;
}
function clientOf(servers) {
  const c = new MCPClient({ id: `remote-${n++}`, servers });
  clients.push(c);
  return c;
}
const hostOf = (f) => new URL(f.url).host;
const reached = (f, pathPrefix) => f.requests.filter((r) => r.path.startsWith(pathPrefix));

test('streamable: tools, sessionIds, headers on POST and GET; disconnect closes the GET stream, then sends DELETE', async () => {
  const c = client({ url: new URL(a.mcpUrl), requestInit: { headers: { 'X-Custom': 'hello' } } });
  const tools = await c.listTools();
  assert.deepEqual((await tools.r_echo.execute({ message: 'x' }, {})).content, [{ type: 'text', text: 'Echo: x' }]);
  const sessionId = c.sessionIds.r;
  assert.ok(sessionId && a.state.sessions.has(sessionId), 'sessionIds reports the live session');
  await waitFor(() => a.requests.some((r) => r.method === 'GET' && r.path === '/mcp'), { message: 'GET listener opened' });
  for (const r of a.requests.filter((r) => r.path === '/mcp')) assert.equal(r.headers['x-custom'], 'hello', `${r.method} carries requestInit headers`);
  await c.disconnect();
  await waitFor(() => a.state.deletedSessions.includes(sessionId), { message: 'DELETE sent with the session id' });
  // The DELETE came after the GET stream had closed (FastMCP on mcp 1.x logs a traceback otherwise).
  assert.deepEqual(a.state.streamsOpenAtDelete.slice(-1), [0]);
  assert.deepEqual(c.sessionIds, {});
});

test('streamable: a server notification on the GET stream reaches the handler', async () => {
  const c = client({ url: a.mcpUrl });
  let changed = 0;
  await c.tools.onListChanged('r', () => changed++);
  await waitFor(() => a.state.openGetStreams > 0, { message: 'GET stream open' });
  a.notify('notifications/tools/list_changed', {});
  await waitFor(() => changed === 1, { message: 'list_changed delivered' });
});

test('streamable: a 405 on the GET listener is quiet (no reconnect storm) and requests still work', async () => {
  const f = await startHttpFixture({ getStream: false, sse: true });
  try {
    const c = client({ url: f.mcpUrl });
    const tools = await c.listTools();
    await tools.r_echo.execute({ message: 'y' }, {});
    await new Promise((r) => setTimeout(r, 300));
    const gets = f.requests.filter((r) => r.method === 'GET').length;
    assert.ok(gets <= 1, `GET retried ${gets} times`);
  } finally {
    await f.close();
  }
});

test('streamable: an expired session re-initializes and the call runs exactly once', async () => {
  const c = client({ url: a.mcpUrl });
  const tools = await c.listTools();
  const before = a.state.executions;
  a.expireSessions();
  const out = await tools.r_count.execute({}, {});
  assert.equal(a.state.executions, before + 1, 'executed once');
  assert.equal(out.content[0].text, String(before + 1));
});

// Session expiry and cancellation behave the same whatever carries the bytes (the built-in client or a
// user's fetch) and whichever client class makes the call.
const carriers = { 'built-in HTTP': () => ({}), 'a user fetch': () => ({ fetch: (url, init) => fetch(url, init) }) };
const classes = {
  MCPClient: async (def) => {
    const tools = await client(def).listTools();
    return (name) => tools[`r_${name}`];
  },
  InternalMastraMCPClient: async (def) => {
    const c = new InternalMastraMCPClient({ name: 'r', server: def });
    clients.push(c);
    await c.connect();
    const tools = await c.tools();
    return (name) => tools[name];
  },
};
const posted = (f, method) => f.requests.filter((r) => r.method === 'POST' && r.body?.includes(`"method":"${method}"`));
for (const [kind, make] of Object.entries(classes)) {
  for (const [carrier, carry] of Object.entries(carriers)) {
    test(`expiry through ${kind} over ${carrier}: an expired session re-initializes and the call runs exactly once`, async () => {
      const tool = await make({ url: new URL(a.mcpUrl), ...carry() });
      const before = a.state.executions;
      a.expireSessions();
      const out = await tool('count').execute({}, {});
      assert.equal(a.state.executions, before + 1, 'executed once');
      assert.equal(out.content[0].text, String(before + 1));
    });

    test(`cancellation through ${kind} over ${carrier}: an aborted call ends with its reason and the server is told`, async () => {
      const tool = await make({ url: new URL(a.mcpUrl), ...carry() });
      const cancelledBefore = posted(a, 'notifications/cancelled').length;
      const slowBefore = a.requests.filter((r) => r.body?.includes('"name":"slow"')).length;
      const ac = new AbortController();
      const call = tool('slow').execute({ ms: 60000 }, { abortSignal: ac.signal });
      await waitFor(() => a.requests.filter((r) => r.body?.includes('"name":"slow"')).length > slowBefore, { message: 'the call reached the server' });
      ac.abort('the user pressed stop');
      await assert.rejects(call, (e) => /the user pressed stop/.test(`${e.message} ${e.cause?.message ?? ''}`));
      await waitFor(() => posted(a, 'notifications/cancelled').length > cancelledBefore, { message: 'notifications/cancelled reached the server' });
      assert.equal((await tool('echo').execute({ message: 'after' }, {})).content[0].text, 'Echo: after', 'the session stays usable');
    });
  }
}

test('sse: a /sse url speaks the legacy transport: tools, resources, prompts', async () => {
  const c = client({ url: a.sseUrl });
  const tools = await c.listTools();
  assert.equal((await tools.r_echo.execute({ message: 'legacy' }, {})).content[0].text, 'Echo: legacy');
  const read = await c.resources.read('r', 'fixture://http/1');
  assert.ok(read.contents.length > 0);
  const prompt = await c.prompts.get({ serverName: 'r', name: 'hello' });
  assert.ok(prompt.messages.length > 0);
  assert.equal(reached(a, '/sse').length >= 1, true);
  assert.deepEqual(c.sessionIds, {}, 'SSE sessions are not listed');
});

test('fallback: 404 on POST falls back to SSE; both causes are kept when SSE fails too', async () => {
  const c = client({ url: `${a.url}/status/404`, timeout: 2000 });
  const r = await c.listToolsWithErrors();
  assert.match(r.errors.r, /Could not connect to server with any available HTTP transport/);
  assert.match(r.errors.r, /Streamable HTTP: HTTP 404/);
  assert.match(r.errors.r, /SSE: HTTP 404/);
  assert.equal(r.errorDetails.r.httpStatus, 404);
  // The default opens with the handshake (as @mastra/mcp 1.18), then the SSE stream.
  const steps = reached(a, '/status/404').map((x) => (x.method === 'POST' ? JSON.parse(x.body).method : x.method));
  assert.deepEqual(steps.slice(0, 2), ['initialize', 'GET']);
});

test('fallback: 401, 403 and 500 do not fall back and report the status', async () => {
  for (const status of [401, 403, 500]) {
    const c = client({ url: `${a.url}/status/${status}` });
    const r = await c.listToolsWithErrors();
    assert.equal(r.errorDetails.r.httpStatus, status, r.errors.r);
    assert.ok(!reached(a, `/status/${status}`).some((x) => x.method === 'GET'), `no SSE attempt after ${status}`);
  }
});

test('bounded: a black hole and a stream that never sends endpoint fail within the timeouts', { timeout: 60000 }, async () => {
  for (const path of ['/blackhole', '/sse-no-endpoint']) {
    const c = client({ url: `${a.url}${path}`, connectTimeout: 500, timeout: 800 });
    const r = await c.listToolsWithErrors();
    // The error names the configured wait that ended it (the test's own timeout bounds the rest).
    assert.match(r.errors.r, /^Failed to connect to MCP server r: .*timed out after (500|800) ms/i, r.errors.r);
  }
});

test('bad servers: HTML instead of JSON and a cross-origin SSE endpoint give clear errors', async () => {
  const html = await client({ url: `${a.url}/html`, timeout: 1500 }).listToolsWithErrors();
  assert.match(html.errors.r, /text\/html/);
  const evil = await client({ url: `${a.url}/sse-malformed`, timeout: 1500 }).listToolsWithErrors();
  assert.match(evil.errors.r, /another origin/);
});

test('allowedHosts: [] denies everything and no request is sent', async () => {
  const f = await startHttpFixture();
  try {
    const c = client({ url: f.mcpUrl, allowedHosts: [] });
    const r = await c.listToolsWithErrors();
    assert.equal(
      r.errors.r,
      `Host "${hostOf(f)}" is blocked by the allowedHosts policy. Allowed hosts: (empty list — all hosts are denied). The request was not sent.`,
    );
    assert.equal(r.errorDetails.r.code, 'MCP_CLIENT_HOST_NOT_ALLOWED');
    assert.equal(f.requests.length, 0);
  } finally {
    await f.close();
  }
});

test('allowedHosts: redirects are followed hop by hop; a hop to a forbidden host is never sent', async () => {
  const ok = client({ url: `${a.url}/redirect/307/2?to=/mcp`, allowedHosts: [hostOf(a).toUpperCase()] });
  const tools = await ok.listTools();
  assert.ok(tools.r_echo, 'a 307 chain on an allowed host works');

  const before = b.requests.length;
  const blocked = client({ url: `${a.url}/redirect/307/0?to=${encodeURIComponent(b.mcpUrl)}`, allowedHosts: [hostOf(a)] });
  const r = await blocked.listToolsWithErrors();
  assert.match(r.errors.r, new RegExp(`Host "${hostOf(b)}" is blocked by the allowedHosts policy.*A redirect from "${hostOf(a)}" pointed at it; the hop was not followed\\.`));
  assert.equal(b.requests.length, before, 'nothing reached the forbidden host');
});

test('redirects: loops stop after 5 hops; a missing Location is an error; Authorization is dropped across origins', async () => {
  const loopBefore = reached(a, '/redirect-loop').length;
  const loop = await client({ url: `${a.url}/redirect-loop`, allowedHosts: [hostOf(a)] }).listToolsWithErrors();
  assert.equal(loop.errorDetails.r.code, 'MCP_CLIENT_TOO_MANY_REDIRECTS');
  assert.equal(reached(a, '/redirect-loop').length - loopBefore, 6, 'six requests sent');
  const missing = await client({ url: `${a.url}/redirect-missing-location` }).listToolsWithErrors();
  assert.equal(missing.errorDetails.r.code, 'MCP_CLIENT_REDIRECT_MISSING_LOCATION');

  const cross = client({
    url: `${a.url}/redirect/307/0?to=${encodeURIComponent(b.mcpUrl)}`,
    requestInit: { headers: { Authorization: 'Bearer secret-token' } },
  });
  await cross.listTools();
  const atB = b.requests.filter((x) => x.path === '/mcp');
  assert.ok(atB.length > 0);
  // The first hop to B came from a redirect and must not carry A's credentials.
  assert.equal(atB[0].headers.authorization, undefined);
});

test('custom fetch: called for every request with (url, init, requestContext); context only inside execute', async () => {
  const calls = [];
  const c = client({
    url: a.mcpUrl,
    fetch: async (url, init, requestContext) => {
      calls.push({ url: String(url), method: init.method, rc: requestContext });
      return fetch(url, init);
    },
  });
  const tools = await c.listTools();
  assert.ok(calls.length > 0 && calls.every((x) => x.rc === null), 'null outside tool execution');
  const rc = new RequestContext();
  rc.set('user', 'alice');
  const mark = calls.length;
  const out = await tools.r_echo.execute({ message: 'via fetch' }, { requestContext: rc });
  assert.equal(out.content[0].text, 'Echo: via fetch');
  const during = calls.slice(mark).filter((x) => x.method === 'POST');
  assert.ok(during.some((x) => x.rc === rc), 'the tool call POST carried the RequestContext instance');
  // The session's GET stream goes out once something needs it (a list-changed handler here).
  await c.tools.onListChanged('r', () => {});
  assert.ok(calls.some((x) => x.method === 'GET'), 'the GET stream went through the custom fetch too');
});

test('custom fetch: a throwing fetch gives a clear error; a fetch that followed a redirect to a forbidden host is refused', async () => {
  const broken = await client({ url: a.mcpUrl, fetch: () => { throw new Error('network down'); } }).listToolsWithErrors();
  assert.match(broken.errors.r, /network down/);
  const redirected = await client({
    url: `${a.url}/redirect/307/0?to=${encodeURIComponent(b.mcpUrl)}`,
    allowedHosts: [hostOf(a)],
    fetch: (url, init) => fetch(url, init),
  }).listToolsWithErrors();
  assert.match(redirected.errors.r, /A custom fetch implementation followed a redirect to this host; the response was discarded\./);
  assert.equal(redirected.errorDetails.r.code, 'MCP_CLIENT_HOST_NOT_ALLOWED');
});

test('errors from policy refusals are MastraErrors with the anchor ids', async () => {
  const c = client({ url: a.mcpUrl, allowedHosts: ['nowhere.invalid'] });
  await assert.rejects(c.resources.read('r', 'x://y'), (e) => e instanceof MastraError);
});

test('streamable: JSON responses larger than 16 MiB arrive whole', async () => {
  const c = client({ url: a.mcpUrl, timeout: 60000 });
  const tools = await c.listTools();
  const big = 'x'.repeat(17 * 1024 * 1024);
  const out = await tools.r_echo.execute({ message: big }, {});
  assert.equal(out.content[0].text.length, big.length + 'Echo: '.length);
});

test('sse: eventSourceInit.fetch serves the event-stream GET; requestInit headers reach it too', async () => {
  const streamGets = [];
  const c = client({
    url: a.sseUrl,
    requestInit: { headers: { 'X-Custom': 'sse-header' } },
    eventSourceInit: {
      fetch: (url, init) => {
        streamGets.push(new Headers(init.headers).get('x-custom'));
        return fetch(url, init);
      },
    },
  });
  const tools = await c.listTools();
  assert.equal((await tools.r_echo.execute({ message: 'es' }, {})).content[0].text, 'Echo: es');
  assert.deepEqual(streamGets, ['sse-header'], 'the GET stream went through eventSourceInit.fetch with the headers');
});

test('sse: a message that is not JSON-RPC is skipped; the session keeps working', async () => {
  const c = client({ url: `${a.url}/sse-garbage` });
  const tools = await c.listTools();
  assert.equal((await tools.r_echo.execute({ message: 'after garbage' }, {})).content[0].text, 'Echo: after garbage');
});

test("era probe ('auto'): a handshake-era server that answers server/discover with HTTP 500 still gets the handshake", async () => {
  const f = await startHttpFixture({ preInitStatus: 500 });
  try {
    const c = client({ url: f.mcpUrl, protocolVersion: 'auto' });
    const tools = await c.listTools();
    assert.deepEqual((await tools.r_echo.execute({ message: 'after 500' }, {})).content, [{ type: 'text', text: 'Echo: after 500' }]);
    assert.deepEqual(c.getServerProtocolVersions(), { r: '2025-11-25' });
    const posts = f.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body).method);
    assert.deepEqual(posts.slice(0, 2), ['server/discover', 'initialize']);
    await c.disconnect();
  } finally {
    await f.close();
  }
});

test('an SSE-only URL (ending in /sse) that never answers fails after `timeout`, not the longer connect timeout', async () => {
  const c = clientOf({ hole: { url: new URL(`${a.url}/blackhole/sse`), timeout: 1500, connectTimeout: 6000 } });
  const { errors } = await c.listToolsWithErrors();
  assert.match(errors.hole, /1500 ms/, errors.hole);
  assert.doesNotMatch(errors.hole, /6000 ms/);
});

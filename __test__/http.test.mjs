// Transport parity: the same server (server-everything) over stdio, Streamable HTTP and legacy
// SSE gives the same tools, tool results, resources and prompts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MCPClient } from '../index.mjs';
import { startEverythingHttp, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
let streamable;
let sse;
before(async () => {
  [streamable, sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await Promise.all([streamable?.stop(), sse?.stop()]);
});

async function snapshot(def, label) {
  const c = new MCPClient({ id: `parity-${label}`, servers: { ev: def } });
  clients.push(c);
  const tools = await c.listTools();
  const echo = await tools.ev_echo.execute({ message: 'same everywhere' }, {});
  const sum = await tools['ev_get-sum'].execute({ a: 2, b: 3 }, {});
  const resources = await c.resources.list();
  const first = resources.ev.find((r) => r.mimeType === 'text/plain') ?? resources.ev[0];
  const read = await c.resources.read('ev', first.uri);
  const prompts = await c.prompts.list();
  const simple = prompts.ev.find((p) => !p.arguments?.some((arg) => arg.required));
  const prompt = await c.prompts.get({ serverName: 'ev', name: simple.name });
  return {
    tools: Object.keys(tools).sort(),
    echo,
    sum,
    resource: { uri: first.uri, contents: read.contents },
    prompt: { name: simple.name, messages: prompt.messages },
  };
}

test('parity: listTools, execute, resources.read and prompts.get are identical over stdio, Streamable HTTP and SSE', async () => {
  const overStdio = await snapshot({ command: nodeBin, args: [everythingEntry, 'stdio'] }, 'stdio');
  const overHttp = await snapshot({ url: new URL(streamable.url) }, 'http');
  const overSse = await snapshot({ url: sse.url }, 'sse');
  assert.deepEqual(overStdio.echo.content, [{ type: 'text', text: 'Echo: same everywhere' }]);
  assert.deepEqual(overHttp, overStdio);
  assert.deepEqual(overSse, overStdio);
});

test('fallback: a URL that is not /sse first tries Streamable HTTP, then falls back to SSE', async () => {
  const url = `${sse.url}/`; // ends with "/sse/": POST is refused, the SSE GET works
  const c = new MCPClient({ id: 'parity-fallback', servers: { ev: { url } } });
  clients.push(c);
  const tools = await c.listTools();
  assert.equal((await tools.ev_echo.execute({ message: 'fell back' }, {})).content[0].text, 'Echo: fell back');
  assert.deepEqual(c.sessionIds, {}, 'connected over SSE, not Streamable HTTP');
});

test('http: a refused connection fails within the connect timeout, naming the server', { timeout: 60000 }, async () => {
  const c = new MCPClient({ id: 'parity-refused', servers: { remote: { url: 'http://127.0.0.1:9/mcp', connectTimeout: 1000, timeout: 1000 } } });
  clients.push(c);
  const r = await c.listToolsWithErrors();
  assert.match(r.errors.remote, /^Failed to connect to MCP server remote: Could not connect to server with any available HTTP transport/);
});

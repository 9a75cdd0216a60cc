// Streamable HTTP against server-everything on loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient } from '../index.mjs';
import { startEverythingHttp } from './fixtures/helpers.mjs';

let server;
const clients = [];
before(async () => {
  server = await startEverythingHttp('streamableHttp');
});
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await server?.stop();
});
let n = 0;
const client = (def) => {
  const c = new MCPClient({ id: `http-${n++}`, servers: { remote: def } });
  clients.push(c);
  return c;
};

test('http: listTools, execute, resources.read and prompts.get over Streamable HTTP (URL or string url)', async () => {
  for (const url of [new URL(server.url), server.url]) {
    const c = client({ url });
    const tools = await c.listTools();
    const out = await tools.remote_echo.execute({ message: 'over http' }, {});
    assert.deepEqual(out.content, [{ type: 'text', text: 'Echo: over http' }]);
    const resources = await c.resources.list();
    assert.ok(resources.remote.length > 0);
    const read = await c.resources.read('remote', resources.remote[0].uri);
    assert.ok(read.contents.length > 0);
    const prompts = await c.prompts.list();
    const simple = prompts.remote.find((p) => !p.arguments?.some((a) => a.required));
    const got = await c.prompts.get({ serverName: 'remote', name: simple.name });
    assert.ok(got.messages.length > 0);
    await c.disconnect();
  }
});

test('http: a refused connection fails within the connect timeout, naming the server', async () => {
  const c = client({ url: 'http://127.0.0.1:9/mcp', connectTimeout: 1000 });
  const started = Date.now();
  const r = await c.listToolsWithErrors();
  assert.ok(Date.now() - started < 5000);
  assert.match(r.errors.remote, /^Failed to connect to MCP server remote: /);
});

test('http: options that are not supported yet are refused by name, never ignored', async () => {
  const c = client({ url: server.url, allowedHosts: ['example.com'] });
  const r = await c.listToolsWithErrors();
  assert.match(r.errors.remote, /allowedHosts/);
});

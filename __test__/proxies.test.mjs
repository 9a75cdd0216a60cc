// Server proxies: `toMCPServerProxies()` (MCPServerBase objects that list and execute remote tools and read
// resources) and MCPClientServerProxy built as @mastra/mcp builds it, over an InternalMastraMCPClient getter.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MCPServerBase } from '@mastra/core/mcp';
import { MCPClient, MCPClientServerProxy, InternalMastraMCPClient } from '../index.mjs';
import { stdioFixtureServer, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const clients = [];
after(async () => Promise.all(clients.map((c) => c.disconnect().catch(() => {}))));
let n = 0;
const client = (servers, extra = {}) => {
  const c = new MCPClient({ id: `proxies-${n++}`, servers, ...extra });
  clients.push(c);
  return c;
};

test('toMCPServerProxies: proxies list and execute remote tools and read resources', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const proxies = c.toMCPServerProxies();
  assert.ok(proxies.fx instanceof MCPServerBase);
  const info = await proxies.fx.getToolListInfo();
  const cwd = info.tools.find((t) => t.id === 'cwd');
  assert.equal(cwd.name, 'fx_cwd');
  const out = await proxies.fx.executeTool('cwd', {});
  assert.equal(out.content[0].text, process.cwd());
  await assert.rejects(proxies.fx.executeTool('nope', {}), /Tool 'nope' not found on remote MCP server 'fx'/);
  const res = await proxies.fx.listResources();
  assert.equal(res.resources.length, 5);
  const read = await proxies.fx.readResource('fixture://r/1');
  assert.equal(read.contents[0].uri, 'fixture://r/1');
  await assert.rejects(proxies.fx.startStdio(), /does not support stdio transport/);
});

test('MCPClientServerProxy built as @mastra/mcp builds it, over an InternalMastraMCPClient getter', async () => {
  const internal = new InternalMastraMCPClient({ name: 'ev', server: { command: nodeBin, args: [everythingEntry, 'stdio'] } });
  clients.push(internal);
  const proxy = new MCPClientServerProxy({ name: 'ev' }, async () => internal);
  const { resources } = await proxy.listResources();
  assert.ok(resources.length > 0, 'resources listed through the internal client');
  const read = await proxy.readResource(resources[0].uri);
  assert.ok(read.contents.length > 0 && read.contents[0].uri, JSON.stringify(read));
  const list = await proxy.getToolListInfo();
  assert.ok(list.tools.some((t) => t.id === 'echo'), JSON.stringify(list.tools.map((t) => t.id)));
  assert.match(JSON.stringify(await proxy.executeTool('echo', { message: 'via proxy' })), /Echo: via proxy/);

  // An answer without `contents` reads as none, as in @mastra/mcp.
  const bare = new MCPClientServerProxy({ name: 'bare' }, async () => ({ resources: { read: async () => ({}) } }));
  assert.deepEqual(await bare.readResource('x://y'), { contents: [] });
});

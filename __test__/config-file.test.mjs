// MCPClient.fromConfigFile / fromConfig with each editor's config format, against
// server-everything over stdio, Streamable HTTP and SSE.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { MCPClient, MCPConfigError, parseMCPConfig, readMCPConfigFile } from '../index.mjs';
import { nodeBin, startEverythingHttp } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingPkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
const EV_ENTRY = path.join(path.dirname(everythingPkg), JSON.parse(fs.readFileSync(everythingPkg, 'utf8')).bin['mcp-server-everything']);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-config-'));
let http;
let sse;
const clients = [];

before(async () => {
  [http, sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
});

after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await Promise.all([http?.stop(), sse?.stop()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

function write(rel, content) {
  const file = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

async function echoVia(client, server) {
  const tools = await client.listTools();
  const echo = tools[`${server}_echo`];
  assert.ok(echo, `${server}_echo is listed (got ${Object.keys(tools).slice(0, 5).join(', ')}…)`);
  const result = await echo.execute({ message: `hi ${server}` }, {});
  assert.match(result.content[0].text, new RegExp(`hi ${server}`));
}

test('fromConfigFile: Claude Desktop claude_desktop_config.json (stdio; disabled entries left out)', async () => {
  const file = write('claude/claude_desktop_config.json', {
    mcpServers: {
      ev: { command: nodeBin, args: [EV_ENTRY, 'stdio'], env: { LITERAL: '${NOT_EXPANDED}' } },
      off: { command: 'does-not-exist', disabled: true },
    },
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((sig) => process.listenerCount(sig));
  const parsed = await readMCPConfigFile(file);
  assert.equal(parsed.format, 'claude-desktop');
  assert.deepEqual(parsed.disabled, ['off']);
  assert.equal(parsed.servers.ev.env.LITERAL, '${NOT_EXPANDED}', 'Claude Desktop defines no variables');
  const client = await MCPClient.fromConfigFile(file, { id: 'cfg-claude-desktop' });
  clients.push(client);
  assert.deepEqual(Object.keys(client.serverConfigs), ['ev']);
  await echoVia(client, 'ev');
  assert.deepEqual(['SIGINT', 'SIGTERM', 'SIGHUP'].map((sig) => process.listenerCount(sig)), signals, 'the library installs no signal listeners');
});

test('fromConfigFile: Claude Code .mcp.json (${VAR}, ${VAR:-default}, stdio and http)', async () => {
  const file = write('proj/.mcp.json', {
    mcpServers: {
      local: { type: 'stdio', command: '${NODE_BIN}', args: ['${EV_ENTRY}', '${EV_MODE:-stdio}'] },
      web: { type: 'http', url: '${EV_URL}', headers: { 'X-Trace': 'cc-${TRACE:-none}' } },
    },
  });
  const env = { NODE_BIN: nodeBin, EV_ENTRY, EV_URL: http.url };
  const client = await MCPClient.fromConfigFile(file, { id: 'cfg-claude-code', env });
  clients.push(client);
  assert.equal(client.serverConfigs.web.requestInit.headers['X-Trace'], 'cc-none');
  await echoVia(client, 'local');
  await echoVia(client, 'web');
});

test('fromConfigFile: Cursor .cursor/mcp.json (${env:VAR}, ${workspaceFolder}, url with headers)', async () => {
  const file = write('cursorproj/.cursor/mcp.json', {
    mcpServers: {
      web: { url: http.url, headers: { Authorization: 'Bearer ${env:CURSOR_TOKEN}' } },
      local: { command: nodeBin, args: [EV_ENTRY, 'stdio'], cwd: '${workspaceFolder}' },
    },
  });
  const client = await MCPClient.fromConfigFile(file, { id: 'cfg-cursor', env: { CURSOR_TOKEN: 't0k' } });
  clients.push(client);
  assert.equal(client.serverConfigs.web.requestInit.headers.Authorization, 'Bearer t0k');
  assert.equal(client.serverConfigs.local.cwd, path.join(tmp, 'cursorproj'));
  await echoVia(client, 'web');
  await echoVia(client, 'local');
});

test('fromConfigFile: VS Code .vscode/mcp.json (servers, type sse, inputs, comments)', async () => {
  const text = `{
    // VS Code's mcp.json is JSON with comments
    "inputs": [
      { "type": "promptString", "id": "api-key", "description": "API key", "password": true },
    ],
    "servers": {
      "legacy": { "type": "sse", "url": "${sse.url}", "headers": { "X-Key": "\${input:api-key}" } },
      "local": { "type": "stdio", "command": "${nodeBin}", "args": ["${EV_ENTRY}", "stdio"] },
    },
  }`;
  const file = write('vsproj/.vscode/mcp.json', text);
  await assert.rejects(MCPClient.fromConfigFile(file, { env: {} }), (e) => {
    assert.ok(e instanceof MCPConfigError);
    assert.equal(e.reason, 'MISSING_INPUT');
    assert.equal(e.server, 'legacy');
    assert.equal(e.field, 'headers.X-Key');
    assert.equal(e.message, `${file}: server "legacy": headers.X-Key: input "api-key" has no value: pass it in options.inputs or set MCP_INPUT_API_KEY`);
    return true;
  });
  const fromEnv = await readMCPConfigFile(file, { env: { MCP_INPUT_API_KEY: 'env-key' } });
  assert.equal(fromEnv.servers.legacy.requestInit.headers['X-Key'], 'env-key');
  assert.deepEqual(fromEnv.transports, { legacy: 'sse', local: 'stdio' });
  const client = await MCPClient.fromConfigFile(file, { id: 'cfg-vscode', inputs: { 'api-key': 'k' } });
  clients.push(client);
  assert.equal(client.serverConfigs.legacy.requestInit.headers['X-Key'], 'k');
  await echoVia(client, 'legacy');
  await echoVia(client, 'local');
});

test('fromConfigFile: Windsurf mcp_config.json (serverUrl, ${env:VAR})', async () => {
  const file = write('home/.codeium/windsurf/mcp_config.json', {
    mcpServers: { web: { serverUrl: '${env:WS_URL}' }, local: { command: nodeBin, args: [EV_ENTRY, 'stdio'] } },
  });
  const parsed = await readMCPConfigFile(file, { env: { WS_URL: http.url } });
  assert.equal(parsed.format, 'windsurf');
  const client = await MCPClient.fromConfigFile(file, { id: 'cfg-windsurf', env: { WS_URL: http.url } });
  clients.push(client);
  await echoVia(client, 'web');
});

test('fromConfig: an object, with timeout and per-server overrides merged', async () => {
  const client = MCPClient.fromConfig(
    { mcpServers: { ev: { command: nodeBin, args: [EV_ENTRY, 'stdio'] } } },
    { id: 'cfg-object', timeout: 12345, servers: { ev: { requireToolApproval: true, timeout: 5000 } } },
  );
  clients.push(client);
  assert.ok(client instanceof MCPClient);
  assert.equal(client.defaultTimeout, 12345);
  assert.equal(client.serverConfigs.ev.requireToolApproval, true);
  assert.equal(client.serverConfigs.ev.timeout, 5000);
  const tools = await client.listTools();
  assert.equal(tools.ev_echo.requireApproval, true, 'the override reaches the tools');
  assert.throws(
    () => MCPClient.fromConfig({ mcpServers: { ev: { command: 'x' } } }, { servers: { nope: { timeout: 1 } } }),
    (e) => e instanceof MCPConfigError && e.message === 'MCP config: options.servers.nope: server "nope" is not in the file',
  );
});

test('broken files give one line naming the file, the server and the field', async () => {
  const syntax = write('broken/mcp.json', '{\n  "mcpServers": {\n    "a": { "command": "x", }\n  \n');
  await assert.rejects(MCPClient.fromConfigFile(syntax), (e) => {
    assert.ok(e instanceof MCPConfigError);
    assert.equal(e.reason, 'SYNTAX');
    assert.match(e.message, new RegExp(`^${syntax.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:\\d+: invalid JSON: `));
    assert.ok(!e.message.includes('\n'));
    return true;
  });
  await assert.rejects(MCPClient.fromConfigFile(path.join(tmp, 'missing.json')), (e) => e.reason === 'READ_FAILED' && /missing\.json: cannot read the file \(ENOENT\)/.test(e.message));
  assert.throws(
    () => parseMCPConfig({ mcpServers: { s: { command: 'x', args: ['ok', 7, { no: 1 }] } } }),
    (e) => e.message === 'MCP config: server "s": args[2]: must be a string, got an object' && e.server === 's' && e.field === 'args[2]',
  );
  assert.throws(() => parseMCPConfig({ mcpServers: { s: { url: 'http://x', type: 'websocket' } } }), /server "s": type: must be one of stdio, http, streamable-http, sse; got "websocket"/);
  assert.throws(() => parseMCPConfig({ tools: {} }, { label: 'my.json' }), /^MCPConfigError: my\.json: no "mcpServers" or "servers" object at the top level$/);
  assert.throws(() => parseMCPConfig({ mcpServers: {} }, { format: 'zed' }), /unknown format "zed"/);
});

// Tools that fit the model and the job (docs/typed-tools.md, "Tool names and filters"): the names handed to
// Mastra match ^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$ and are unique across the client's servers, a Mastra Agent
// takes them without rewriting (no AGENT_TOOL_NAME_COLLISION), the server is called by its own names, and
// the same names come out in another process; per-server `tools: { include, exclude }` globs over stdio,
// Streamable HTTP and in an mcp.json. Against fixtures/tool-names-server.mjs (the TypeScript SDK's McpServer).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { Agent } from '@mastra/core/agent';
import { MockLanguageModelV2 } from 'ai/test';
import { MCPClient, InternalMastraMCPClient } from '../index.mjs';
import { fixturePath, nodeBin, startUrlServer, tmpFile } from './fixtures/helpers.mjs';
import { LONG_A, LONG_B } from './fixtures/tool-names-server.mjs';

const FITS = /^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$/;
const server = fixturePath('tool-names-server.mjs');
const stdio = (extra = {}, env = {}) => ({ command: nodeBin, args: [server, 'stdio'], env, ...extra });

const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});
let nextId = 0;
function client(servers, options = {}) {
  const c = new MCPClient({ id: `tool-fit-${nextId++}`, servers, ...options });
  cleanups.push(() => c.disconnect());
  return c;
}

// One HTTP server for the file: its start is shared, so two callers never start two.
let http;
async function httpUrl() {
  if (!http) {
    http = startUrlServer('tool-names fixture (HTTP)', nodeBin, [server, 'http']);
    cleanups.unshift(async () => (await http).stop());
  }
  return new URL((await http).url);
}

/** A model that calls `toolCalls` (names as offered) one turn each, then answers; records what it was offered. */
function scriptedModel(toolCalls) {
  const offered = [];
  let turn = 0;
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const model = new MockLanguageModelV2({
    doGenerate: async (options) => {
      offered.push(...(options.tools ?? []).map((t) => t.name));
      const name = toolCalls[turn];
      turn += 1;
      if (name === undefined) return { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage, warnings: [] };
      return { content: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: name, input: '{}' }], finishReason: 'tool-calls', usage, warnings: [] };
    },
  });
  return { model, offered };
}

test('names: a dotted name beside its twin and two long names sharing 70 characters fit, stay unique, and reach the server as they are', async () => {
  const c = client({ gh: stdio() });
  const tools = await c.listTools();
  const keys = Object.keys(tools);
  for (const k of keys) assert.match(k, FITS);
  // A name that fits is kept as it was; the others are mapped.
  assert.ok(keys.includes('gh_github_create_issue'), 'the twin that fits keeps its name');
  assert.ok(keys.includes('gh_get_user'));
  const dotted = keys.find((k) => k.startsWith('gh_github_create_issue_'));
  assert.match(dotted, /^gh_github_create_issue_[0-9a-f]{8}$/);
  const long = keys.filter((k) => k.startsWith('gh_aaaa'));
  assert.equal(long.length, 2);
  assert.notEqual(long[0], long[1]);
  for (const k of long) assert.equal(k.length, 63);
  // The tool's id is its name; the definitions and toolsets keep the server's own names.
  assert.equal(tools[dotted].id, dotted);
  const definitions = await c.listToolDefinitions();
  assert.ok(definitions.gh['github.create_issue']);
  assert.equal(definitions.gh[LONG_A].name, LONG_A);
  const toolsets = await c.listToolsets();
  assert.equal(toolsets.gh['github.create_issue'].id, dotted);

  // Through an Agent: nothing to rewrite, so no collision; every call reaches the server by its own name.
  const { model, offered } = scriptedModel([dotted, 'gh_github_create_issue', ...long]);
  const agent = new Agent({ id: 'names', name: 'names', instructions: 'test', model, tools });
  const result = await agent.generate('go');
  assert.equal(result.text, 'done');
  assert.ok(offered.length > 0);
  for (const name of offered) assert.match(name, FITS);
  const texts = (result.steps ?? []).flatMap((s) => s.toolResults ?? []).map((r) => (r.payload?.result ?? r.output ?? r.result)?.content?.[0]?.text);
  assert.deepEqual(texts.sort(), ['called github.create_issue', 'called github_create_issue', `called ${LONG_A}`, `called ${LONG_B}`].sort());
});

test('names: another process names the same tools the same', async () => {
  const here = Object.keys(await client({ gh: stdio() }).listTools()).sort();
  const script = `
    const { MCPClient } = await import(${JSON.stringify(new URL('../index.mjs', import.meta.url).href)});
    const c = new MCPClient({ servers: { gh: ${JSON.stringify(stdio())} } });
    console.log(JSON.stringify(Object.keys(await c.listTools()).sort()));
    await c.disconnect();`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout.trim().split('\n').pop()), here);
});

test('names: cached definitions hydrate under the names a listing gives', async () => {
  const c = client({ gh: stdio() });
  const listed = Object.keys(await c.listTools()).sort();
  const definitions = JSON.parse(JSON.stringify(await c.listToolDefinitions()));
  const cold = client({ gh: stdio() });
  const hydrated = await cold.toolsFromDefinitions({ definitions });
  assert.deepEqual(Object.keys(hydrated).sort(), listed);
  const dotted = listed.find((k) => k.startsWith('gh_github_create_issue_'));
  assert.deepEqual((await hydrated[dotted].execute({}, {})).content, [{ type: 'text', text: 'called github.create_issue' }]);
});

test('names: a name three servers would share is reported and logged, not dropped silently', async () => {
  // x + y_z_w, x_y + z_w and x_y_z + w all make `x_y_z_w`: the first keeps it, the second gets the hashed
  // name, the third has none left.
  const logs = [];
  const only = (tool) => stdio({ tools: { include: [tool] }, logger: (e) => logs.push(e) }, { TOOL_NAMES_EXTRA: tool });
  const c = client({ x: only('y_z_w'), x_y: only('z_w'), x_y_z: only('w') });
  const { tools, errors } = await c.listToolsWithErrors();
  const keys = Object.keys(tools).sort();
  assert.equal(keys.length, 2);
  assert.equal(keys[0], 'x_y_z_w');
  assert.match(keys[1], /^x_y_z_w_[0-9a-f]{8}$/);
  assert.match(errors.x_y_z, /tool "w" of server x_y_z has no name/);
  assert.ok(logs.some((l) => l.level === 'warning' && /Tool "w" left out/.test(l.message)));
});

for (const transport of ['stdio', 'http']) {
  test(`filters (${transport}): include and exclude globs over the server's own names, in every listing; a filtered tool is not callable`, async () => {
    const def = transport === 'stdio' ? stdio() : { url: await httpUrl() };
    const c = client({ gh: { ...def, tools: { include: ['get_*', 'github*'], exclude: ['*secret*', '*.*'] } } });
    const toolsets = await c.listToolsets();
    assert.deepEqual(Object.keys(toolsets.gh).sort(), ['get_user', 'github_create_issue']);
    assert.deepEqual(Object.keys(await c.listTools()).sort(), ['gh_get_user', 'gh_github_create_issue']);
    assert.deepEqual(Object.keys((await c.listToolDefinitions()).gh).sort(), ['get_user', 'github_create_issue']);
    const proxy = c.toMCPServerProxies().gh;
    assert.deepEqual((await proxy.getToolListInfo()).tools.map((t) => t.id).sort(), ['get_user', 'github_create_issue']);
    // A cached definition of a filtered tool is refused when called.
    const open = client({ gh: def });
    const all = await open.listToolDefinitions();
    const secret = await c.toolFromDefinition({ serverName: 'gh', definition: all.gh.get_secret });
    await assert.rejects(secret.execute({}, {}), /not offered by this client/);
  });
}

test('filters: in an mcp.json, and a bad filter is an error naming the field', async () => {
  const file = tmpFile('tool-fit-mcp') + '.json';
  writeFileSync(file, JSON.stringify({ mcpServers: { gh: { command: nodeBin, args: [server, 'stdio'], tools: { exclude: ['get_*', 'delete_*', 'a*', 'work', 'silent_work'] } } } }));
  cleanups.push(() => rmSync(file, { force: true }));
  const c = await MCPClient.fromConfigFile(file, { id: `tool-fit-${nextId++}` });
  cleanups.push(() => c.disconnect());
  assert.deepEqual(Object.keys((await c.listToolsets()).gh).sort(), ['github.create_issue', 'github_create_issue']);

  const badFile = tmpFile('tool-fit-mcp-bad') + '.json';
  writeFileSync(badFile, JSON.stringify({ mcpServers: { gh: { command: nodeBin, args: [server, 'stdio'], tools: { include: 'get_*' } } } }));
  cleanups.push(() => rmSync(badFile, { force: true }));
  await assert.rejects(MCPClient.fromConfigFile(badFile), /tools\.include/);
});

test('filters: the per-server client offers only the chosen tools too', async () => {
  const internal = new InternalMastraMCPClient({ name: 'gh', server: stdio({ tools: { include: ['get_user'] } }) });
  cleanups.push(() => internal.disconnect());
  assert.deepEqual(Object.keys(await internal.tools()), ['get_user']);
});

test('filters: a filter that is not { include?: string[], exclude?: string[] } fails on first use, naming the field', async () => {
  const c = client({ gh: stdio({ tools: { exclude: 'get_*' } }) });
  const { tools, errors } = await c.listToolsWithErrors();
  assert.deepEqual(tools, {});
  assert.match(errors.gh, /tools\.exclude must be an array of strings/);
});

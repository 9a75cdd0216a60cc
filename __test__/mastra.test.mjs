// Mastra integration: real @mastra/core Tools and errors, the instance cache, CommonJS loading,
// and an Agent (offline mock model) calling an MCP tool end to end.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Tool } from '@mastra/core/tools';
import { MastraError } from '@mastra/core/error';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore } from '@mastra/core/storage';
import { MockLanguageModelV2, simulateReadableStream } from 'ai/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MCPClient } from '../index.mjs';
import { stdioFixtureServer, tmpFile } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const clients = [];
after(async () => Promise.all(clients.map((c) => c.disconnect())));
const track = (c) => (clients.push(c), c);

test('mastra: tools are real @mastra/core Tool instances (ESM entry)', async () => {
  const c = track(new MCPClient({ id: 'mastra-tools', servers: { fx: stdioFixtureServer() } }));
  const tools = await c.listTools();
  assert.ok(tools.fx_cwd instanceof Tool);
  const sets = await c.listToolsets();
  assert.ok(sets.fx.cwd instanceof Tool);
  assert.equal(sets.fx.cwd.id, 'fx_cwd');
});

test('mastra: the CommonJS entry builds tools from the CommonJS copy of core', async () => {
  const cjs = require('../index.js');
  const { Tool: CjsTool } = require('@mastra/core/tools');
  const c = track(new cjs.MCPClient({ id: 'mastra-cjs', servers: { fx: stdioFixtureServer() } }));
  const tools = await c.listTools();
  assert.ok(tools.fx_cwd instanceof CjsTool);
});

test('mastra: the Tool chunk of the installed @mastra/core/tools is found, for both entries', () => {
  const { esmChunkOf, cjsChunkOf, chunkFor } = require('../lib/core-tools-chunk.cjs');
  const esm = chunkFor(fileURLToPath(import.meta.resolve('@mastra/core/tools')), esmChunkOf);
  const cjs = chunkFor(require.resolve('@mastra/core/tools'), cjsChunkOf);
  assert.ok(esm && cjs, 'a new @mastra/core build layout: cold starts load the whole tools entry until lib/core-tools-chunk.cjs follows it');
  assert.deepEqual(Object.keys(esm.names).sort(), ['Tool', 'createTool', 'validateToolOutput']);
});

for (const entry of ['index.mjs', 'index.js']) {
  test(`mastra: a cold process (${entry}) loads only the chunk that holds Tool; its tools are @mastra/core/tools' Tool`, async () => {
    // The rest of @mastra/core/tools (the code-mode transport, built-in tools) loads node:http.
    const script = `
      const { MCPClient } = ${entry === 'index.mjs' ? `await import(${JSON.stringify(new URL('../index.mjs', import.meta.url).href)})` : `require(${JSON.stringify(fileURLToPath(new URL('../index.js', import.meta.url)))})`};
      const c = new MCPClient({ servers: { fx: ${JSON.stringify(stdioFixtureServer())} } });
      const tools = await c.listTools();
      const text = (await tools.fx_cwd.execute({})).content[0].text;
      const httpLoaded = process.moduleLoadList.includes('NativeModule http');
      const { Tool } = ${entry === 'index.mjs' ? "await import('@mastra/core/tools')" : "require('@mastra/core/tools')"};
      console.log(JSON.stringify({ text, httpLoaded, isTool: tools.fx_cwd instanceof Tool }));
      await c.disconnect();`;
    const child = spawnSync(process.execPath, entry === 'index.mjs' ? ['--input-type=module', '-e', script] : ['-e', `(async () => {${script}})()`], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const out = JSON.parse(child.stdout.trim().split('\n').pop());
    assert.equal(out.isTool, true, 'tools are instances of the Tool class @mastra/core/tools exports');
    assert.ok(out.text.length > 0, 'the call answered');
    assert.equal(out.httpLoaded, false, 'listing and calling loaded none of the rest of @mastra/core/tools');
  });
}

test('mastra: duplicate configurations without id throw the anchor text; ids return the cached instance', async () => {
  const servers = { fx: stdioFixtureServer({ DUP: '1' }) };
  const a = track(new MCPClient({ servers }));
  assert.throws(() => new MCPClient({ servers }), (e) => e.message.startsWith('MCPClient was initialized multiple times with the same configuration options.') && e.message.endsWith('code block)\n'));
  await a.disconnect();
  const b = track(new MCPClient({ servers }));
  assert.notEqual(a, b, 'a new instance after disconnect');
  const x = track(new MCPClient({ id: 'same-id', servers }));
  assert.equal(new MCPClient({ id: 'same-id', servers }), x, 'same id and config returns the cached instance');
  const y = track(new MCPClient({ id: 'same-id', servers: { fx: stdioFixtureServer({ DUP: '2' }) } }));
  assert.notEqual(y, x, 'a different config replaces it');
  assert.throws(() => new MCPClient({}), TypeError);
});

// Bounded by the test's own timeout (every wait inside is the configured 5 s); the `hang` error below names it.
test('mastra: bad servers are reported per server, naming the server and cause, without breaking the others', { timeout: 120000 }, async () => {
  const c = track(
    new MCPClient({
      id: 'bad-inputs',
      // Also bounds each child's spawn and handshake: generous, so a loaded machine does not
      // turn a slow start of `good` into a failure.
      timeout: 5000,
      servers: {
        good: stdioFixtureServer(),
        missing: { command: 'definitely-not-a-command-xyz' },
        crash: stdioFixtureServer({ FIXTURE_MODE: 'crash' }),
        garbage: stdioFixtureServer({ FIXTURE_MODE: 'garbage' }),
        hang: stdioFixtureServer({ FIXTURE_MODE: 'hang' }),
        both: { command: 'node', url: new URL('http://127.0.0.1:9/mcp') },
        neither: {},
        wrongtype: { command: 'node', args: 'not-an-array' },
      },
    }),
  );
  const r = await c.listToolsWithErrors({});
  assert.ok(r.tools.good_cwd, 'the good server still works');
  const expect = {
    missing: [/Failed to connect to MCP server missing: spawn definitely-not-a-command-xyz ENOENT/, 'SPAWN_FAILED'],
    crash: [/Failed to connect to MCP server crash: .*(closed|exited)/i, 'CONNECT_FAILED'],
    garbage: [/Failed to connect to MCP server garbage: /, /CONNECT_FAILED|REQUEST_TIMEOUT/],
    hang: [/Failed to connect to MCP server hang: Request timed out after 5000 ms/, 'REQUEST_TIMEOUT'],
    both: [/"both" has both "command" and "url"/, 'INVALID_CONFIG'],
    neither: [/Server configuration must include either a command or a url\./, 'INVALID_CONFIG'],
    wrongtype: [/"args" must be an array of strings/, 'INVALID_CONFIG'],
  };
  for (const [name, [re, code]] of Object.entries(expect)) {
    assert.match(r.errors[name], re, `${name}: ${r.errors[name]}`);
    // errorDetails.code is the deepest code in the cause chain: the core's typed error code.
    if (typeof code === 'string') assert.equal(r.errorDetails[name].code, code, name);
    else assert.match(r.errorDetails[name].code, code, name);
    assert.ok(!/\n\s+at /.test(r.errors[name]), 'no stack trace in errors');
  }
  assert.deepEqual(Object.keys(r.durations).sort(), Object.keys(c.serverConfigs).sort());
  await assert.rejects(c.resources.read('nosuch', 'x://y'), (e) => e instanceof MastraError && e.message === 'Server configuration not found for name: nosuch');
});

test('mastra: requireToolApproval true and function policies', async () => {
  const seen = [];
  const c = track(
    new MCPClient({
      id: 'approval',
      servers: {
        always: stdioFixtureServer({}, { requireToolApproval: true }),
        policy: stdioFixtureServer({}, { requireToolApproval: (ctx) => (seen.push(ctx), ctx.toolName === 'fail') }),
        never: stdioFixtureServer(),
      },
    }),
  );
  const tools = await c.listTools();
  assert.equal(tools.always_cwd.requireApproval, true);
  assert.equal(tools.never_cwd.requireApproval, false);
  assert.equal(tools.policy_cwd.requireApproval, true);
  assert.equal(await tools.policy_fail.needsApprovalFn({ x: 1 }, { requestContext: { user: 'u' } }), true);
  assert.equal(await tools.policy_annotated.needsApprovalFn({}, {}), false);
  assert.deepEqual(seen[0], { toolName: 'fail', args: { x: 1 }, requestContext: { user: 'u' }, annotations: undefined });
  assert.deepEqual(seen[1].annotations, { readOnlyHint: true, title: 'Annotated' });
});

function scriptedModel(turns) {
  const calls = [];
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const nextTurn = (options) => {
    const turn = turns[Math.min(calls.length, turns.length - 1)];
    calls.push(options);
    return turn;
  };
  const model = new MockLanguageModelV2({
    doGenerate: async (options) => {
      const turn = nextTurn(options);
      const content = turn.toolCall
        ? [{ type: 'tool-call', toolCallId: `call-${calls.length}`, toolName: turn.toolCall.name, input: JSON.stringify(turn.toolCall.args) }]
        : [{ type: 'text', text: turn.text }];
      return { content, finishReason: turn.toolCall ? 'tool-calls' : 'stop', usage, warnings: [] };
    },
    doStream: async (options) => {
      const turn = nextTurn(options);
      const chunks = [{ type: 'stream-start', warnings: [] }];
      if (turn.toolCall) {
        chunks.push({ type: 'tool-call', toolCallId: `call-${calls.length}`, toolName: turn.toolCall.name, input: JSON.stringify(turn.toolCall.args) });
        chunks.push({ type: 'finish', finishReason: 'tool-calls', usage });
      } else {
        chunks.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: turn.text }, { type: 'text-end', id: 't' });
        chunks.push({ type: 'finish', finishReason: 'stop', usage });
      }
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
  return { model, calls };
}

test('mastra: an Agent with a mock model calls an MCP tool end to end and sees forwarded instructions', async () => {
  const c = track(
    new MCPClient({
      id: 'agent',
      servers: { fx: stdioFixtureServer({ FIXTURE_INSTRUCTIONS: 'Always greet politely.' }, { forwardInstructions: true }) },
    }),
  );
  const { model, calls } = scriptedModel([{ toolCall: { name: 'fx_cwd', args: {} } }, { text: 'all done' }]);
  const agent = new Agent({ id: 'agent', name: 'agent', instructions: 'You are a test agent.', model, tools: await c.listTools() });
  const result = await agent.generate('where are you?');
  assert.equal(result.text, 'all done');
  const toolResults = result.toolResults ?? result.steps?.flatMap((s) => s.toolResults ?? []);
  const cwdResult = toolResults.find((r) => (r.payload?.toolName ?? r.toolName) === 'fx_cwd');
  assert.ok(cwdResult, 'the MCP tool ran');
  const output = cwdResult.payload?.result ?? cwdResult.output ?? cwdResult.result;
  assert.equal(output.content[0].text, process.cwd());
  const system = JSON.stringify(calls[0].prompt.filter((m) => m.role === 'system'));
  assert.match(system, /## Guidance from MCP server \\"fx\\"/);
  assert.match(system, /Always greet politely\./);
  const offered = calls[0].tools.map((t) => t.name);
  assert.ok(offered.includes('fx_cwd'));
});

test('mastra: an approval-gated MCP tool suspends the Agent run until approved, then runs once', async () => {
  const counter = tmpFile('approval-count');
  writeFileSync(counter, '0');
  const seen = [];
  const c = track(
    new MCPClient({
      id: 'agent-approval',
      servers: {
        fx: stdioFixtureServer({ FIXTURE_COUNTER_FILE: counter }, { requireToolApproval: (ctx) => (seen.push(ctx.toolName), ctx.toolName === 'count_calls') }),
      },
    }),
  );
  const { model } = scriptedModel([{ toolCall: { name: 'fx_count_calls', args: {} } }, { text: 'counted' }]);
  const agent = new Agent({ id: 'approver', name: 'approver', instructions: 'Count.', model, tools: await c.listTools() });
  new Mastra({ agents: { approver: agent }, storage: new InMemoryStore(), logger: false });
  const first = await agent.generate('count please');
  assert.equal(first.finishReason, 'suspended', 'the run waits for approval');
  assert.equal(readFileSync(counter, 'utf8').trim(), '0', 'the tool has not run yet');
  assert.ok(seen.includes('count_calls'), 'the approval policy was consulted');
  const resumed = await agent.approveToolCallGenerate({ runId: first.runId, toolCallId: first.suspendPayload.toolCallId });
  assert.equal(resumed.text, 'counted');
  assert.equal(readFileSync(counter, 'utf8').trim(), '1', 'ran exactly once after approval');
});

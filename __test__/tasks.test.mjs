// Task tools (MCP 2025-11-25 tasks) against server-everything's `simulate-research-query`
// (`execution.taskSupport: 'required'`) over stdio, Streamable HTTP and SSE: one call, one
// result; status messages reach progress.onUpdate; the input request of an ambiguous query
// reaches the elicitation handler; abort and timeout end the call; an Agent runs the tool.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Agent } from '@mastra/core/agent';
import { MockLanguageModelV2 } from 'ai/test';
import { MCPClient } from '../index.mjs';
import { startEverythingHttp, waitFor, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const TOOL = 'ev_simulate-research-query';
const servers = {};
before(async () => {
  [servers.streamableHttp, servers.sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await Promise.all(Object.values(servers).map((s) => s.stop()));
});

const definitions = {
  stdio: () => ({ command: nodeBin, args: [everythingEntry, 'stdio'] }),
  streamableHttp: () => ({ url: servers.streamableHttp.url }),
  sse: () => ({ url: servers.sse.url }),
};

let nextId = 0;
function client(define, extra = {}) {
  const c = new MCPClient({ id: `tasks-${nextId++}`, servers: { ev: { ...define(), ...extra } } });
  clients.push(c);
  return c;
}

const reportText = (result) => result.content.map((c) => c.text).join('\n');

for (const [transport, define] of Object.entries(definitions)) {
  test(`tasks over ${transport}: a required-task tool runs to one result, its statuses reach progress.onUpdate`, async () => {
    const c = client(define);
    const progress = [];
    await c.progress.onUpdate('ev', (p) => progress.push(p));
    const tools = await c.listTools();
    const result = await tools[TOOL].execute({ topic: 'tides' }, { runId: `run-${transport}` });
    assert.notEqual(result.isError, true);
    assert.match(reportText(result), /# Research Report: tides/);
    assert.match(reportText(result), /Stage 4: Generating report/);
    const mine = progress.filter((p) => p.progressToken === `run-${transport}`);
    assert.ok(mine.length >= 1, `status updates reached progress.onUpdate: ${JSON.stringify(progress)}`);
    assert.ok(mine.some((p) => /Gathering sources|Analyzing content|Synthesizing|Generating/.test(p.message ?? '')), JSON.stringify(mine));
    const steps = mine.map((p) => p.progress);
    assert.deepEqual(steps, [...steps].sort((a, b) => a - b), 'progress only grows');
    // The same tool again, on the same session: a second task.
    const again = await tools[TOOL].execute({ topic: 'dunes' }, {});
    assert.match(reportText(again), /# Research Report: dunes/);
  });

  test(`tasks over ${transport}: the input request of an ambiguous query reaches the elicitation handler`, async () => {
    const c = client(define);
    const asked = [];
    await c.elicitation.onRequest('ev', async (params) => {
      asked.push(params);
      return { action: 'accept', content: { interpretation: 'snake' } };
    });
    const tools = await c.listTools();
    const result = await tools[TOOL].execute({ topic: 'python', ambiguous: true }, {});
    assert.equal(asked.length, 1, 'one elicitation');
    assert.match(asked[0].message, /multiple interpretations/);
    assert.match(reportText(result), /# Research Report: python \(snake\)/);
  });
}

test('tasks: an abort signal ends a running task call with the abort reason', async () => {
  const c = client(definitions.stdio);
  const progress = [];
  await c.progress.onUpdate('ev', (p) => progress.push(p));
  const tools = await c.listTools();
  const controller = new AbortController();
  const call = tools[TOOL].execute({ topic: 'aborted' }, { abortSignal: controller.signal, runId: 'abort-run' });
  await waitFor(() => progress.some((p) => p.progressToken === 'abort-run'), { timeoutMs: 20000, message: 'the task started' });
  controller.abort('user pressed stop');
  await assert.rejects(call, (e) => /user pressed stop/.test(e.message) || /user pressed stop/.test(e.cause?.message ?? ''));
  // The session stays usable.
  const echo = await tools.ev_echo.execute({ message: 'still here' }, {});
  assert.match(JSON.stringify(echo), /still here/);
});

test('tasks: without resetTimeoutOnProgress the request timeout bounds the whole task and names the server', async () => {
  const c = client(definitions.streamableHttp, { timeout: 1500, resetTimeoutOnProgress: false });
  const tools = await c.listTools();
  await assert.rejects(tools[TOOL].execute({ topic: 'slow' }, {}), (e) => {
    const text = `${e.message} ${e.cause?.message ?? ''}`;
    return /timed out after 1500 ms/.test(text) && /ev/.test(text);
  });
});

test('tasks: status changes keep a task call alive past its timeout, up to maxTotalTimeout (named when it ends the call)', async () => {
  // The task takes about 4 s (four 1 s stages); a status change every second gives it its 2.5 s again.
  const lives = client(definitions.stdio, { timeout: 2500 });
  const result = await (await lives.listTools())[TOOL].execute({ topic: 'long' }, {});
  assert.match(reportText(result), /# Research Report: long/);
  const bounded = client(definitions.streamableHttp, { timeout: 2500, maxTotalTimeout: 3000 });
  await assert.rejects((await bounded.listTools())[TOOL].execute({ topic: 'too long' }, {}), (e) => {
    const text = `${e.message} ${e.cause?.message ?? ''}`;
    return /timed out after 3000 ms, its maxTotalTimeout/.test(text) && /ev/.test(text);
  });
});

test('tasks: disconnect() ends a running task call', async () => {
  const c = client(definitions.stdio);
  const progress = [];
  await c.progress.onUpdate('ev', (p) => progress.push(p));
  const tools = await c.listTools();
  const call = tools[TOOL].execute({ topic: 'cut short' }, { runId: 'cut-run' });
  const settled = call.then(
    () => 'resolved',
    (e) => e,
  );
  await waitFor(() => progress.some((p) => p.progressToken === 'cut-run'), { timeoutMs: 20000, message: 'the task started' });
  await c.disconnect();
  const outcome = await settled;
  assert.ok(outcome instanceof Error, `the call failed (got ${outcome})`);
});

test('tasks: a Mastra Agent runs the task tool of server-everything to completion as one tool call', async () => {
  const c = client(definitions.stdio);
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  let turns = 0;
  const model = new MockLanguageModelV2({
    doGenerate: async () => {
      turns++;
      if (turns === 1) {
        const input = JSON.stringify({ topic: 'coral reefs' });
        return { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: TOOL, input }], finishReason: 'tool-calls', usage, warnings: [] };
      }
      return { content: [{ type: 'text', text: 'report received' }], finishReason: 'stop', usage, warnings: [] };
    },
  });
  const agent = new Agent({ id: 'researcher', name: 'researcher', instructions: 'Research.', model, tools: await c.listTools() });
  const result = await agent.generate('research coral reefs');
  assert.equal(result.text, 'report received');
  const toolResults = result.toolResults ?? result.steps?.flatMap((s) => s.toolResults ?? []);
  const mine = toolResults.filter((r) => (r.payload?.toolName ?? r.toolName) === TOOL);
  assert.equal(mine.length, 1, 'one tool call');
  const output = mine[0].payload?.result ?? mine[0].output ?? mine[0].result;
  assert.match(reportText(output), /# Research Report: coral reefs/);
});

test('tasks: a task tool rebuilt from a cached definition runs as a task on a connected stdio session (no tools/list)', async () => {
  const catalog = await client(definitions.stdio).listToolDefinitions();
  const c = client(definitions.stdio);
  const progress = [];
  await c.progress.onUpdate('ev', (p) => progress.push(p));
  const echo = await c.toolFromDefinition({ serverName: 'ev', definition: catalog.ev.echo });
  // The session is up (its fast path ready) before the task tool is first called.
  assert.match(JSON.stringify(await echo.execute({ message: 'warm' }, {})), /warm/);
  const research = await c.toolFromDefinition({ serverName: 'ev', definition: catalog.ev['simulate-research-query'] });
  const result = await research.execute({ topic: 'estuaries' }, { runId: 'cached-run' });
  assert.match(reportText(result), /# Research Report: estuaries/);
  assert.ok(progress.some((p) => p.progressToken === 'cached-run'), 'followed as a task: its statuses reached progress.onUpdate');
});

// Task tools in the 2026-07-28 era: the Tasks extension (`io.modelcontextprotocol/tasks`), against
// a server on the official Python SDK 2.x implementing its server side
// (fixtures/python/tasks_server.py), over stdio and Streamable HTTP, pinned and negotiated.
// The server decides to answer tools/call with a task; the client follows it (tasks/get,
// tasks/update with the elicitation handler's answers, tasks/cancel on abort, timeout and
// disconnect) and the caller sees one call with one result. The fixture's `task_log` tool
// reports what the server saw, so each test checks the wire, not only the result.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from '@mastra/core/agent';
import { MockLanguageModelV2 } from 'ai/test';
import { MCPClient } from '../index.mjs';
import { waitFor, fixturePath } from './fixtures/helpers.mjs';
import { pythonWithMcp } from '../scripts/python-venv.mjs';
import { startPythonHttp } from './fixtures/python-http.mjs';

const serverPath = fixturePath('python/tasks_server.py');
let python;
let http;


before(async () => {
  python = pythonWithMcp();
  http = await startPythonHttp(python, serverPath);
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await http?.stop();
});

const targets = {
  'stdio, pinned 2026-07-28': () => ({ command: python, args: [serverPath, 'stdio'], protocolVersion: '2026-07-28' }),
  'stdio, auto': () => ({ command: python, args: [serverPath, 'stdio'], protocolVersion: 'auto' }),
  'Streamable HTTP, pinned 2026-07-28': () => ({ url: http.url, protocolVersion: '2026-07-28' }),
  'Streamable HTTP, auto': () => ({ url: http.url, protocolVersion: 'auto' }),
};

let nextId = 0;
function client(define, extra = {}) {
  const c = new MCPClient({ id: `tasks26-${nextId++}`, servers: { tk: { ...define(), ...extra } } });
  clients.push(c);
  return c;
}
const label = (what) => `${what}-${nextId}-${Math.random().toString(36).slice(2, 8)}`;
// A tool's text; a result with structuredContent reaches the caller as that object.
const text = (result) => (result.content ? result.content.map((c) => c.text).join('\n') : result.result);
const errorText = (e) => `${e.message} ${e.cause?.message ?? ''}`;

/** What the server saw for a label (through the fixture's plain `task_log` tool). */
async function serverLog(tools, of) {
  return JSON.parse(text(await tools.tk_task_log.execute({ label: of }, {})));
}

for (const [name, define] of Object.entries(targets)) {
  const overHttp = name.startsWith('Streamable');

  test(`tasks extension over ${name}: a task runs to one result; each status message reaches progress.onUpdate`, async () => {
    const c = client(define);
    const progress = [];
    await c.progress.onUpdate('tk', (p) => progress.push(p));
    const tools = await c.listTools();
    const run = label('steps');
    const result = await tools.tk_steps.execute({ label: run, steps: 3 }, { runId: run });
    assert.notEqual(result.isError, true);
    assert.equal(text(result), 'done after 3 steps');
    const mine = progress.filter((p) => p.progressToken === run);
    const messages = mine.map((p) => p.message);
    for (const step of ['step 1 of 3', 'step 2 of 3', 'step 3 of 3']) assert.ok(messages.includes(step), `${step} in ${JSON.stringify(mine)}`);
    assert.ok(messages.indexOf('step 1 of 3') < messages.indexOf('step 3 of 3'), 'in order');
    const steps = mine.map((p) => p.progress);
    assert.deepEqual(steps, [...steps].sort((a, b) => a - b), 'progress only grows');
    const seen = await serverLog(tools, run);
    assert.equal(seen.calls, 1, 'the tool call was sent once');
    if (overHttp) {
      // tasks/get over Streamable HTTP carries `Mcp-Name: <taskId>`.
      assert.ok(seen.names.length >= 4, JSON.stringify(seen.names));
      for (const n of seen.names) assert.equal(n.mcpName, n.taskId, JSON.stringify(n));
    }
    // Task creation is the server's choice: a plain result passes through as is.
    assert.equal(text(await tools.tk_steps.execute({ label: label('plain'), steps: 0 }, {})), 'done at once');
  });

  test(`tasks extension over ${name}: an input request mid-task reaches the elicitation handler once; tasks/update answers it`, async () => {
    const c = client(define);
    const asked = [];
    await c.elicitation.onRequest('tk', async (params) => {
      asked.push(params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const tools = await c.listTools();
    const run = label('greet');
    const result = await tools.tk_greet.execute({ label: run }, {});
    assert.equal(text(result), 'Hello, Ada!', 'the answer got the schema default of the greeting it left out');
    assert.equal(asked.length, 1, 'one elicitation, though a later poll still listed the request');
    assert.equal(asked[0].message, 'Who is there?');
    const seen = await serverLog(tools, run);
    assert.deepEqual(seen.updates, [['name']], 'one tasks/update, answering the key once');
    if (overHttp) assert.ok(seen.names.some((n) => n.method === 'tasks/update' && n.mcpName === n.taskId), JSON.stringify(seen.names));
  });

  test(`tasks extension over ${name}: a task's input request reaches inputRequests (2.0) once, with its key`, async () => {
    const asked = [];
    const c = client(define, {
      inputRequests: async ({ key, params, signal }) => {
        asked.push({ key, message: params.message, aborted: signal.aborted });
        return { action: 'accept', content: { name: 'Grace' } };
      },
    });
    const tools = await c.listTools();
    const run = label('greet');
    const result = await tools.tk_greet.execute({ label: run }, {});
    assert.equal(text(result), 'Hello, Grace!');
    assert.deepEqual(asked, [{ key: 'name', message: 'Who is there?', aborted: false }]);
  });

  test(`tasks extension over ${name}: a failed task rejects with the server's JSON-RPC error, naming server and tool`, async () => {
    const c = client(define);
    const tools = await c.listTools();
    const run = label('explode');
    await assert.rejects(tools.tk_explode.execute({ label: run }, {}), (e) => {
      const t = errorText(e);
      return /the reactor overheated/.test(t) && /-32603/.test(t) && /explode/.test(t) && /\btk\b/.test(t);
    });
    assert.equal((await serverLog(tools, run)).calls, 1);
  });

  test(`tasks extension over ${name}: an abort signal sends tasks/cancel and rejects with the reason`, async () => {
    const c = client(define);
    const progress = [];
    await c.progress.onUpdate('tk', (p) => progress.push(p));
    const tools = await c.listTools();
    const run = label('abort');
    const controller = new AbortController();
    const call = tools.tk_wait_forever.execute({ label: run }, { abortSignal: controller.signal, runId: run });
    await waitFor(() => progress.some((p) => p.progressToken === run && p.message === 'still waiting'), { timeoutMs: 20000, message: 'the task is polled' });
    controller.abort('user pressed stop');
    await assert.rejects(call, (e) => /user pressed stop/.test(errorText(e)));
    const seen = await serverLog(tools, run);
    assert.equal(seen.cancelled, 1, 'the server saw tasks/cancel');
    assert.equal(seen.calls, 1);
    if (overHttp) assert.ok(seen.names.some((n) => n.method === 'tasks/cancel' && n.mcpName === n.taskId), JSON.stringify(seen.names));
  });

  test(`tasks extension over ${name}: the request timeout bounds the task, cancels it and names the server`, async () => {
    // The timeout bounds the connect too: a Python process gets more time to start.
    const timeout = overHttp ? 1500 : 5000;
    const c = client(define, { timeout });
    const tools = await c.listTools();
    const run = label('timeout');
    const within = new RegExp(`timed out after ${timeout} ms`);
    await assert.rejects(tools.tk_wait_forever.execute({ label: run }, {}), (e) => within.test(errorText(e)) && /\btk\b/.test(errorText(e)));
    assert.equal((await serverLog(tools, run)).cancelled, 1, 'the server saw tasks/cancel');
  });
}

test('tasks extension: disconnect() cancels a running task on the server and ends the call', async () => {
  const c = client(targets['Streamable HTTP, pinned 2026-07-28']);
  const progress = [];
  await c.progress.onUpdate('tk', (p) => progress.push(p));
  const tools = await c.listTools();
  const run = label('disconnect');
  const settled = tools.tk_wait_forever.execute({ label: run }, { runId: run }).then(
    () => 'resolved',
    (e) => e,
  );
  await waitFor(() => progress.some((p) => p.progressToken === run && p.message === 'still waiting'), { timeoutMs: 20000, message: 'the task is polled' });
  await c.disconnect();
  const outcome = await settled;
  assert.ok(outcome instanceof Error, `the call failed (got ${outcome})`);
  const other = client(targets['Streamable HTTP, pinned 2026-07-28']);
  assert.equal((await serverLog(await other.listTools(), run)).cancelled, 1, 'the server saw tasks/cancel');
});

test('tasks extension: a handshake-era session does not declare the extension; the server refuses with -32021', async () => {
  const c = client(() => ({ url: http.url, protocolVersion: '2025-11-25' }));
  const tools = await c.listTools();
  const run = label('refused');
  await assert.rejects(tools.tk_steps.execute({ label: run, steps: 1 }, {}), (e) => /-32021/.test(errorText(e)) && /io\.modelcontextprotocol\/tasks/.test(errorText(e)));
  const seen = await serverLog(tools, run);
  assert.equal(seen.refused, 1, 'refused');
  assert.equal(seen.calls, 0, 'no task was created');
});

test('tasks extension: a server that requires the extension without announcing it gets the call again, declaring it', async () => {
  const c = client(() => ({ command: python, args: [serverPath, 'stdio'], env: { TASKS_FIXTURE_UNANNOUNCED: '1' }, protocolVersion: '2026-07-28' }));
  const tools = await c.listTools();
  const run = label('unannounced');
  assert.equal(text(await tools.tk_steps.execute({ label: run, steps: 1 }, {})), 'done after 1 steps');
  const seen = await serverLog(tools, run);
  assert.equal(seen.refused, 1, 'refused once for want of the extension');
  assert.equal(seen.calls, 1, 'run once (the refused call ran nothing)');
});

test('tasks extension: a Mastra Agent runs a task tool as one tool call with one result', async () => {
  const c = client(targets['stdio, auto']);
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const run = label('agent');
  let turns = 0;
  const model = new MockLanguageModelV2({
    doGenerate: async () => {
      turns++;
      if (turns === 1) {
        const input = JSON.stringify({ label: run, steps: 2 });
        return { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'tk_steps', input }], finishReason: 'tool-calls', usage, warnings: [] };
      }
      return { content: [{ type: 'text', text: 'steps done' }], finishReason: 'stop', usage, warnings: [] };
    },
  });
  const tools = await c.listTools();
  const agent = new Agent({ id: 'stepper', name: 'stepper', instructions: 'Work.', model, tools });
  const result = await agent.generate('do the steps');
  assert.equal(result.text, 'steps done');
  const toolResults = result.toolResults ?? result.steps?.flatMap((s) => s.toolResults ?? []);
  const mine = toolResults.filter((r) => (r.payload?.toolName ?? r.toolName) === 'tk_steps');
  assert.equal(mine.length, 1, 'one tool call');
  const output = mine[0].payload?.result ?? mine[0].output ?? mine[0].result;
  assert.equal(text(output), 'done after 2 steps');
  assert.equal((await serverLog(tools, run)).calls, 1, 'the server ran it once');
});

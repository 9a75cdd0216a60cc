// Tools whose `execution.taskSupport` is 'optional' (MCP 2025-11-25 tasks): called plainly unless
// the server definition says `preferTasks: true`, then run as a task (its status messages reach
// progress.onUpdate) — one call, one result either way.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient, InternalMastraMCPClient } from '../index.mjs';
import { nodeBin, fixturePath } from './fixtures/helpers.mjs';

const server = () => ({ command: nodeBin, args: [fixturePath('optional-task-server.mjs')], protocolVersion: 'legacy' });
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
});

let nextId = 0;
async function sumWith(extra) {
  const c = new MCPClient({ id: `optional-tasks-${nextId++}`, servers: { t: { ...server(), ...extra } } });
  clients.push(c);
  const progress = [];
  await c.progress.onUpdate('t', (p) => progress.push(p));
  const tools = await c.listTools();
  const result = await tools.t_sum.execute({ a: 2, b: 3 }, { runId: 'sum-run' });
  return { result, statuses: progress.filter((p) => p.progressToken === 'sum-run') };
}

test('optional task tool: called plainly by default, one result and no task statuses', async () => {
  const { result, statuses } = await sumWith({});
  assert.deepEqual(result.content, [{ type: 'text', text: 'sum: 5' }]);
  assert.deepEqual(statuses, [], 'no task was followed');
});

test('optional task tool with preferTasks: runs as a task, its status message reaches progress.onUpdate', async () => {
  const { result, statuses } = await sumWith({ preferTasks: true });
  assert.deepEqual(result.content, [{ type: 'text', text: 'sum: 5' }]);
  assert.ok(statuses.some((p) => p.message === 'adding'), `the task's status reached progress.onUpdate: ${JSON.stringify(statuses)}`);
});

// A tool rebuilt from a cached definition is called as its definition says, by a client that has
// not listed the server's tools: through MCPClient and through the per-server client.
async function definitionOfSum() {
  const lister = new MCPClient({ id: `optional-tasks-${nextId++}`, servers: { t: server() } });
  clients.push(lister);
  const definition = (await lister.listToolDefinitions()).t.sum;
  assert.equal(definition.execution?.taskSupport, 'optional', 'the cached definition says the tool may run as a task');
  await lister.disconnect();
  return definition;
}

test('optional task tool rebuilt from a cached definition, with preferTasks: runs as a task through MCPClient', async () => {
  const definition = await definitionOfSum();
  const c = new MCPClient({ id: `optional-tasks-${nextId++}`, servers: { t: { ...server(), preferTasks: true } } });
  clients.push(c);
  const progress = [];
  await c.progress.onUpdate('t', (p) => progress.push(p));
  const sum = await c.toolFromDefinition({ serverName: 't', definition });
  const result = await sum.execute({ a: 4, b: 5 }, { runId: 'cached-sum' });
  assert.deepEqual(result.content, [{ type: 'text', text: 'sum: 9' }]);
  const statuses = progress.filter((p) => p.progressToken === 'cached-sum');
  assert.ok(statuses.some((p) => p.message === 'adding'), `followed as a task: ${JSON.stringify(statuses)}`);
});

test('optional task tool rebuilt from a cached definition, with preferTasks: runs as a task through InternalMastraMCPClient', async () => {
  const definition = await definitionOfSum();
  const c = new InternalMastraMCPClient({ name: 't', server: { ...server(), preferTasks: true } });
  clients.push(c);
  const progress = [];
  c.progress.onUpdate((p) => progress.push(p));
  const sum = c.toolFromDefinition({ definition });
  const result = await sum.execute({ a: 1, b: 1 }, { runId: 'cached-sum-internal' });
  assert.deepEqual(result.content, [{ type: 'text', text: 'sum: 2' }]);
  const statuses = progress.filter((p) => p.progressToken === 'cached-sum-internal');
  assert.ok(statuses.some((p) => p.message === 'adding'), `followed as a task: ${JSON.stringify(statuses)}`);
});

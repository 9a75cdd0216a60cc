// Tools whose `execution.taskSupport` is 'optional' (MCP 2025-11-25 tasks): called plainly unless
// the server definition says `preferTasks: true`, then run as a task (its status messages reach
// progress.onUpdate) — one call, one result either way.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient } from '../index.mjs';
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

// The trace context (SEP-414), as @mastra/mcp 2.0 sends it: `traceContext` in `_meta` of calls, reads and list
// requests (explicit `_meta` wins), none without it, a Mastra Agent's caller context carried to the server, and the
// `traceContextFromMeta` / `traceContextToMeta` / `MCP_CLIENT_PROTOCOL_VERSION` exports; against @mastra/mcp 2.0's
// MCPServer (fixtures/mastra2-server) over stdio and Streamable HTTP.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent } from '@mastra/core/agent';
import { MockLanguageModelV2 } from 'ai/test';
import * as esm from '../index.mjs';
import { MCPClient, traceContextFromMeta, traceContextToMeta } from '../index.mjs';
import { nodeBin, fixturePath, startMastra2Http } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const server2 = fixturePath('mastra2-server/server.mjs');

let httpServer;
const clients = [];
before(async () => {
  httpServer = await startMastra2Http();
});
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await httpServer?.stop();
});

let nextId = 0;
function client(def, options = {}) {
  const c = new MCPClient({ id: `trace-context-${nextId++}`, servers: { s: def }, ...options });
  clients.push(c);
  return c;
}

const TRANSPORTS = [
  ['stdio', (extra = {}) => ({ command: nodeBin, args: [server2, 'stdio'], ...extra })],
  ['Streamable HTTP', (extra = {}) => ({ url: httpServer.url, ...extra })],
];

for (const [label, define] of TRANSPORTS) {
  describe(`trace context against @mastra/mcp 2.0's MCPServer (${label})`, () => {
    test('traceContext reaches the server in _meta (tools/call, resources/read); explicit _meta wins', async () => {
      let n = 0;
      const c = client(
        define({
          traceContext: () => ({ traceparent: `00-${String(++n).padStart(32, '0')}-00f067aa0ba902b7-01`, tracestate: 'vendor=1', baggage: 'user=ada' }),
        }),
      );
      const tools = await c.listTools();
      const seen = JSON.parse((await tools.s_traced.execute({}, {})).content[0].text);
      assert.match(seen.traceparent, /^00-0+\d+-00f067aa0ba902b7-01$/);
      assert.equal(seen.tracestate, 'vendor=1');
      assert.equal(seen.baggage, 'user=ada');
      const again = JSON.parse((await tools.s_traced.execute({}, {})).content[0].text);
      assert.notEqual(again.traceparent, seen.traceparent, 'the provider is called for each request');

      const explicit = JSON.parse((await tools.s_traced.execute({}, { _meta: { traceparent: '00-explicit-01' } })).content[0].text);
      assert.equal(explicit.traceparent, '00-explicit-01');
      assert.equal(explicit.baggage, 'user=ada', 'keys the caller did not give still come from traceContext');

      const read = await c.resources.read('s', 'weather://forecast');
      assert.match(read.contents[0].text, /\(trace 00-0+\d+-00f067aa0ba902b7-01\)/);
    });

    test('without traceContext no trace fields are sent', async () => {
      const c = client(define());
      const tools = await c.listTools();
      assert.equal((await tools.s_traced.execute({}, {})).content[0].text, 'null');
    });
  });
}

test('trace context: a Mastra Agent\'s tool call carries the caller\'s trace context to the server', async () => {
  const carrier = new AsyncLocalStorage();
  const c = client({ command: nodeBin, args: [server2, 'stdio'], traceContext: () => carrier.getStore() });
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  let turn = 0;
  const model = new MockLanguageModelV2({
    doGenerate: async () =>
      turn++ === 0
        ? { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 's_traced', input: '{}' }], finishReason: 'tool-calls', usage, warnings: [] }
        : { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage, warnings: [] },
  });
  const agent = new Agent({ id: 'tracer', name: 'tracer', instructions: 'Trace.', model, tools: await c.listTools() });
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const result = await carrier.run({ traceparent, baggage: 'tenant=t1' }, () => agent.generate('trace it'));
  assert.equal(result.text, 'done');
  const toolResults = result.toolResults ?? result.steps?.flatMap((s) => s.toolResults ?? []);
  const traced = toolResults.find((r) => (r.payload?.toolName ?? r.toolName) === 's_traced');
  const output = traced.payload?.result ?? traced.result ?? traced.output;
  assert.deepEqual(JSON.parse(output.content[0].text), { traceparent, baggage: 'tenant=t1' });
});

test('trace context: traceContextFromMeta / traceContextToMeta / MCP_CLIENT_PROTOCOL_VERSION, ESM and CJS', () => {
  const cjs = require('../index.js');
  for (const api of [esm, cjs]) {
    assert.equal(api.MCP_CLIENT_PROTOCOL_VERSION, '2026-07-28');
    const ctx = { traceparent: '00-a-b-01', tracestate: 'x=1', baggage: 'k=v' };
    assert.deepEqual(api.traceContextToMeta(ctx), { traceparent: '00-a-b-01', tracestate: 'x=1', baggage: 'k=v' });
    assert.deepEqual(api.traceContextToMeta({ traceparent: 'p' }), { traceparent: 'p' });
    assert.deepEqual(api.traceContextFromMeta({ traceparent: 'p', baggage: 'b', other: 1 }), { traceparent: 'p', baggage: 'b' });
    assert.deepEqual(api.traceContextFromMeta({ traceparent: 'p', tracestate: 5 }), { traceparent: 'p' });
    assert.equal(api.traceContextFromMeta({ tracestate: 'x' }), undefined);
    assert.equal(api.traceContextFromMeta(undefined), undefined);
  }
  assert.equal(traceContextFromMeta, esm.traceContextFromMeta);
  assert.equal(traceContextToMeta, esm.traceContextToMeta);
});

test('trace context: traceContext rides on list requests too (tools, resources), as 2.0 sends it', async () => {
  const listed = [];
  const fetchSpy = async (url, init) => {
    const body = init?.body == null ? '' : typeof init.body === 'string' ? init.body : Buffer.from(init.body).toString();
    const method = body.match(/"method":"([^"]+\/list)"/)?.[1];
    if (method) listed.push({ method, traceparent: JSON.parse(body).params?._meta?.traceparent });
    return fetch(url, init);
  };
  const c = client({ url: httpServer.url, fetch: fetchSpy, traceContext: () => ({ traceparent: '00-listing-01' }) });
  await c.listTools();
  await c.resources.list();
  for (const method of ['tools/list', 'resources/list']) {
    const sent = listed.filter((l) => l.method === method);
    assert.ok(sent.length > 0, `${method} sent: ${JSON.stringify(listed)}`);
    assert.ok(sent.every((l) => l.traceparent === '00-listing-01'), `${method} carries the trace: ${JSON.stringify(sent)}`);
  }
});

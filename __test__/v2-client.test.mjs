// @mastra/mcp 2.0's client API on our package, against 2.0's own `MCPServer` (fixtures/mastra2-server, on the
// devDependency alias `@mastra/mcp-v2`) over stdio and Streamable HTTP: what the 2.0 migration guide shows a client
// doing — a suspending tool answered through `inputRequests`, per-request logs at `serverLogLevel`, resource
// subscriptions, the trace context (SEP-414) — plus the rule between `inputRequests` and 1.18's
// `elicitation.onRequest`, `inputRequests` for a handshake-era `elicitation/create`, and the new exports.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent } from '@mastra/core/agent';
import { MockLanguageModelV2 } from 'ai/test';
import * as esm from '../index.mjs';
import { MCPClient, InternalMastraMCPClient, traceContextFromMeta, traceContextToMeta, MCP_CLIENT_PROTOCOL_VERSION } from '../index.mjs';
import { waitFor, nodeBin, fixturePath, startUrlServer } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const server2 = fixturePath('mastra2-server/server.mjs');
const server118 = fixturePath('mastra-server/server.mjs');

/** Starts the 2.0 fixture over Streamable HTTP on 127.0.0.1; resolves once it printed its URL. */
async function startHttp() {
  const server = await startUrlServer('@mastra/mcp 2.0 fixture', nodeBin, [server2, 'http']);
  return { ...server, url: new URL(server.url) };
}

let httpServer;
const clients = [];
before(async () => {
  httpServer = await startHttp();
});
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await httpServer?.stop();
});

let nextId = 0;
function client(def, options = {}) {
  const c = new MCPClient({ id: `v2-client-${nextId++}`, servers: { s: def }, ...options });
  clients.push(c);
  return c;
}

const TRANSPORTS = [
  ['stdio', (extra = {}) => ({ command: nodeBin, args: [server2, 'stdio'], ...extra })],
  ['Streamable HTTP', (extra = {}) => ({ url: httpServer.url, ...extra })],
];

const serverLogs = (logs) => logs.filter((l) => l.message === '[s] [MCP SERVER LOG]');

for (const [label, define] of TRANSPORTS) {
  describe(`v2 client against @mastra/mcp 2.0's MCPServer (${label})`, () => {
    test('the session is 2026-07-28', async () => {
      const c = client(define());
      await c.listTools();
      assert.deepEqual(c.getServerProtocolVersions(), { s: MCP_CLIENT_PROTOCOL_VERSION });
    });

    test('inputRequests answers a suspending tool (the migration guide\'s bookDelivery)', async () => {
      const asked = [];
      const c = client(
        define({
          inputRequests: async ({ key, params, signal }) => {
            asked.push({ key, params, aborted: signal.aborted, isSignal: signal instanceof AbortSignal });
            return { action: 'accept', content: { address: '1 Main St' } };
          },
        }),
      );
      const tools = await c.listTools();
      const result = await tools.s_bookDelivery.execute({ orderId: 'o-7' }, {});
      assert.deepEqual(result, { confirmed: true, address: '1 Main St' });
      assert.equal(asked.length, 1);
      assert.equal(typeof asked[0].key, 'string');
      assert.ok(asked[0].key.length > 0);
      assert.equal(asked[0].params.message, 'Delivery address for o-7?');
      assert.deepEqual(Object.keys(asked[0].params.requestedSchema.properties), ['address']);
      assert.equal(asked[0].isSignal, true);
      assert.equal(asked[0].aborted, false);
    });

    test('inputRequests is asked once per round (two rounds, two answers)', async () => {
      const answers = ['Ada', 'London'];
      const asked = [];
      const c = client(
        define({
          inputRequests: async ({ key, params }) => {
            asked.push(key);
            assert.ok(params.requestedSchema);
            return { action: 'accept', content: { answer: answers[asked.length - 1] } };
          },
        }),
      );
      const tools = await c.listTools();
      const result = await tools.s_twoQuestions.execute({}, {});
      assert.match(JSON.stringify(result), /Ada from London/);
      assert.equal(asked.length, 2);
    });

    test('a declined input request ends the call with an error', async () => {
      const c = client(define({ inputRequests: async () => ({ action: 'decline' }) }));
      const tools = await c.listTools();
      await assert.rejects(tools.s_bookDelivery.execute({ orderId: 'o-8' }, {}));
    });

    test('without inputRequests (nor elicitation.onRequest) a request for input fails the call', async () => {
      const c = client(define());
      const tools = await c.listTools();
      await assert.rejects(tools.s_bookDelivery.execute({ orderId: 'o-9' }, {}), (e) => {
        assert.match(String(e?.message), /elicitation|input/i);
        return true;
      });
    });

    test('a handler registered with elicitation.onRequest takes precedence over inputRequests', async () => {
      const calls = [];
      const c = client(
        define({
          inputRequests: async () => {
            calls.push('inputRequests');
            return { action: 'accept', content: { address: 'from inputRequests' } };
          },
        }),
      );
      await c.elicitation.onRequest('s', async (params) => {
        calls.push(`onRequest:${params.message}`);
        return { action: 'accept', content: { address: 'from onRequest' } };
      });
      const tools = await c.listTools();
      assert.deepEqual(await tools.s_bookDelivery.execute({ orderId: 'p' }, {}), { confirmed: true, address: 'from onRequest' });
      assert.deepEqual(calls, ['onRequest:Delivery address for p?']);
    });

    test('the signal aborts when the call is aborted', async () => {
      let seen;
      const c = client(
        define({
          inputRequests: ({ signal }) =>
            new Promise((_, reject) => {
              seen = signal;
              signal.addEventListener('abort', () => reject(signal.reason), { once: true });
            }),
        }),
      );
      const tools = await c.listTools();
      const ac = new AbortController();
      const call = tools.s_bookDelivery.execute({ orderId: 'a' }, { abortSignal: ac.signal });
      await waitFor(() => seen, { timeoutMs: 20000, message: 'the input request to reach the handler' });
      assert.equal(seen.aborted, false);
      ac.abort();
      await assert.rejects(call);
      await waitFor(() => seen.aborted, { timeoutMs: 20000, message: 'the handler signal to abort' });
      assert.equal(seen.reason?.name, 'AbortError');
    });

    test('the signal aborts when the call times out (the server timeout: 3 s), failing the call', async () => {
      let seen;
      const c = client(
        define({
          timeout: 3000,
          inputRequests: ({ signal }) => {
            seen = signal;
            return new Promise(() => {}); // never answers; the timeout ends it
          },
        }),
      );
      const tools = await c.listTools();
      await assert.rejects(tools.s_bookDelivery.execute({ orderId: 't' }, {}), /timed out after 3000ms/);
      assert.equal(seen.aborted, true);
      assert.equal(seen.reason?.name, 'TimeoutError');
    });

    test('the signal aborts when the client disconnects', async () => {
      let seen;
      const c = client(
        define({
          inputRequests: ({ signal }) => {
            seen = signal;
            return new Promise(() => {});
          },
        }),
      );
      const tools = await c.listTools();
      const call = tools.s_bookDelivery.execute({ orderId: 'd' }, {});
      call.catch(() => {});
      await waitFor(() => seen, { timeoutMs: 20000, message: 'the input request to reach the handler' });
      await c.disconnect();
      await assert.rejects(call);
      await waitFor(() => seen.aborted, { timeoutMs: 20000, message: 'the handler signal to abort on disconnect' });
    });

    test('per-request server logs arrive at serverLogLevel, by default info (as in 2.0)', async () => {
      const logs = [];
      const c = client(define({ logger: (m) => logs.push(m) }));
      const tools = await c.listTools();
      await tools.s_chatty.execute({ tag: 'default' }, {});
      await waitFor(() => serverLogs(logs).length >= 2, { timeoutMs: 20000, message: `two server logs: ${JSON.stringify(serverLogs(logs))}` });
      assert.deepEqual(serverLogs(logs).map((l) => l.level), ['info', 'warning']);

      const warnings = [];
      const w = client(define({ serverLogLevel: 'warning', logger: (m) => warnings.push(m) }));
      await (await w.listTools()).s_chatty.execute({ tag: 'warn' }, {});
      await waitFor(() => serverLogs(warnings).length >= 1, { timeoutMs: 20000, message: 'a warning log' });
      assert.deepEqual(serverLogs(warnings).map((l) => l.level), ['warning']);
      assert.match(JSON.stringify(serverLogs(warnings)[0].details), /warn: warning line/);
    });

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

    test('resource subscriptions: onUpdated fires for a subscribed resource', async () => {
      const updates = [];
      const c = client(define());
      await c.resources.onUpdated('s', (params) => updates.push(params.uri));
      await c.resources.subscribe('s', 'weather://forecast');
      const tools = await c.listTools();
      await tools.s_setForecast.execute({ text: 'rain' }, {});
      await waitFor(() => updates.includes('weather://forecast'), { timeoutMs: 20000, message: 'a resource update' });
      const read = await c.resources.read('s', 'weather://forecast');
      assert.equal(read.contents[0].text, 'rain');
      await c.resources.unsubscribe('s', 'weather://forecast');
    });

    test('InternalMastraMCPClient: negotiatedProtocolVersion', async () => {
      const internal = new InternalMastraMCPClient({ name: 's', server: define() });
      try {
        assert.equal(internal.negotiatedProtocolVersion, undefined);
        await internal.connect();
        assert.equal(internal.negotiatedProtocolVersion, '2026-07-28');
      } finally {
        await internal.disconnect();
      }
    });
  });
}

test('v2: a Mastra Agent\'s tool call carries the caller\'s trace context to the server', async () => {
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

test('v2: inputRequests answers a handshake-era elicitation/create (1.18 MCPServer); key is the request id', async () => {
  const asked = [];
  const c = client({
    command: nodeBin,
    args: [server118, 'stdio', 'legacy'],
    inputRequests: async ({ key, params, signal }) => {
      asked.push({ key, message: params.message, signal });
      return { action: 'accept', content: { name: 'Grace' } };
    },
  });
  const tools = await c.listTools();
  assert.equal(c.getServerProtocolVersions().s, '2025-11-25');
  assert.match(JSON.stringify(await tools.s_ask.execute({ question: 'Your name?' }, {})), /Hello, Grace/);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].message, 'Your name?');
  assert.match(asked[0].key, /^\S+$/);
  assert.ok(asked[0].signal instanceof AbortSignal);
});

test('v2: traceContextFromMeta / traceContextToMeta / MCP_CLIENT_PROTOCOL_VERSION, ESM and CJS', () => {
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

test('v2: traceContext rides on list requests too (tools, resources), as 2.0 sends it', async () => {
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

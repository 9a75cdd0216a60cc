// OpenTelemetry client spans and metrics (docs/observability.md): with a tracer and a meter provider
// registered, connect/list/call are client spans under the caller's span, named and attributed per
// the MCP semantic conventions (the request id the core sent, the HTTP session and version), the
// connect and the notifications the client sends are spans of their own, what an operation suffered
// (a reconnect, a re-initialized session) is a span event, the span's trace context reaches the
// server in `_meta`, and the operation and session histograms are recorded; with no provider
// nothing of OpenTelemetry is loaded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trace, context, metrics, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { MCPClient, InternalMastraMCPClient } from '../index.mjs';
import { startHttpFixture } from './fixtures/http-server.mjs';
import { nodeBin, fixturePath, startUrlServer, stdioFixtureServer, waitFor } from './fixtures/helpers.mjs';

const mastraServer = fixturePath('mastra-server/server.mjs');
const server2 = fixturePath('mastra2-server/server.mjs');

class TestReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

const exporter = new InMemorySpanExporter();
const reader = new TestReader();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const meterProvider = new MeterProvider({ readers: [reader] });
const servers = {};
const clients = [];

before(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  const [legacy, modern, v2] = await Promise.all([
    startUrlServer('mastra legacy', nodeBin, [mastraServer, 'http', 'legacy']),
    startUrlServer('mastra 2026-07-28', nodeBin, [mastraServer, 'http', '2026-07-28']),
    startUrlServer('mastra 2.0', nodeBin, [server2, 'http']),
  ]);
  Object.assign(servers, { legacy, modern, v2 });
});
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
});

let nextId = 0;
function client(def, options = {}) {
  const c = new MCPClient({ id: `otel-${nextId++}`, servers: { s: def }, ...options });
  clients.push(c);
  return c;
}

// The era is pinned for 2026-07-28 (the client's default start is the handshake, which a dual-era
// server accepts).
const CASES = [
  ['stdio, 2025-11-25 era', () => ({ command: nodeBin, args: [mastraServer, 'stdio', 'legacy'] }), 'pipe', 'legacy'],
  ['stdio, 2026-07-28 era', () => ({ command: nodeBin, args: [mastraServer, 'stdio', '2026-07-28'], protocolVersion: '2026-07-28' }), 'pipe', 'modern'],
  ['Streamable HTTP, 2025-11-25 era', () => ({ url: new URL(servers.legacy.url) }), 'tcp', 'legacy'],
  ['Streamable HTTP, 2026-07-28 era', () => ({ url: new URL(servers.modern.url), protocolVersion: '2026-07-28' }), 'tcp', 'modern'],
];

const parentOf = (s) => s.parentSpanContext?.spanId ?? s.parentSpanId;
/** The finished spans whose parent is `span`, in start order. */
function childrenOf(spans, span) {
  const id = span.spanContext().spanId;
  return spans.filter((s) => parentOf(s) === id).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

for (const [label, define, transport, era] of CASES) {
  test(`${label}: connect, list and calls are a tree of client spans under the caller's span, with the conventions' attributes`, async () => {
    exporter.reset();
    const c = client(define());
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('agent step', async (parent) => {
      const tools = await c.listTools();
      await tools.s_add.execute({ a: 2, b: 3 }, {});
      await assert.rejects(tools.s_fail.execute({ reason: 'boom' }, {}));
      parent.end();
    });
    const spans = exporter.getFinishedSpans();
    const parent = spans.find((s) => s.name === 'agent step');
    const mine = childrenOf(spans, parent);
    const names = mine.map((s) => s.name);
    assert.deepEqual(names, ['tools/list', 'tools/call add', 'tools/call fail'], JSON.stringify(names));
    // The connect of the first listing: its own spans, children of the listing that waited for it.
    const connect = childrenOf(spans, mine[0]);
    const expected = era === 'legacy' ? ['initialize', 'notifications/initialized'] : ['server/discover'];
    assert.deepEqual(connect.map((s) => s.name), expected);
    const version = era === 'legacy' ? '2025-11-25' : '2026-07-28';
    for (const s of connect) {
      assert.equal(s.kind, SpanKind.CLIENT);
      assert.equal(s.attributes['mcp.method.name'], s.name);
      assert.equal(s.attributes['mcp.protocol.version'], version);
      assert.equal(s.attributes['network.transport'], transport);
      assert.equal(s.attributes['jsonrpc.request.id'], undefined, 'not known for the handshake');
    }
    assert.equal(spans.length, 1 + mine.length + connect.length, 'no other spans');
    for (const s of mine) {
      assert.equal(s.attributes['mcp.protocol.version'], version);
      assert.equal(typeof s.attributes['jsonrpc.request.id'], 'string', `${s.name}: the request id sent`);
      if (transport === 'pipe') assert.equal(s.attributes['mcp.session.id'], undefined);
      if (transport === 'tcp') {
        assert.equal(s.attributes['network.protocol.version'], '1.1');
        // A 2025-11-25 Streamable HTTP session has an id; a 2026-07-28 one is stateless.
        if (era === 'legacy') assert.match(String(s.attributes['mcp.session.id']), /^[\w-]+$/, `${s.name}: the session id`);
        else assert.equal(s.attributes['mcp.session.id'], undefined);
      }
    }
    const ids = new Set(mine.map((s) => s.attributes['jsonrpc.request.id']));
    assert.equal(ids.size, mine.length, 'each request its own id');
    for (const s of mine) {
      assert.equal(s.kind, SpanKind.CLIENT);
      assert.equal(s.spanContext().traceId, parent.spanContext().traceId);
      assert.equal(s.parentSpanContext?.spanId ?? s.parentSpanId, parent.spanContext().spanId, `${s.name} is a child of the caller's span`);
      assert.equal(s.attributes['network.transport'], transport);
      assert.match(String(s.attributes['mcp.protocol.version']), /^\d{4}-\d\d-\d\d$/);
      if (transport === 'tcp') {
        assert.equal(s.attributes['server.address'], '127.0.0.1');
        assert.equal(typeof s.attributes['server.port'], 'number');
        assert.equal(s.attributes['network.protocol.name'], 'http');
      }
    }
    const [list, ok, failed] = mine;
    assert.equal(list.attributes['mcp.method.name'], 'tools/list');
    assert.equal(ok.attributes['mcp.method.name'], 'tools/call');
    assert.equal(ok.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(ok.attributes['gen_ai.tool.name'], 'add');
    assert.notEqual(ok.status.code, SpanStatusCode.ERROR);
    assert.equal(ok.attributes['error.type'], undefined);
    assert.equal(failed.attributes['gen_ai.tool.name'], 'fail');
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
    assert.equal(failed.attributes['error.type'], 'tool_error');
  });
}

for (const [label, define] of [
  ['stdio', () => ({ command: nodeBin, args: [server2, 'stdio'] })],
  ['Streamable HTTP', () => ({ url: new URL(servers.v2.url) })],
]) {
  test(`${label}: the client span's trace context reaches the server in _meta; an explicit traceContext wins`, async () => {
    exporter.reset();
    const c = client(define());
    const tools = await c.listTools();
    const seen = JSON.parse((await tools.s_traced.execute({}, {})).content[0].text);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'tools/call traced');
    assert.ok(span, 'a tools/call span');
    const sc = span.spanContext();
    assert.equal(seen.traceparent, `00-${sc.traceId}-${sc.spanId}-01`);

    const own = client({ ...define(), traceContext: () => ({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }) });
    const ownSeen = JSON.parse((await (await own.listTools()).s_traced.execute({}, {})).content[0].text);
    assert.equal(ownSeen.traceparent, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  });
}

test('a connect that fails: the listing\'s span and its initialize child span carry the error', async () => {
  exporter.reset();
  const c = client({ command: nodeBin, args: ['-e', 'process.exit(7)'] });
  const out = await c.listToolsWithErrors();
  assert.ok(out.errors.s, 'the server failed');
  const spans = exporter.getFinishedSpans();
  const list = spans.find((s) => s.name === 'tools/list');
  assert.equal(list.status.code, SpanStatusCode.ERROR);
  const [init] = childrenOf(spans, list);
  assert.equal(init?.name, 'initialize');
  assert.equal(init.status.code, SpanStatusCode.ERROR);
  assert.ok(init.attributes['error.type'], JSON.stringify(init.attributes));
  assert.equal(init.attributes['error.type'], list.attributes['error.type']);
});

test('a server that died: the next call\'s span shows the reconnect as an event and the new session\'s connect as child spans; the dead session\'s duration is recorded', async () => {
  const c = client(stdioFixtureServer());
  const tools = await c.listTools();
  await assert.rejects(tools.s_count_then_exit.execute({}, {}), /closed/i);
  exporter.reset();
  await trace.getTracer('test').startActiveSpan('agent step', async (parent) => {
    await tools.s_count_calls.execute({}, {});
    parent.end();
  });
  const spans = exporter.getFinishedSpans();
  const [call] = childrenOf(spans, spans.find((s) => s.name === 'agent step'));
  assert.equal(call.name, 'tools/call count_calls');
  const reconnect = call.events.find((e) => e.name === 'mcp.client.reconnect');
  assert.ok(reconnect, `a reconnect event: ${JSON.stringify(call.events)}`);
  assert.match(String(reconnect.attributes.reason), /closed/);
  assert.deepEqual(childrenOf(spans, call).map((s) => s.name), ['initialize', 'notifications/initialized']);
  assert.notEqual(call.status.code, SpanStatusCode.ERROR);
  const died = await waitFor(async () => (await sessionPoints()).find((p) => p.attributes['error.type'] === 'TRANSPORT_CLOSED'), {
    message: 'the dead session recorded',
  });
  assert.equal(died.attributes['network.transport'], 'pipe');
  assert.equal(died.attributes['mcp.protocol.version'], '2025-11-25');
});

test('a session the server expired (HTTP 404): the call\'s span shows the re-initialized session as an event and carries the new session id', async (t) => {
  const fx = await startHttpFixture();
  t.after(() => fx.close());
  const c = client({ url: new URL(fx.mcpUrl) });
  const tools = await c.listTools();
  const first = exporter.getFinishedSpans().find((s) => s.name === 'tools/list').attributes['mcp.session.id'];
  fx.expireSessions();
  exporter.reset();
  assert.equal((await tools.s_echo.execute({ message: 'again' }, {})).content[0].text, 'Echo: again');
  const spans = exporter.getFinishedSpans();
  const call = spans.find((s) => s.name === 'tools/call echo');
  assert.ok(call.events.some((e) => e.name === 'mcp.client.session_reinitialized'), JSON.stringify(call.events));
  assert.ok(call.attributes['mcp.session.id'] && call.attributes['mcp.session.id'] !== first, 'the call ran in the new session');
});

test('a cancelled call: notifications/cancelled is a client span under the call\'s span', async (t) => {
  const fx = await startHttpFixture();
  t.after(() => fx.close());
  const c = client({ url: new URL(fx.mcpUrl) });
  const tools = await c.listTools();
  exporter.reset();
  const ac = new AbortController();
  const call = tools.s_slow.execute({ ms: 60000 }, { abortSignal: ac.signal });
  await waitFor(() => fx.requests.some((r) => r.body.includes('"tools/call"') && r.body.includes('"slow"')), { message: 'the call reached the server' });
  ac.abort();
  await assert.rejects(call);
  const spans = exporter.getFinishedSpans();
  const span = spans.find((s) => s.name === 'tools/call slow');
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  const [cancelled] = childrenOf(spans, span);
  assert.equal(cancelled?.name, 'notifications/cancelled');
  assert.equal(cancelled.kind, SpanKind.CLIENT);
  assert.equal(cancelled.attributes['mcp.method.name'], 'notifications/cancelled');
  assert.equal(cancelled.attributes['jsonrpc.request.id'], undefined, 'a notification has no id');
  await waitFor(() => fx.requests.some((r) => r.body.includes('notifications/cancelled')), { message: 'the server heard it' });
});

test('a cancelled call on the stdio fast path: the lane\'s notifications/cancelled is a client span under the call\'s span', async () => {
  const log = join(mkdtempSync(join(tmpdir(), 'otel-')), 'recv.log');
  writeFileSync(log, '');
  const c = client(stdioFixtureServer({ FIXTURE_RECV_LOG: log }));
  const tools = await c.listTools();
  exporter.reset();
  const ac = new AbortController();
  const call = tools.s_slow.execute({ ms: 60000 }, { abortSignal: ac.signal });
  await waitFor(() => readFileSync(log, 'utf8').includes('"slow"'), { message: 'the call reached the server' });
  ac.abort();
  await assert.rejects(call);
  const spans = exporter.getFinishedSpans();
  const span = spans.find((s) => s.name === 'tools/call slow');
  assert.match(String(span.attributes['jsonrpc.request.id']), /^n\d+$/, 'the lane\'s id');
  assert.deepEqual(childrenOf(spans, span).map((s) => s.name), ['notifications/cancelled']);
  await waitFor(() => readFileSync(log, 'utf8').includes('notifications/cancelled'), { message: 'the server heard it' });
});

test('notifications/roots/list_changed is a client span under the caller\'s span', async () => {
  const c = new InternalMastraMCPClient({ name: 's', server: { command: nodeBin, args: [mastraServer, 'stdio', 'legacy'] } });
  clients.push(c);
  await c.connect();
  exporter.reset();
  await trace.getTracer('test').startActiveSpan('agent step', async (parent) => {
    await c.setRoots([{ uri: 'file:///tmp/otel', name: 'otel' }]);
    parent.end();
  });
  const spans = exporter.getFinishedSpans();
  const [note] = childrenOf(spans, spans.find((s) => s.name === 'agent step'));
  assert.equal(note?.name, 'notifications/roots/list_changed');
  assert.equal(note.kind, SpanKind.CLIENT);
  assert.equal(note.attributes['mcp.method.name'], 'notifications/roots/list_changed');
  assert.equal(note.attributes['network.transport'], 'pipe');
  assert.equal(note.attributes['jsonrpc.request.id'], undefined, 'a notification has no id');
  assert.equal(spans.length, 2);
});

test('mcp.client.session.duration is recorded in seconds when a session is disconnected, with the attributes the conventions allow', async () => {
  const c = client({ url: new URL(servers.legacy.url) });
  await c.listTools();
  await c.disconnect();
  const port = Number(new URL(servers.legacy.url).port);
  const point = await waitFor(async () => (await sessionPoints()).find((p) => p.attributes['server.port'] === port && !p.attributes['error.type']), {
    message: 'the session recorded after disconnect',
  });
  assert.deepEqual(point.attributes, {
    'mcp.protocol.version': '2025-11-25',
    'network.protocol.name': 'http',
    'network.protocol.version': '1.1',
    'network.transport': 'tcp',
    'server.address': '127.0.0.1',
    'server.port': port,
  });
  assert.ok(point.value.count >= 1 && point.value.sum > 0);
});

/** The data points of `mcp.client.session.duration` so far. */
async function sessionPoints() {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.client.session.duration');
  if (metric) assert.equal(metric.descriptor.unit, 's');
  return metric?.dataPoints ?? [];
}

test('resources/read and prompts/get are spans; a failed request sets the error status and error.type', async () => {
  exporter.reset();
  const c = client({ command: nodeBin, args: [mastraServer, 'stdio', 'legacy'] });
  const read0 = await c.resources.read('s', 'fixture://greeting');
  assert.equal(read0.contents[0].text, 'Hello from Mastra', 'the result as the server sent it (the trace stays inside)');
  assert.equal(read0.mastraMcpTrace, undefined);
  await c.prompts.get({ serverName: 's', name: 'greet', args: { name: 'Ada' } }).catch(() => {});
  await assert.rejects(c.resources.read('s', 'fixture://missing'));
  const spans = exporter.getFinishedSpans();
  const [read, prompt, missing] = spans.filter((s) => !parentOf(s));
  assert.deepEqual(childrenOf(spans, read).map((s) => s.name), ['initialize', 'notifications/initialized'], 'the first request opened the session');
  assert.equal(read.name, 'resources/read', 'the uri is not in the span name (cardinality)');
  assert.equal(read.attributes['mcp.resource.uri'], 'fixture://greeting');
  assert.equal(typeof read.attributes['jsonrpc.request.id'], 'string');
  assert.equal(read.attributes['mcp.protocol.version'], '2025-11-25');
  assert.equal(prompt.name, 'prompts/get greet');
  assert.equal(prompt.attributes['gen_ai.prompt.name'], 'greet');
  assert.equal(missing.status.code, SpanStatusCode.ERROR);
  assert.ok(missing.attributes['error.type'], JSON.stringify(missing.attributes));
});

test('mcp.client.operation.duration is recorded in seconds with the conventions\' metric attributes', async () => {
  const c = client({ command: nodeBin, args: [mastraServer, 'stdio', 'legacy'] });
  const tools = await c.listTools();
  await tools.s_add.execute({ a: 1, b: 1 }, {});
  const { resourceMetrics } = await reader.collect();
  const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  const op = all.find((m) => m.descriptor.name === 'mcp.client.operation.duration');
  assert.ok(op, `the histogram: ${all.map((m) => m.descriptor.name)}`);
  assert.equal(op.descriptor.unit, 's');
  const call = op.dataPoints.find((p) => p.attributes['mcp.method.name'] === 'tools/call' && p.attributes['gen_ai.tool.name'] === 'add');
  assert.ok(call && call.value.count >= 1, 'a tools/call data point');
  assert.equal(call.attributes['gen_ai.operation.name'], 'execute_tool');
  assert.ok(!('jsonrpc.request.id' in call.attributes) && !('mcp.session.id' in call.attributes), 'no high-cardinality attributes');
});

test('telemetry: false records nothing for that client', async () => {
  exporter.reset();
  const c = client({ command: nodeBin, args: [mastraServer, 'stdio', 'legacy'] }, { telemetry: false });
  await (await c.listTools()).s_add.execute({ a: 1, b: 2 }, {});
  assert.deepEqual(exporter.getFinishedSpans(), []);
});

test('with no provider registered nothing of OpenTelemetry is loaded', () => {
  const entry = fileURLToPath(new URL('../index.js', import.meta.url));
  const script = `
    const { MCPClient } = require(${JSON.stringify(entry)});
    (async () => {
      const c = new MCPClient({ id: 'no-otel', servers: { s: { command: ${JSON.stringify(nodeBin)}, args: [${JSON.stringify(mastraServer)}, 'stdio', 'legacy'] } } });
      const tools = await c.listTools();
      await tools.s_add.execute({ a: 1, b: 2 }, {});
      await c.resources.list();
      await c.disconnect();
      const loaded = Object.keys(require.cache).filter((k) => k.includes('@opentelemetry'));
      process.stdout.write(JSON.stringify(loaded));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const out = spawnSync(nodeBin, ['-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(out.status, 0, out.stderr);
  assert.deepEqual(JSON.parse(out.stdout), []);
});

for (const [label, define] of [
  ['stdio', () => ({ command: nodeBin, args: [fixturePath('tool-names-server.mjs'), 'stdio'] })],
  ['our stdio fixture', () => stdioFixtureServer()],
]) {
  test(`${label}: a call the server refused with a JSON-RPC error has that code as error.type and rpc.response.status_code`, async () => {
    // The TypeScript SDK's McpServer answers an unknown tool as an isError result saying `MCP error -32602: …`;
    // our stdio fixture answers it as a JSON-RPC error. Either way the span carries -32602.
    const c = client(define());
    const definitions = await c.listToolDefinitions();
    const some = Object.values(definitions.s)[0];
    const ghost = await c.toolFromDefinition({ serverName: 's', definition: { ...some, name: 'no_such_tool' } });
    exporter.reset();
    await assert.rejects(ghost.execute({}, {}), /-32602/);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'tools/call no_such_tool');
    assert.ok(span, 'the call has a span');
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.equal(span.attributes['error.type'], '-32602');
    assert.equal(span.attributes['rpc.response.status_code'], '-32602');
  });
}

// A 2026-07-28 session's one `subscriptions/listen` stream carries every interest (list changes,
// subscribed resources) and loses nothing: handlers set before or after a subscription, many
// subscriptions changed at once, reconnects in between; and the era is learned once per client.
// Against @mastra/mcp 2.0's own MCPServer over Streamable HTTP (fixtures/mastra2-listen-server.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { InternalMastraMCPClient, MCPClient } from '../index.mjs';
import { nodeBin, fixturePath, startUrlServer, waitFor } from './fixtures/helpers.mjs';

let server;
before(async () => {
  server = await startUrlServer('mastra2-listen', nodeBin, [fixturePath('mastra2-listen-server.mjs')]);
});
after(() => server?.stop());

/** A custom fetch that records the JSON-RPC messages the client sent (and their methods). */
function wireSpy() {
  const methods = [];
  const messages = [];
  const fetchSpy = async (url, init) => {
    if (typeof init?.body === 'string') {
      try {
        const m = JSON.parse(init.body);
        methods.push(m.method);
        messages.push(m);
      } catch {
        // not JSON-RPC
      }
    }
    return fetch(url, init);
  };
  return { methods, messages, fetchSpy };
}

let n = 0;
function internal(extra = {}) {
  return new InternalMastraMCPClient({ name: `listen${n++}`, server: { url: new URL(server.url), ...extra } });
}

const textOf = (r) => r?.content?.[0]?.text;

test('a tool list-changed handler and a resource subscription share the stream: both kinds arrive', async () => {
  for (const handlerFirst of [true, false]) {
    const c = internal();
    try {
      await c.connect();
      const changes = [];
      const updates = [];
      c.setResourceUpdatedNotificationHandler((p) => updates.push(p?.uri ?? p?.params?.uri));
      if (handlerFirst) {
        await c.setToolListChangedNotificationHandler(() => changes.push('tools'));
        await c.subscribeResource('res://1');
      } else {
        await c.subscribeResource('res://1');
        await c.setToolListChangedNotificationHandler(() => changes.push('tools'));
      }
      const tools = await c.tools();
      assert.equal(textOf(await tools.addTool.execute({ name: `added_${handlerFirst}` })), `added added_${handlerFirst}`);
      await waitFor(() => changes.length > 0, { timeoutMs: 10_000, message: `the tool list change reached its handler (handler first: ${handlerFirst})` });
      await tools.touch.execute({ uri: 'res://1' });
      await waitFor(() => updates.includes('res://1'), { timeoutMs: 10_000, message: 'the resource update arrived too' });
    } finally {
      await c.disconnect();
    }
  }
});

test('12 subscribed at once, 6 dropped at once, a forced reconnect: updates for kept URIs only', async () => {
  const c = internal();
  try {
    await c.connect();
    const updates = [];
    c.setResourceUpdatedNotificationHandler((p) => updates.push(p?.uri ?? p?.params?.uri));
    const uris = Array.from({ length: 12 }, (_, i) => `res://${i}`);
    await Promise.all(uris.map((u) => c.subscribeResource(u)));
    await Promise.all(uris.slice(0, 6).map((u) => c.unsubscribeResource(u)));
    await c.forceReconnect();
    const tools = await c.tools();
    await tools.touch.execute({ uri: 'res://2' }); // dropped
    await tools.touch.execute({ uri: 'res://8' }); // kept, announced after the dropped one
    await waitFor(() => updates.includes('res://8'), { timeoutMs: 10_000, message: 'the kept URI update arrived after the reconnect' });
    assert.ok(!updates.includes('res://2'), `no update for a dropped URI (got ${updates.join(', ')})`);
  } finally {
    await c.disconnect();
  }
});

test('connect, disconnect, connect: one server/discover in all', async () => {
  const { methods, fetchSpy } = wireSpy();
  const c = internal({ fetch: fetchSpy });
  await c.connect();
  await c.disconnect();
  await c.connect();
  await c.forceReconnect();
  assert.equal(textOf(await (await c.tools()).touch.execute({ uri: 'res://0' })), 'touched res://0');
  await c.disconnect();
  assert.equal(methods.filter((m) => m === 'server/discover').length, 1, methods.join(' '));
});

test('stress: concurrent subscribe/unsubscribe, reconnects and list changes; the final interest holds', async () => {
  const c = new MCPClient({ id: 'listen-stress', servers: { s: { url: new URL(server.url), protocolVersion: '2026-07-28' } } });
  try {
    const updates = [];
    const changes = [];
    await c.resources.onUpdated('s', (p) => updates.push(p?.uri ?? p?.params?.uri));
    const uris = Array.from({ length: 12 }, (_, i) => `res://${i}`);
    const kept = new Set();
    for (let round = 0; round < 4; round++) {
      const ops = uris.map((uri, i) => {
        const keep = (i + round) % 3 !== 0;
        if (keep) kept.add(uri);
        else kept.delete(uri);
        return keep ? c.resources.subscribe('s', uri) : c.resources.unsubscribe('s', uri);
      });
      if (round % 2 === 1) ops.push(c.reconnectServer('s'));
      await Promise.all(ops);
      const tools = await c.listTools();
      await tools.s_addTool.execute({ name: `stress_${round}` });
    }
    await c.reconnectServer('s');
    await c.tools.onListChanged('s', () => changes.push('tools'));
    const tools = await c.listTools();
    await tools.s_addTool.execute({ name: 'after_last_reconnect' });
    await waitFor(() => changes.length > 0, { timeoutMs: 10_000, message: 'a list change after the last reconnect reached its handler' });
    const dropped = uris.filter((u) => !kept.has(u));
    updates.length = 0;
    for (const uri of dropped) await tools.s_touch.execute({ uri });
    for (const uri of kept) await tools.s_touch.execute({ uri });
    await waitFor(() => [...kept].every((u) => updates.includes(u)), {
      timeoutMs: 10_000,
      message: `every kept URI's update arrived (kept: ${[...kept].join(', ')})`,
    });
    assert.deepEqual(updates.filter((u) => dropped.includes(u)), [], 'none for a dropped URI');
  } finally {
    await c.disconnect();
  }
});

test('one stream at a time: a replaced or closed stream is cancelled on the wire, one severed by a reconnect is not', async () => {
  const { messages, fetchSpy } = wireSpy();
  const c = internal({ fetch: fetchSpy });
  await c.connect();
  const listens = () => messages.filter((m) => m.method === 'subscriptions/listen');
  const cancelled = () => messages.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId);
  const settle = async (count) => waitFor(() => listens().length === count, { timeoutMs: 10_000, message: `${count} listen streams` });
  await c.subscribeResource('res://1');
  await settle(1);
  await c.subscribeResource('res://1');
  await c.subscribeResource('res://2');
  await settle(2);
  await c.unsubscribeResource('res://1');
  await settle(3);
  const updates = [];
  c.setResourceUpdatedNotificationHandler((p) => updates.push(p?.uri ?? p?.params?.uri));
  const touch = (await c.tools()).touch;
  // A stream is cancelled by id once the server acknowledged it: wait until one carries an update.
  const carried = async (what) => {
    updates.length = 0;
    await waitFor(async () => {
      await touch.execute({ uri: 'res://2' });
      return updates.includes('res://2');
    }, { timeoutMs: 10_000, message: `${what} carries updates` });
  };
  await c.forceReconnect();
  await settle(4);
  await carried('the stream after the reconnect');
  await c.unsubscribeResource('res://2');
  await c.subscribeResource('res://2');
  await settle(5);
  await carried('the last stream');
  await c.disconnect();
  const ids = listens().map((m) => m.id);
  assert.deepEqual(listens().map((m) => m.params.notifications.resourceSubscriptions), [['res://1'], ['res://1', 'res://2'], ['res://2'], ['res://2'], ['res://2']]);
  await waitFor(() => cancelled().length === 4, { timeoutMs: 10_000, message: `four cancellations (got ${JSON.stringify(cancelled())})` });
  assert.deepEqual(cancelled(), [ids[0], ids[1], ids[3], ids[4]], 'replaced, replaced, closed, closed at disconnect; not the one the reconnect severed');
  assert.ok(!messages.some((m) => m.method === 'resources/subscribe'), 'no resources/subscribe in this era');
});

// A 2026-07-28 session's one `subscriptions/listen` stream carries every interest (list changes,
// subscribed resources) and loses nothing: handlers set before or after a subscription, many
// subscriptions changed at once, reconnects in between; and the era is learned once per client.
// Against @mastra/mcp 2.0's own MCPServer over Streamable HTTP (fixtures/mastra2-listen-server.mjs).
// What the client sends is read on the wire (fixtures/wire-tap.mjs, a relay in front of the server),
// so the same assertions hold whatever carries the bytes: the tests that prove the stream's
// behaviour run over {built-in HTTP, a user's fetch} × {MCPClient, InternalMastraMCPClient}.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { InternalMastraMCPClient, MCPClient } from '../index.mjs';
import { nodeBin, fixturePath, startUrlServer, waitFor } from './fixtures/helpers.mjs';
import { startWireTap } from './fixtures/wire-tap.mjs';

let server;
let tap;
before(async () => {
  server = await startUrlServer('mastra2-listen', nodeBin, [fixturePath('mastra2-listen-server.mjs')]);
  tap = await startWireTap(server.url);
});
after(async () => {
  await tap?.stop();
  await server?.stop();
});

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

/** What carries the client's HTTP: the built-in client, or a user's `fetch` (a spy: what it sent). */
const carriers = {
  'built-in HTTP': () => ({ def: {}, sent: null }),
  'a user fetch': () => {
    const { messages, fetchSpy } = wireSpy();
    return { def: { fetch: fetchSpy }, sent: messages };
  },
};

/** Both client classes behind one shape: the calls these tests make. */
const kinds = {
  MCPClient: (def) => {
    const c = new MCPClient({ id: `listen-m-${n++}`, servers: { s: { url: new URL(tap.url), protocolVersion: '2026-07-28', ...def } } });
    return {
      onUpdated: (h) => c.resources.onUpdated('s', h),
      subscribe: (uri) => c.resources.subscribe('s', uri),
      unsubscribe: (uri) => c.resources.unsubscribe('s', uri),
      reconnect: () => c.reconnectServer('s'),
      touch: async (uri) => (await c.listTools()).s_touch.execute({ uri }),
      disconnect: () => c.disconnect(),
    };
  },
  InternalMastraMCPClient: (def) => {
    const c = new InternalMastraMCPClient({ name: `listen-i-${n++}`, server: { url: new URL(tap.url), ...def } });
    return {
      connect: () => c.connect(),
      onUpdated: (h) => c.setResourceUpdatedNotificationHandler(h),
      subscribe: (uri) => c.subscribeResource(uri),
      unsubscribe: (uri) => c.unsubscribeResource(uri),
      reconnect: () => c.forceReconnect(),
      touch: async (uri) => (await c.tools()).touch.execute({ uri }),
      disconnect: () => c.disconnect(),
    };
  },
};

/** The listen streams and cancellations among `messages`. */
const listensOf = (messages) => messages.filter((m) => m.method === 'subscriptions/listen');
const cancelledOf = (messages) => messages.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId);
const filterOf = (listen) => [...(listen.params.notifications.resourceSubscriptions ?? [])].sort();

/** Per client kind, what each carrier's stress left on the wire (compared once both ran). */
const stressed = {};

for (const [kind, make] of Object.entries(kinds)) {
  for (const [carrier, carry] of Object.entries(carriers)) {
    test(`${kind} over ${carrier}: concurrent subscribe/unsubscribe with reconnects; every replaced stream is cancelled and updates follow the final interest`, async () => {
      const { def, sent } = carry();
      const mark = tap.messages.length;
      const c = make(def);
      const updates = [];
      const uris = Array.from({ length: 12 }, (_, i) => `res://${i}`);
      const kept = new Set();
      const finals = [];
      try {
        await c.connect?.();
        await c.onUpdated((p) => updates.push(p?.uri ?? p?.params?.uri));
        for (let round = 0; round < 4; round++) {
          const ops = uris.map((uri, i) => {
            const keep = (i + round) % 3 !== 0;
            if (keep) kept.add(uri);
            else kept.delete(uri);
            return keep ? c.subscribe(uri) : c.unsubscribe(uri);
          });
          // A reconnect among the changes (not after them) in every other round.
          if (round % 2 === 1) ops.splice(5, 0, c.reconnect());
          await Promise.all(ops);
          finals.push([...kept].sort());
          // Right after the changes (and the reconnect) settle: updates for kept URIs only.
          updates.length = 0;
          for (const uri of uris) await c.touch(uri);
          await waitFor(() => [...kept].every((u) => updates.includes(u)), {
            timeoutMs: 10_000,
            message: `round ${round}: every kept URI's update arrived (kept ${[...kept].join(', ')}; got ${updates.join(', ')})`,
          });
          assert.deepEqual(updates.filter((u) => !kept.has(u)), [], `round ${round}: none for a dropped URI`);
        }
      } finally {
        await c.disconnect();
      }
      const wire = tap.messages.slice(mark);
      const listens = listensOf(wire);
      // The last stream the client opened: the highest request id. (Not the last to reach the server: a
      // stream a reconnect severed on its way may arrive after the one that replaced it, on another
      // connection.)
      const last = listens.reduce((a, b) => (Number(b.id) > Number(a.id) ? b : a));
      // The last stream is closed by the disconnect: cancelled by id, as every stream replaced before it.
      await waitFor(() => cancelledOf(tap.messages.slice(mark)).includes(last.id), {
        timeoutMs: 10_000,
        message: `the last stream cancelled at disconnect: ${listens.map((l) => l.id).join(',')} / cancelled ${cancelledOf(tap.messages.slice(mark)).join(',')}`,
      });
      const cancelled = cancelledOf(tap.messages.slice(mark));
      const ids = listens.map((l) => l.id);
      assert.equal(new Set(cancelled).size, cancelled.length, 'each cancelled once');
      assert.ok(cancelled.every((id) => ids.includes(id)), 'only listen streams are cancelled');
      const severed = ids.filter((id) => !cancelled.includes(id));
      // A reconnect severs the stream that is open and, if one is on its way, its replacement: the
      // server is not told of those (as with 2.0's client), of every other it is.
      assert.ok(severed.length <= 4, `only streams the two reconnects severed go uncancelled (${severed.join(',')} of ${ids.join(',')})`);
      assert.deepEqual(filterOf(last), finals.at(-1), 'the last stream asks for the final interest');
      if (sent) {
        // A listen the reconnect dropped on its way may be aborted before it reached the wire.
        const handed = listensOf(sent).map((m) => m.id);
        assert.ok(ids.every((id) => handed.includes(id)), `the user fetch carried every listen stream (${handed.join(',')})`);
        assert.deepEqual(cancelledOf(sent), cancelled, 'and every cancellation');
      }
      stressed[kind] ??= {};
      stressed[kind][carrier] = { finals, lastStreamAsksForTheFinalInterest: true, uncancelledBeyondReconnects: Math.max(0, severed.length - 4) };
    });
  }
  test(`${kind}: the stress leaves the same listen/cancel outcome on the wire over a user fetch as over the built-in client`, (t) => {
    if (Object.keys(stressed[kind] ?? {}).length < 2) return t.skip('a carrier failed above');
    assert.deepEqual(stressed[kind]['a user fetch'], stressed[kind]['built-in HTTP']);
  });
}

for (const [carrier, carry] of Object.entries(carriers)) {
  test(`over ${carrier}: one stream at a time: a replaced or closed stream is cancelled on the wire, one severed by a reconnect is not`, async () => {
    const { def } = carry();
    const mark = tap.messages.length;
    const wire = () => tap.messages.slice(mark);
    const c = new InternalMastraMCPClient({ name: `listen-one-${n++}`, server: { url: new URL(tap.url), ...def } });
    await c.connect();
    const listens = () => listensOf(wire());
    const cancelled = () => cancelledOf(wire());
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
    const carried = async (what) => {
      updates.length = 0;
      await touch.execute({ uri: 'res://2' });
      await waitFor(() => updates.includes('res://2'), { timeoutMs: 10_000, message: `${what} carries updates` });
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
    assert.ok(!wire().some((m) => m.method === 'resources/subscribe'), 'no resources/subscribe in this era');
  });
}

// Input from the user: 1.18's `elicitation.onRequest` (accept, decline, cancel, a throwing handler, the
// requestedSchema defaults of SEP-1034) and 2.0's `inputRequests` (a suspending tool, rounds, the abort signal,
// precedence between the two, a handshake-era elicitation/create); against our stdio fixture, server-everything
// over stdio, Streamable HTTP and SSE, and @mastra/mcp 2.0's (and 1.18's) MCPServer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stdioFixtureServer, waitFor, nodeBin, fixturePath } from './fixtures/helpers.mjs';
import { useTestbed } from './fixtures/testbed.mjs';

const server118 = fixturePath('mastra-server/server.mjs');
const { client, clientOfS, everythingTransports: transports, mastra2Transports: TRANSPORTS } = useTestbed('input', { everything: true, mastra2: true });

test('elicitation: accept, decline and cancel reach the server; a throwing handler gives the server an error', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const answers = [
    { action: 'accept', content: { name: 'Ada' } },
    { action: 'decline' },
    { action: 'cancel' },
    { action: 'maybe', content: 42 },
  ];
  const seen = [];
  await c.elicitation.onRequest('fx', async (params) => {
    seen.push(params.message);
    const a = answers.shift();
    if (!a) throw new Error('no more answers');
    return a;
  });
  const tools = await c.listTools();
  const results = [];
  for (let i = 0; i < 5; i++) results.push(JSON.parse((await tools.fx_elicit.execute({}, {})).content[0].text));
  assert.deepEqual(results[0], { action: 'accept', content: { name: 'Ada' } });
  assert.equal(results[1].action, 'decline');
  assert.equal(results[2].action, 'cancel');
  // An invalid result and a throwing handler both reach the server as JSON-RPC errors.
  assert.match(JSON.stringify(results[3]), /invalid result/);
  assert.match(JSON.stringify(results[4]), /no more answers/);
  assert.equal(seen[0], 'Your name?');
  const late = client({ late: stdioFixtureServer() });
  await assert.rejects(
    late.listTools().then(() => late.elicitation.onRequest('late', async () => ({ action: 'cancel' }))),
    (e) => e.id === 'MCP_CLIENT_ON_REQUEST_ELICITATION_FAILED' && /after connecting/.test(e.message),
  );
});

test('clients of one process at once: each elicitation reaches its own client\'s handler, each result its own caller', async () => {
  const users = ['Ada', 'Grace', 'Barbara', 'Frances'];
  const asked = new Map(users.map((u) => [u, 0]));
  const clients = await Promise.all(
    users.map(async (user) => {
      const c = client({ fx: stdioFixtureServer() });
      await c.elicitation.onRequest('fx', async () => {
        asked.set(user, asked.get(user) + 1);
        return { action: 'accept', content: { name: user } };
      });
      return { user, tools: await c.listTools() };
    }),
  );
  const rounds = await Promise.all(
    clients.flatMap(({ user, tools }) => [1, 2].map(async () => ({ user, answer: JSON.parse((await tools.fx_elicit.execute({}, {})).content[0].text) }))),
  );
  for (const { user, answer } of rounds) assert.deepEqual(answer, { action: 'accept', content: { name: user } });
  for (const user of users) assert.equal(asked.get(user), 2, `${user}'s handler answered only ${user}'s calls`);
});

for (const [transport, define] of Object.entries(transports)) {
  test(`input over ${transport}: elicitation applies requestedSchema defaults to fields an accept left out`, async () => {
    const c = client({ ev: define() });
    const asked = [];
    await c.elicitation.onRequest('ev', async (request) => {
      asked.push(request);
      return { action: 'accept', content: { name: 'Grace Hopper' } };
    });
    const tools = await waitFor(async () => {
      const t = await c.listTools();
      return t['ev_trigger-elicitation-request'] ? t : undefined;
    }, { timeoutMs: 10000, message: 'elicitation tool listed' });
    const result = await tools['ev_trigger-elicitation-request'].execute({}, {});
    const text = result.content.map((b) => b.text).join('\n');
    const raw = JSON.parse(text.slice(text.indexOf('{', text.indexOf('Raw result:'))));
    assert.equal(raw.action, 'accept');
    assert.equal(raw.content.name, 'Grace Hopper', 'the answer wins over the default');
    const schema = asked[0].requestedSchema.properties;
    for (const [field, property] of Object.entries(schema)) {
      if (field === 'name' || !('default' in property)) continue;
      assert.deepEqual(raw.content[field], property.default, `default of ${field} applied`);
    }
    assert.equal(raw.content.check, undefined, 'a field without a default stays absent');
    assert.ok(Object.keys(raw.content).length > 3, 'several defaults applied');
  });
}

// @mastra/mcp 2.0's MCPServer (fixtures/mastra2-server), one server named `s`: `TRANSPORTS`.

for (const [label, define] of TRANSPORTS) {
  describe(`inputRequests against @mastra/mcp 2.0's MCPServer (${label})`, () => {
    const client = clientOfS;
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
  });
}

test('inputRequests answers a handshake-era elicitation/create (1.18 MCPServer); key is the request id', async () => {
  const asked = [];
  const c = clientOfS({
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

// Per-user clients (the reference page's dynamic toolsets: a new MCPClient per user, with their
// own token): what is shared across clients of one process — pooled connections, compiled
// validators, a URL's era and a discover answer that allows it — and what never is: sessions,
// credentials, tool lists. Against a fixture server that gives each token its own tools and
// records every request's token, session and TCP connection.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createRequire } from 'node:module';
import { MCPClient, InternalMastraMCPClient } from '../index.mjs';
import { startPerUserServer } from './fixtures/per-user-server.mjs';

const require = createRequire(import.meta.url);
const { sharedSchemaCount } = require('../lib/shared-schemas.cjs');
const { Agent } = require('undici');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const servers = [];
after(() => Promise.all(servers.map((s) => s.stop())));
async function server(options) {
  const s = await startPerUserServer(options);
  servers.push(s);
  return s;
}

let clientCount = 0;
function userClient(url, user, extra = {}) {
  const { requestInit, ...rest } = extra;
  return new MCPClient({
    id: `per-user-${clientCount++}`,
    servers: { s: { url: new URL(url), requestInit: { headers: { Authorization: `Bearer ${user}-token` }, ...requestInit }, ...rest } },
  });
}

/** The TCP connections (fixture ids) the POSTs of `user` arrived on. */
const postConnections = (state, user) => new Set(state.requests.filter((r) => r.method === 'POST' && r.user === user).map((r) => r.connection));

test('two users of one URL: own sessions, own tool lists, own token on every request, over one pooled connection', async () => {
  const { url, state } = await server();
  const alice = userClient(url, 'alice');
  const aliceSets = await alice.listToolsets();
  assert.deepEqual(Object.keys(aliceSets.s).sort(), ['echo', 'only_alice', 'shared']);
  assert.equal(state.gets, 0, 'no GET stream went out for a client that only listed');
  assert.equal((await aliceSets.s.echo.execute({ message: 'hi' })).content[0].text, 'alice:hi');
  const aliceSession = alice.sessionIds.s;
  await alice.disconnect();

  const bob = userClient(url, 'bob');
  const bobSets = await bob.listToolsets();
  assert.deepEqual(Object.keys(bobSets.s).sort(), ['echo', 'only_bob', 'shared'], "bob sees his tools, not alice's");
  assert.equal((await bobSets.s.echo.execute({ message: 'hi' })).content[0].text, 'bob:hi');
  assert.notEqual(bob.sessionIds.s, aliceSession, 'a session of his own');
  assert.equal(state.sessions.get(aliceSession), 'alice');
  assert.equal(state.sessions.get(bob.sessionIds.s), 'bob');
  await bob.disconnect();

  assert.equal(state.mismatches, 0, "no request carried another user's token into a session");
  for (const r of state.requests.filter((x) => x.session)) assert.equal(state.sessions.get(r.session) ?? r.user, r.user);
  const shared = [...postConnections(state, 'bob')].filter((c) => postConnections(state, 'alice').has(c));
  assert.ok(shared.length > 0, `bob's requests reused a pooled connection alice's had used (connections: ${state.connections})`);
});

test('users at the same time never see each other: concurrent clients, one URL, different tokens', async () => {
  const { url, state } = await server();
  const users = Array.from({ length: 6 }, (_, i) => `user${i}`);
  await Promise.all(
    users.map(async (user) => {
      const c = userClient(url, user);
      try {
        const sets = await c.listToolsets();
        assert.deepEqual(Object.keys(sets.s).sort(), ['echo', `only_${user}`, 'shared']);
        for (let i = 0; i < 3; i++) assert.equal((await sets.s.echo.execute({ message: `m${i}` })).content[0].text, `${user}:m${i}`);
      } finally {
        await c.disconnect();
      }
    }),
  );
  assert.equal(state.mismatches, 0);
  assert.equal(new Set(state.sessions.values()).size, users.length, 'one session per user');
  assert.ok(state.connections < state.requests.length, 'connections were reused across requests');
});

test('requestInit.dispatcher opts a server out of the shared pool: its own connections, its own token', async () => {
  const { url, state } = await server();
  const dave = userClient(url, 'dave');
  await (await dave.listToolsets()).s.echo.execute({ message: 'pooled' });
  await dave.disconnect();
  const dispatcher = new Agent();
  const erin = userClient(url, 'erin', { requestInit: { dispatcher } });
  try {
    assert.equal((await (await erin.listToolsets()).s.echo.execute({ message: 'own' })).content[0].text, 'erin:own');
  } finally {
    await erin.disconnect();
    await dispatcher.close();
  }
  const erinConnections = postConnections(state, 'erin');
  assert.ok(erinConnections.size > 0);
  for (const c of erinConnections) assert.ok(!postConnections(state, 'dave').has(c), "erin's requests never rode the shared pool's connection");
  assert.equal(state.mismatches, 0);
});

test('a shared validator serves only identical schemas', async () => {
  const { url } = await server();
  const alice = userClient(url, 'alice');
  const bob = userClient(url, 'bob');
  try {
    const [a, b] = await Promise.all([alice.listToolsets(), bob.listToolsets()]);
    assert.equal(a.s.shared.inputSchema, b.s.shared.inputSchema, 'the same schema text: one validator for both users');
    assert.notEqual(a.s.echo.inputSchema, a.s.only_alice.inputSchema);
    // Each user's own schema validates their own input only.
    assert.equal((await a.s.only_alice.execute({ alice_field: 'x' })).content[0].text, 'alice:only_alice');
    const refused = await b.s.only_bob.execute({ alice_field: 'x' });
    assert.equal(refused?.error, true, "alice's schema did not validate bob's call");
    assert.match(refused.message, /bob_field/);
    // The shared one still validates for both.
    assert.equal((await b.s.shared.execute({ n: 3 })).content[0].text, 'bob:shared');
    assert.equal((await a.s.shared.execute({ n: -1 }))?.error, true, 'minimum 0 holds for alice too');
  } finally {
    await Promise.all([alice.disconnect(), bob.disconnect()]);
  }
});

test("each user's tool list, whether another client of the process already holds it or not, through both doors", async () => {
  const { url } = await server();
  const described = async (c) => Object.fromEntries(Object.entries((await c.listToolsets()).s).map(([n, t]) => [n, t.description]));
  const expected = (user) => ({ echo: 'Echoes', shared: 'The same for everyone', [`only_${user}`]: `Only for ${user}` });
  // Two clients of one user at once (the list text crosses over for one of them at most), then one
  // after them, while they still hold it.
  const [a1, a2] = [userClient(url, 'alice'), userClient(url, 'alice')];
  assert.deepEqual(await Promise.all([described(a1), described(a2)]), [expected('alice'), expected('alice')]);
  const a3 = userClient(url, 'alice');
  assert.deepEqual(await described(a3), expected('alice'));
  // Another user lists other tools: never alice's.
  const bob = userClient(url, 'bob');
  assert.deepEqual(await described(bob), expected('bob'));
  // The per-server client's definitions, beside clients that hold the same list.
  const internal = new InternalMastraMCPClient({
    name: 's',
    server: { url: new URL(url), requestInit: { headers: { Authorization: 'Bearer alice-token' } } },
  });
  try {
    const defs = await internal.toolDefinitions();
    assert.deepEqual(Object.keys(defs).sort(), ['echo', 'only_alice', 'shared']);
    assert.deepEqual(defs.only_alice.inputSchema.required, ['alice_field']);
    assert.equal((await (await internal.tools()).echo.execute({ message: 'hi' })).content[0].text, 'alice:hi');
  } finally {
    await internal.disconnect();
  }
  await Promise.all([a1, a2, a3, bob].map((c) => c.disconnect()));
  // Once every client that held it is gone, the next client of the user reads the list afresh.
  await new Promise((r) => setTimeout(r, 50));
  gc();
  gc();
  const a4 = userClient(url, 'alice');
  try {
    assert.deepEqual(await described(a4), expected('alice'));
    assert.equal((await (await a4.listToolsets()).s.only_alice.execute({ alice_field: 'x' })).content[0].text, 'alice:only_alice');
  } finally {
    await a4.disconnect();
  }
});

test('clients disconnected and dropped leave nothing shared that grows with the number of users', async () => {
  const { url } = await server();
  const runUsers = async (prefix, n) => {
    for (let i = 0; i < n; i++) {
      const c = userClient(url, `${prefix}${i}`);
      await (await c.listToolsets()).s.echo.execute({ message: 'x' });
      await c.disconnect();
    }
  };
  await runUsers('warm', 2);
  await new Promise((r) => setTimeout(r, 50));
  gc();
  const baseline = sharedSchemaCount();
  await runUsers('many', 40);
  await new Promise((r) => setTimeout(r, 50));
  gc();
  gc();
  const after = sharedSchemaCount();
  assert.ok(after <= baseline + 3, `shared schema entries after 40 users: ${after} (baseline ${baseline})`);
});

test('a URL that answered as a 2026-07-28 server: the next client skips the refused handshake and, as the answer allows, discovery', async () => {
  const { url, state } = await server({ modern: 'only', discover: { ttlMs: 60_000, cacheScope: 'public' } });
  const first = userClient(url, 'frank');
  assert.equal((await (await first.listToolsets()).s.echo.execute({ message: 'a' })).content[0].text, 'frank:a');
  await first.disconnect();
  assert.equal(state.initializes, 1, 'the first client learned the era from the refused handshake');
  assert.equal(state.discovers, 1);
  const second = userClient(url, 'grace');
  assert.equal((await (await second.listToolsets()).s.echo.execute({ message: 'b' })).content[0].text, 'grace:b');
  await second.disconnect();
  assert.equal(state.initializes, 1, 'no second handshake');
  assert.equal(state.discovers, 1, 'a public discover answer with a ttl served the next user');
  assert.equal(second.getServerProtocolVersions?.().s ?? '2026-07-28', '2026-07-28');
});

test('a private discover answer is reused by the same credentials only', async () => {
  const { url, state } = await server({ modern: 'only', discover: { ttlMs: 60_000, cacheScope: 'private' } });
  const run = async (user) => {
    const c = userClient(url, user, { protocolVersion: '2026-07-28' });
    try {
      return (await (await c.listToolsets()).s.echo.execute({ message: 'm' })).content[0].text;
    } finally {
      await c.disconnect();
    }
  };
  assert.equal(await run('heidi'), 'heidi:m');
  assert.equal(await run('ivan'), 'ivan:m');
  assert.equal(state.discovers, 2, "ivan's credentials differ: his own discovery");
  assert.equal(await run('heidi'), 'heidi:m');
  assert.equal(state.discovers, 2, 'heidi again: her answer was reused');
});

test('a list-changed handler opens the GET stream a short-lived client never opened', async () => {
  const { url, state } = await server();
  const c = userClient(url, 'judy');
  try {
    await c.listToolsets();
    assert.equal(state.gets, 0);
    await c.tools.onListChanged('s', () => {});
    assert.equal(state.gets, 1, 'registering the handler opened the stream before it resolved');
  } finally {
    await c.disconnect();
  }
});

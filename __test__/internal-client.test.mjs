// InternalMastraMCPClient, driven as @mastra/mcp's own tests and advanced users drive it. The
// same scenarios run against @mastra/mcp 1.18's class (the anchor) and ours, over stdio and
// Streamable HTTP with server-everything, so a difference in shape or behaviour shows up as a
// failure on one side.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as ours from '../index.mjs';
import { startEverythingHttp, waitFor, nodeBin } from './fixtures/helpers.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const implementations = {
  ours: ours.InternalMastraMCPClient,
  anchor: require('@mastra/mcp').InternalMastraMCPClient,
};

let http;
before(async () => {
  http = await startEverythingHttp('streamableHttp');
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect().catch(() => {})));
  await http?.stop();
});

const transports = {
  stdio: () => ({ command: nodeBin, args: [everythingEntry, 'stdio'], stderr: 'pipe' }),
  streamableHttp: () => ({ url: new URL(http.url) }),
};

function textOf(result) {
  return result.content.map((b) => b.text).join('\n');
}

for (const [impl, InternalMastraMCPClient] of Object.entries(implementations)) {
  for (const [transport, define] of Object.entries(transports)) {
    const make = (options) => {
      const c = new InternalMastraMCPClient(options);
      clients.push(c);
      return c;
    };

    test(`${impl} over ${transport}: connect, session info, resources, prompts, disconnect`, async () => {
      const c = make({ name: 'ev', server: { ...define(), forwardInstructions: true } });
      assert.equal(c.name, 'ev');
      assert.equal(c.instructions, undefined, 'no instructions before connecting');
      assert.equal(await c.connect(), true);
      assert.equal(typeof c.instructions, 'string', 'instructions are a synchronous getter');
      assert.equal(c.forwardInstructions, true);
      assert.equal(c.instructionsMaxLength, 512);
      assert.equal(c.authState, undefined);
      if (transport === 'stdio') {
        assert.equal(c.sessionId, undefined);
        assert.equal(typeof c.stderr?.on, 'function', 'piped stderr is a stream');
      } else {
        assert.equal(typeof c.sessionId, 'string');
        assert.equal(c.stderr, null);
      }

      const { resources } = await c.listResources();
      assert.ok(resources.length > 0);
      assert.deepEqual((await c.resources.list()).map((r) => r.uri), resources.map((r) => r.uri));
      const { resourceTemplates } = await c.listResourceTemplates();
      assert.ok(resourceTemplates.length > 0);
      assert.equal((await c.resources.templates()).length, resourceTemplates.length);
      const text = resources.find((r) => r.mimeType === 'text/plain') ?? resources[0];
      const read = await c.readResource(text.uri);
      assert.equal(read.contents[0].uri, text.uri);
      assert.deepEqual(await c.resources.read(text.uri), read);
      assert.deepEqual(await c.subscribeResource(text.uri), {});
      assert.deepEqual(await c.unsubscribeResource(text.uri), {});

      const { prompts } = await c.listPrompts();
      const simple = prompts.find((p) => !p.arguments?.some((a) => a.required));
      const got = await c.getPrompt({ name: simple.name });
      assert.ok(got.messages.length > 0);
      assert.equal((await c.prompts.list()).length, prompts.length);
      assert.ok((await c.prompts.get({ name: simple.name })).messages.length > 0);

      await c.disconnect();
      assert.equal(c.instructions, undefined, 'instructions are dropped with the session');
    });

    test(`${impl} over ${transport}: tools, definitions and a synchronous toolFromDefinition`, async () => {
      const c = make({ name: 'ev', server: define(), timeout: 30000 });
      await c.connect();
      const tools = await c.tools();
      assert.ok(tools.echo, 'echo listed under its own name');
      assert.deepEqual(await tools.echo.execute({ message: 'hi' }, {}), { content: [{ type: 'text', text: 'Echo: hi' }] });
      const defs = await c.toolDefinitions();
      assert.deepEqual(Object.keys(defs).sort(), Object.keys(tools).sort());
      assert.deepEqual(JSON.parse(JSON.stringify(defs.echo)), defs.echo, 'definitions are JSON-safe');
      const rebuilt = c.toolFromDefinition({ definition: defs.echo });
      assert.equal(typeof rebuilt.then, 'undefined', 'a tool, not a Promise');
      assert.equal(rebuilt.constructor.name, 'Tool');
      assert.equal(textOf(await rebuilt.execute({ message: 'again' }, {})), 'Echo: again');
    });

    test(`${impl} over ${transport}: handlers, roots and forceReconnect`, async () => {
      const c = make({
        name: 'ev',
        server: { ...define(), roots: [{ uri: 'file:///tmp/first', name: 'First' }] },
        capabilities: { elicitation: {} },
      });
      const asked = [];
      c.setElicitationRequestHandler(async (request) => {
        asked.push(request);
        return { action: 'decline' };
      });
      const progress = [];
      c.progress.onUpdate((p) => progress.push(p));
      await c.connect();
      assert.deepEqual(c.roots, [{ uri: 'file:///tmp/first', name: 'First' }]);
      const roots = c.roots;
      roots.push({ uri: 'file:///nope' });
      assert.equal(c.roots.length, 1, 'roots returns a copy');

      const tools = await waitFor(async () => {
        const t = await c.tools();
        return t['trigger-elicitation-request'] ? t : undefined;
      }, { timeoutMs: 10000, message: 'elicitation tool listed' });
      assert.match(textOf(await tools['trigger-elicitation-request'].execute({}, {})), /declined/);
      assert.equal(asked.length, 1);
      assert.equal(typeof asked[0].requestedSchema, 'object');

      assert.match(textOf(await tools['get-roots-list'].execute({}, {})), /file:\/\/\/tmp\/first/);
      await c.setRoots([{ uri: 'file:///tmp/second', name: 'Second' }]);
      assert.deepEqual(c.roots, [{ uri: 'file:///tmp/second', name: 'Second' }]);
      await waitFor(async () => /file:\/\/\/tmp\/second/.test(textOf(await tools['get-roots-list'].execute({}, {}))), {
        timeoutMs: 10000,
        message: 'the server re-fetched the roots after roots/list_changed',
      });
      await c.sendRootsListChanged();

      const sessionBefore = c.sessionId;
      await c.forceReconnect();
      assert.equal(typeof c.instructions, 'string', 'connected again');
      if (transport === 'streamableHttp') assert.notEqual(c.sessionId, sessionBefore, 'a new session');
      assert.equal(textOf(await (await c.tools()).echo.execute({ message: 'after' }, {})), 'Echo: after');
    });

    test(`${impl} over ${transport}: an elicitation handler after connecting is refused without the capability`, async () => {
      const c = make({ name: 'ev', server: define() });
      await c.connect();
      assert.throws(
        () => c.setElicitationRequestHandler(async () => ({ action: 'cancel' })),
        /Cannot register an elicitation handler after connecting/,
      );
    });
  }
}

test('ours: a failed connect is a MastraError naming the server', async () => {
  const c = new ours.InternalMastraMCPClient({ name: 'gone', server: { command: nodeBin, args: ['-e', 'process.exit(3)'] } });
  await assert.rejects(c.connect(), (e) => {
    assert.equal(e.id, 'MCP_CLIENT_CONNECT_FAILED');
    assert.match(e.message, /gone/);
    return true;
  });
  await c.disconnect();
});

test('ours: finishAuth without a pending authorization says so', async () => {
  const c = new ours.InternalMastraMCPClient({ name: 'plain', server: { command: nodeBin, args: [everythingEntry, 'stdio'] } });
  await assert.rejects(c.finishAuth('code'), /No OAuth authorization is pending for this server\. Call connect\(\) first\./);
  await c.disconnect();
});

test('InternalMastraMCPClient: clientInfo reports its name and version, in the discovery probe and in initialize', async () => {
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { stdioFixtureServer } = await import('./fixtures/helpers.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'internal-version-'));
  const recv = join(dir, 'recv.log');
  // 'auto' probes first, so both the probe and the handshake carry the client's info.
  const c = new ours.InternalMastraMCPClient({ name: 'versioned', version: '4.5.6', server: { ...stdioFixtureServer({ FIXTURE_RECV_LOG: recv }), protocolVersion: 'auto' } });
  try {
    await c.connect();
    const messages = readFileSync(recv, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const discover = messages.find((m) => m.method === 'server/discover');
    const initialize = messages.find((m) => m.method === 'initialize');
    assert.deepEqual(discover.params._meta['io.modelcontextprotocol/clientInfo'], { name: 'versioned', version: '4.5.6' });
    assert.deepEqual(initialize.params.clientInfo, { name: 'versioned', version: '4.5.6' });
  } finally {
    await c.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
});

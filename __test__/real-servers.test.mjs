// The real-server matrix: our MCPClient against real, pinned MCP servers of every class a Mastra user meets, over
// stdio and Streamable HTTP, with `protocolVersion` omitted (the default: the `initialize` handshake first, as
// @mastra/mcp 1.18 does; the 2026-07-28 era only when the server refuses the handshake the way a modern-only server
// does) and with `'auto'` (@mastra/mcp 2.0's probe-first mode). The servers are installed by
// scripts/real-servers.mjs (pinned, under target/, from the registries; `npm test` runs it first).
//
// Each row is one server × transport × mode. Its session connects, lists tools and calls one, and (where the server
// has one) calls a tool that asks for input through elicitation, answered by `elicitation.onRequest`. It asserts:
// - the connection and the call succeed;
// - a stdio server is started exactly once (a launcher, fixtures/launch-counted.sh, appends each real start's pid);
// - nothing we send makes the server write to stderr: every line the server wrote during our session (digits
//   masked) is also one it writes under the anchor for that mode — @mastra/mcp 1.18's client for the default
//   (2.0's where 1.18 cannot speak to the server at all), @mastra/mcp 2.0's client for 'auto' — so banners the
//   server prints anyway do not count, and what a `server/discover` probe provokes does;
// - `getServerProtocolVersions()` names the era the row must speak;
// - the eliciting tool completes (or, where the anchor for that mode cannot complete it either, fails as it does there: see below).
//
// Known limits of the servers themselves (not of the client), asserted as such:
// - @mastra/mcp 1.18's dual-era MCPServer over Streamable HTTP serves a handshake client through the SDK's stateless
//   fallback: no server→client requests, so its eliciting tool fails in the handshake era (1.18's client too).
// - The Python SDK 2.x's `ctx.elicit()` is a server→client request, which the 2026-07-28 era does not have: in
//   that era the tool cannot complete (2.0's client too).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCPClient } from '../index.mjs';
import { MCPClient as Mastra118 } from '@mastra/mcp';
import { MCPClient as Mastra20 } from '@mastra/mcp-v2';
import { fixturePath, freePort, isAlive, nodeBin, startUrlServer, urlLine, waitFor } from './fixtures/helpers.mjs';
import { realServers } from '../scripts/real-servers.mjs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const launcher = fixturePath('launch-counted.sh');
const HANDSHAKE = '2025-11-25';
const MODERN = '2026-07-28';
// Generous: a client that waits out a probe the server never answers shows up as a failed row, not a hung suite.
const REQUEST_TIMEOUT_MS = 20000;

let paths;
const workDir = mkdtempSync(join(tmpdir(), 'real-servers-'));

// ---------------------------------------------------------------------------------------------------------------
// The servers. `stdio()` → [command, args]; `http` → the name of an HTTP server started in `before`.
// `era[mode]`: the revision the session must speak. `call`: [tool, args, what the result must contain].
// `elicit[mode]`: 'completes' | RegExp (the call must fail with that, as the anchor's does) | undefined (no such tool).

const ASK = { question: 'What is your name?' };
const SERVERS = [
  {
    name: 'mcp-server-time 0.6.2 on Python mcp 1.6.0 (before 1.9.4)',
    stdio: () => [paths.timeServerOld, ['--local-timezone', 'UTC']],
    call: ['get_current_time', { timezone: 'UTC' }, /timezone\W+UTC/],
    // mcp 1.6.0 answers the handshake with the revision it knows.
    era: { default: '2024-11-05', auto: '2024-11-05' },
    handshake: true,
    // A probe kills its reader and it never answers: a probing client waits out its request timeout (both
    // 'auto' sessions, ours and 2.0's), so keep that short here. @mastra/mcp 2.0 then starts the server again
    // and connects with the handshake (5.4 s in all): 'auto' cannot do with fewer than two starts here.
    timeout: 5000,
    starts: { auto: 2 },
  },
  {
    name: 'mcp-server-time 2026.7.10 on Python mcp 1.30.0',
    stdio: () => [paths.timeServer1, ['--local-timezone', 'UTC']],
    call: ['get_current_time', { timezone: 'UTC' }, /timezone\W+UTC/],
    era: { default: HANDSHAKE, auto: HANDSHAKE },
    handshake: true,
  },
  {
    name: 'FastMCP fixture on Python mcp 1.30.0',
    stdio: () => [paths.python1, [fixturePath('python/v1_server.py'), 'stdio']],
    http: 'py1',
    call: ['echo', { message: 'hi' }, /Echo: hi/],
    era: { default: HANDSHAKE, auto: HANDSHAKE },
    elicit: { default: 'completes', auto: 'completes' },
    handshake: true,
  },
  {
    name: 'Python SDK 2.3 dual-era fixture (ctx.elicit)',
    stdio: () => [paths.python2, [fixturePath('python/server.py'), 'stdio']],
    http: 'py2',
    call: ['echo', { message: 'hi' }, /Echo: hi/],
    era: { default: HANDSHAKE, auto: MODERN },
    elicit: { default: 'completes', auto: /./ },
    handshake: true,
  },
  {
    name: '@modelcontextprotocol/server-memory 2026.8.31 (TS SDK 1.x)',
    stdio: () => [nodeBin, [paths.memoryServer]],
    call: ['read_graph', {}, /entities/],
    era: { default: HANDSHAKE, auto: HANDSHAKE },
    handshake: true,
  },
  {
    name: '@modelcontextprotocol/server-everything 2026.8.31 (TS SDK 1.x)',
    stdio: () => [nodeBin, [everythingEntry, 'stdio']],
    http: 'everything',
    call: ['echo', { message: 'hi' }, /Echo: hi/],
    era: { default: HANDSHAKE, auto: HANDSHAKE },
    handshake: true,
  },
  {
    name: 'TS SDK 2.0 dual-era fixture (@modelcontextprotocol/server 2.0.0)',
    stdio: () => [nodeBin, [fixturePath('sdk2-server.mjs'), 'stdio', paths.npmServers]],
    http: 'sdk2',
    call: ['echo', { message: 'hi' }, /Echo: hi/],
    era: { default: HANDSHAKE, auto: MODERN },
    handshake: true,
  },
  {
    name: '@mastra/mcp 1.18 MCPServer (handshake only)',
    stdio: () => [nodeBin, [fixturePath('mastra-server/server.mjs'), 'stdio', 'legacy']],
    http: 'mastra118',
    call: ['echo', { message: 'hi' }, /Echo: hi/],
    era: { default: HANDSHAKE, auto: HANDSHAKE },
    elicit: { default: 'completes', auto: 'completes' },
    handshake: true,
  },
  {
    name: '@mastra/mcp 1.18 MCPServer (dual-era)',
    stdio: () => [nodeBin, [fixturePath('mastra-server/server.mjs'), 'stdio', MODERN]],
    http: 'mastra118dual',
    call: ['echo', { message: 'hi' }, /Echo: hi/],
    era: { default: HANDSHAKE, auto: MODERN },
    elicit: { default: 'completes', auto: 'completes' },
    // Over Streamable HTTP the handshake era is the SDK's stateless fallback: no server→client requests.
    httpElicit: { default: /does not support form elicitation/, auto: 'completes' },
    handshake: true,
  },
  {
    name: '@mastra/mcp 2.0 MCPServer (2026-07-28 only)',
    stdio: () => [nodeBin, [fixturePath('mastra2-server/server.mjs'), 'stdio']],
    http: 'mastra20',
    call: ['echo', { message: 'hi' }, /Echo: hi/],
    era: { default: MODERN, auto: MODERN },
    elicit: { default: 'completes', auto: 'completes' },
    handshake: false,
  },
];

// ---------------------------------------------------------------------------------------------------------------
// HTTP servers: started once for the file; each session's share of their stderr is the slice written during it.

/** Spawns `cmd args`, collecting stdout and stderr; `ready(stdout)` returns the URL once it is serving. */
const startHttp = (label, cmd, args, ready, env = {}) => startUrlServer(label, cmd, args, { ready, env });

async function answersHttp(url) {
  try {
    await fetch(url, { method: 'GET' });
    return url;
  } catch {
    return false;
  }
}

async function startPython(python, script) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  return startHttp(script, python, [script, 'http', String(port)], () => answersHttp(url));
}


const HTTP = {
  py1: () => startPython(paths.python1, fixturePath('python/v1_server.py')),
  py2: () => startPython(paths.python2, fixturePath('python/server.py')),
  // server-everything reads its port from PORT.
  everything: async () => {
    const port = await freePort();
    const entry = [fixturePath('loopback-preload.mjs'), everythingEntry];
    return startHttp('server-everything', nodeBin, ['--import', ...entry, 'streamableHttp'], () => answersHttp(`http://127.0.0.1:${port}/mcp`), {
      PORT: String(port),
    });
  },
  sdk2: () => startHttp('sdk2-server', nodeBin, [fixturePath('sdk2-server.mjs'), 'http', paths.npmServers], urlLine),
  mastra118: () => startHttp('mastra 1.18', nodeBin, [fixturePath('mastra-server/server.mjs'), 'http', 'legacy'], urlLine),
  mastra118dual: () => startHttp('mastra 1.18 dual', nodeBin, [fixturePath('mastra-server/server.mjs'), 'http', MODERN], urlLine),
  mastra20: () => startHttp('mastra 2.0', nodeBin, [fixturePath('mastra2-server/server.mjs'), 'http'], urlLine),
};
const httpServers = {};

before(async () => {
  paths = realServers();
  const wanted = [...new Set(SERVERS.map((s) => s.http).filter(Boolean))];
  const started = await Promise.allSettled(wanted.map(async (name) => [name, await HTTP[name]()]));
  // Keep the ones that started (so `after` stops them) before failing on the first that did not.
  Object.assign(httpServers, Object.fromEntries(started.filter((r) => r.status === 'fulfilled').map((r) => r.value)));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
});

after(async () => {
  await Promise.all(Object.values(httpServers).map((s) => s.stop()));
  rmSync(workDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------
// One session, with evidence.

let seq = 0;

/** The server definition for a session: stdio through the counting launcher, or the HTTP server's URL. */
function definition(server, transport, files) {
  if (transport === 'http') return { url: new URL(httpServers[server.http].url) }; // @mastra/mcp 1.18 wants a URL
  const [cmd, args] = server.stdio();
  return { command: '/bin/bash', args: [launcher, files.starts, files.stderr, cmd, ...args] };
}

const readOr = (file) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/**
 * Runs one session of `client` ('ours', 'mastra-1.18' or 'mastra-2.0') and returns what happened:
 * { connected, error, tools, called, era, elicited, elicitError, asked, starts, stderr }.
 */
async function session(client, server, transport, mode) {
  const n = seq++;
  const files = { starts: join(workDir, `starts-${n}`), stderr: join(workDir, `stderr-${n}`) };
  const http = transport === 'http' ? httpServers[server.http] : undefined;
  const stderrBefore = http ? http.stderr().length : 0;
  // A short `timeout` is for the probing anchors' sake (they wait it out); ours ends an unanswered probe after
  // 1 s (era/probe_window.rs), so it gets the generous one: on a loaded machine, starting the old Python
  // server again and its `initialize` took over 5 s.
  const timeout = client === 'ours' ? REQUEST_TIMEOUT_MS : (server.timeout ?? REQUEST_TIMEOUT_MS);
  const def = { ...definition(server, transport, files), timeout };
  const out = { connected: false, asked: [] };
  let c;
  if (client === 'ours') {
    c = new MCPClient({ id: `real-${process.pid}-${n}`, servers: { s: { ...def, ...(mode === 'auto' ? { protocolVersion: 'auto' } : {}) } } });
  } else if (client === 'mastra-1.18') {
    c = new Mastra118({ id: `real-anchor-${process.pid}-${n}`, servers: { s: def } });
  } else {
    // 2.0 answers input requests through the per-server `inputRequests` option (it has no elicitation.onRequest).
    const inputRequests = async ({ params }) => answer(params);
    c = new Mastra20({ id: `real-anchor-${process.pid}-${n}`, servers: { s: { ...def, inputRequests } } });
  }
  // The anchors get the same answers and make the same calls: what the server logs about them is the baseline.
  const answer = async (request) => {
    out.asked.push(request);
    return { action: 'accept', content: { name: 'Ada' } };
  };
  if (client !== 'mastra-2.0') await c.elicitation.onRequest('s', answer);
  try {
    const { tools, errors } = await c.listToolsWithErrors();
    out.tools = Object.keys(tools);
    out.connected = out.tools.length > 0;
    if (!out.connected) throw new Error(`no tools: ${errors?.s ?? JSON.stringify(errors)}`);
    if (client === 'ours') out.era = c.getServerProtocolVersions().s;
    const [tool, args] = server.call;
    out.called = JSON.stringify(await tools[`s_${tool}`].execute(args, {}));
    if (tools.s_ask) {
      try {
        out.elicited = JSON.stringify(await tools.s_ask.execute(ASK, {}));
      } catch (e) {
        out.elicitError = e;
      }
    }
  } catch (e) {
    out.error = e;
  } finally {
    await c.disconnect().catch(() => {});
  }
  if (transport === 'stdio') {
    // The server's last words (on stdin closing) are part of the session.
    const pids = readOr(files.starts).split('\n').filter(Boolean).map(Number);
    await waitFor(() => pids.every((p) => !isAlive(p)), { timeoutMs: 10000, message: 'the server to exit' }).catch(() => {});
    out.starts = pids.length;
    out.stderr = readOr(files.stderr);
  } else {
    await new Promise((r) => setTimeout(r, 300)); // let the server finish logging the session's requests
    out.stderr = http.stderr().slice(stderrBefore);
  }
  return out;
}

/**
 * The non-empty lines of a stderr text, less the one line a server may write when the session ends by our
 * DELETE (the Python SDK's "Terminating session: <id>"): ending HTTP sessions is deliberate (SPEC: sessions
 * end cleanly), where @mastra/mcp leaves them open.
 */
const lines = (text) => text.split('\n').filter((l) => l.trim() && !/^Terminating session: \S+$/.test(l.trim()));
const outcome = (r) => (r.error ? `failed: ${r.error.message.slice(0, 300)}` : r.connected ? 'connected' : 'no tools');

// ---------------------------------------------------------------------------------------------------------------

// Servers run side by side (3 at a time); the rows of one server one after another (an HTTP server's stderr is
// sliced per session).
describe('real servers', { concurrency: 3 }, () => {
for (const server of SERVERS) {
  describe(server.name, () => {
  for (const transport of server.http ? ['stdio', 'http'] : ['stdio']) {
    for (const mode of ['default', 'auto']) {
      const label = `${server.name} over ${transport === 'http' ? 'Streamable HTTP' : 'stdio'}, ${mode === 'auto' ? "protocolVersion 'auto'" : 'protocolVersion omitted'}`;
      describe(`real servers: ${label}`, () => {
        let ours;
        let anchor;
        let anchorName;
        // A modern-only server refuses the default's `initialize` (as it refuses @mastra/mcp 1.18's) and may log
        // the refusal: that much stderr is the price of opening with the handshake, measured under 1.18.
        let refusal;
        before(async () => {
          anchorName = mode === 'default' && server.handshake ? 'mastra-1.18' : 'mastra-2.0';
          anchor = await session(anchorName, server, transport, mode);
          if (mode === 'default' && !server.handshake) refusal = await session('mastra-1.18', server, transport, mode);
          ours = await session('ours', server, transport, mode);
        });
        const why = () => (ours.error ? ` (error: ${ours.error.message})` : '');

        test('connects, lists the tools and one call succeeds', () => {
          assert.ok(ours.connected, `connected${why()}`);
          assert.match(ours.called ?? '', server.call[2], `the ${server.call[0]} call${why()}`);
        });

        if (transport === 'stdio') {
          const starts = server.starts?.[mode] ?? 1;
          test(starts === 1 ? 'the server is started exactly once' : `the server is started ${starts} times, as under @mastra/mcp 2.0`, () => {
            assert.equal(ours.starts, starts, `started ${ours.starts} times${why()} (under ${anchorName}: ${anchor.starts}, which ${outcome(anchor)})`);
          });
        }

        test(`nothing we send makes the server write to stderr (beyond what it writes under ${mode === 'default' && server.handshake ? '@mastra/mcp 1.18' : '@mastra/mcp 2.0'})`, () => {
          // Compared by count: what a server echoes of a request it rejects (ids, params) differs from client to client.
          const mine = lines(ours.stderr).length;
          const theirs = lines(anchor.stderr).length;
          const refused = refusal ? lines(refusal.stderr).length : 0;
          assert.ok(
            mine <= Math.max(theirs, refused),
            `the server wrote ${mine} stderr lines (${ours.stderr.length} bytes) in our session, ${theirs} (${anchor.stderr.length} bytes) under ${anchorName} (which ${outcome(anchor)})${refusal ? `, ${refused} for the refused handshake under mastra-1.18` : ''}:\n${ours.stderr.slice(0, 1200)}`,
          );
        });

        test(`getServerProtocolVersions() says ${server.era[mode]}`, () => {
          assert.equal(ours.era, server.era[mode], `era${why()}`);
        });

        const elicit = (transport === 'http' && server.httpElicit) || server.elicit;
        if (elicit) {
          const expected = elicit[mode];
          test(expected === 'completes' ? 'the eliciting tool completes through the elicitation handler' : `the eliciting tool fails as it does under ${mode === 'default' ? '@mastra/mcp 1.18' : '@mastra/mcp 2.0'} (a limit of the server)`, () => {
            assert.ok(ours.tools?.includes('s_ask'), `s_ask listed${why()}`);
            if (expected === 'completes') {
              assert.equal(ours.elicitError, undefined, `elicitation failed: ${ours.elicitError?.message}`);
              assert.match(ours.elicited ?? '', /Hello, Ada/);
              assert.equal(ours.asked.length, 1, 'the handler was asked once');
              assert.equal(ours.asked[0].message, ASK.question);
            } else {
              assert.ok(anchor.elicitError || /"isError":true/.test(anchor.elicited ?? ''), `${anchorName} fails too: ${anchor.elicited}`);
              assert.ok(ours.elicitError || /"isError":true/.test(ours.elicited ?? ''), `the call failed: ${ours.elicited}`);
              assert.match(ours.elicitError?.message ?? ours.elicited, expected);
              assert.equal(ours.asked.length, 0, 'the handler was not asked');
            }
          });
        }
      });
    }
  }
  });
}
});

// One measurement in a fresh process: node --expose-gc bench/scenario.mjs <impl> <scenario> [key=value ...]
//   impl:     anchor (@mastra/mcp 1.18) | anchor2 (@mastra/mcp 2.0, the @mastra/mcp-v2 alias) | ours (../index.mjs)
//             | floor (./floor-client.mjs)
//   scenario: stdio-seq | stdio-seq-2026 | stdio-soak | catalog | fanout | http-json | http-sse | blob | blob-2026 | cold
//             | connect-real | otel-overhead (ours only)
// Prints one JSON line of measurements on stdout. run.mjs starts it; it is not meant to be read by hand.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { FIXTURE_BIN } from './fixture.mjs';

const [impl, scenario, ...rest] = process.argv.slice(2);
const params = Object.fromEntries(rest.map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]));

// Never hang the orchestrator: if something keeps the process alive after the work, say so and leave.
function exitGuard() {
  setTimeout(() => {
    console.error(`${impl}/${scenario}: the process did not exit by itself within 10 s after the work`);
    process.exit(3);
  }, 10_000).unref();
}

let clientCount = 0;

/** A uniform face over the three implementations: listTools() → { `${server}_${tool}`: { execute(args) } }. */
async function makeClient(servers) {
  const id = `bench-${impl}-${process.pid}-${clientCount++}`;
  if (impl === 'floor') {
    const c = await userClient(servers);
    return {
      async listTools() {
        const out = {};
        for (const [name, tools] of Object.entries(await c.listToolsets())) {
          for (const [tool, t] of Object.entries(tools)) out[`${name}_${tool}`] = t;
        }
        return out;
      },
      disconnect: () => c.disconnect(),
    };
  }
  const { MCPClient } =
    impl === 'anchor' ? await import('@mastra/mcp') : impl === 'anchor2' ? await import('@mastra/mcp-v2') : await import('../index.mjs');
  const client = new MCPClient({ id, servers });
  return {
    listTools: () => client.listTools(),
    disconnect: () => client.disconnect(),
  };
}

function stdioServer(tools = 10, { dualEra = false } = {}) {
  const def = { command: FIXTURE_BIN, args: ['stdio', '--tools', String(tools), ...(dualEra ? ['--dual-era'] : [])] };
  // Ours opens with the handshake by default (as 1.18): the 2026-07-28 path is measured pinned.
  return dualEra && impl === 'ours' ? { ...def, protocolVersion: '2026-07-28' } : def;
}

/** Starts the fixture over HTTP (`dualEra`: it also speaks 2026-07-28); it exits when we close its stdin. */
async function httpServer(sse, dualEra = false) {
  const child = spawn(FIXTURE_BIN, ['http', '--port', '0', ...(sse ? ['--sse'] : []), ...(dualEra ? ['--dual-era'] : [])], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fixture server exited (${code}) before printing its port`)));
  });
  lines.close();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    port: Number(port),
    def: { url: new URL(`http://127.0.0.1:${port}/mcp`) },
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

function textOf(result) {
  const content = result?.content ?? result?.result?.content;
  if (!Array.isArray(content) || content[0]?.type !== 'text') {
    throw new Error(`${impl}: unexpected tool result ${JSON.stringify(result).slice(0, 200)}`);
  }
  return content[0].text;
}

async function echoOnce(echo, message) {
  const text = textOf(await echo.execute({ message }, {}));
  if (text !== message) throw new Error(`${impl}: echo returned ${JSON.stringify(text)} for ${JSON.stringify(message)}`);
}

function gc() {
  if (!globalThis.gc) throw new Error('run with --expose-gc');
  globalThis.gc();
  globalThis.gc();
}

const MiB = 1024 * 1024;
const rssMiB = () => process.memoryUsage().rss / MiB;

/** Context switches of this process, summed over its threads (Linux only). */
function contextSwitches() {
  let voluntary = 0;
  let involuntary = 0;
  let tasks;
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  for (const tid of tasks) {
    let status;
    try {
      status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    voluntary += Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    involuntary += Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return { voluntary, involuntary };
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function warmUp() {
  const c = await makeClient({ warm: stdioServer() });
  const tools = await c.listTools();
  for (let i = 0; i < 50; i++) await echoOnce(tools.warm_echo, `w${i}`);
  await c.disconnect();
}

/** One echo at a time against `server`: p50/p99 latency and context switches per call. */
async function sequentialEchoes(server, calls, warm) {
  const c = await makeClient({ s: server });
  const echo = (await c.listTools()).s_echo;
  for (let i = 0; i < warm; i++) await echoOnce(echo, `w${i}`);
  const lat = new Float64Array(calls);
  const before = contextSwitches();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await echo.execute({ message: `m${i}` }, {});
    lat[i] = performance.now() - t;
  }
  const after = contextSwitches();
  await c.disconnect();
  lat.sort();
  const out = { p50_us: quantile(lat, 0.5) * 1000, p99_us: quantile(lat, 0.99) * 1000 };
  if (before && after) {
    out.vcsw_per_call = (after.voluntary - before.voluntary) / calls;
    out.ivcsw_per_call = (after.involuntary - before.involuntary) / calls;
  }
  return out;
}

/** `calls` results of `bytes` bytes from `server`: median time per call and peak RSS. */
async function bigResults(server, bytes, calls) {
  const c = await makeClient({ s: server });
  const blob = (await c.listTools()).s_blob;
  for (let i = 0; i < 3; i++) textOf(await blob.execute({ bytes: 65536 }, {}));
  gc();
  const times = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const text = textOf(await blob.execute({ bytes }, {}));
    times.push(performance.now() - t);
    if (text.length !== bytes) throw new Error(`${impl}: blob returned ${text.length} bytes, expected ${bytes}`);
  }
  const peak = process.resourceUsage().maxRSS / 1024; // KiB → MiB
  await c.disconnect();
  times.sort((a, b) => a - b);
  return { time_ms: quantile(times, 0.5), peak_rss_mib: peak };
}

const scenarios = {
  // One echo at a time: per-call latency and context switches.
  async 'stdio-seq'({ calls = 5000, warm = 1000 }) {
    return sequentialEchoes(stdioServer(), calls, warm);
  },

  // The same against a server that also speaks 2026-07-28: ours pinned to that revision; @mastra/mcp 1.18
  // and the floor keep the handshake.
  async 'stdio-seq-2026'({ calls = 5000, warm = 1000 }) {
    return sequentialEchoes(stdioServer(10, { dualEra: true }), calls, warm);
  },

  // A long sequential run: calls per second.
  async 'stdio-soak'({ calls = 20000, warm = 1000 }) {
    const c = await makeClient({ s: stdioServer() });
    const echo = (await c.listTools()).s_echo;
    for (let i = 0; i < warm; i++) await echoOnce(echo, `w${i}`);
    const t = performance.now();
    for (let i = 0; i < calls; i++) await echo.execute({ message: `m${i}` }, {});
    const seconds = (performance.now() - t) / 1000;
    await echoOnce(echo, 'last');
    await c.disconnect();
    return { calls_per_s: calls / seconds };
  },

  // A large catalog: first listTools (connect + list + building the tools), a second one, and the memory it holds.
  async catalog({ tools = 2000, relists = 20 }) {
    await warmUp();
    gc();
    const rssBefore = rssMiB();
    const c = await makeClient({ big: stdioServer(tools) });
    let t = performance.now();
    let list = await c.listTools();
    const first = performance.now() - t;
    const count = Object.keys(list).length;
    if (count !== tools) throw new Error(`${impl}: listed ${count} tools, expected ${tools}`);
    const again = [];
    for (let i = 0; i < relists; i++) {
      t = performance.now();
      list = await c.listTools();
      again.push(performance.now() - t);
    }
    gc();
    const growth = rssMiB() - rssBefore;
    await echoOnce(list.big_echo, 'still there');
    await c.disconnect();
    again.sort((a, b) => a - b);
    return { first_list_ms: first, relist_ms: quantile(again, 0.5), rss_growth_mib: growth };
  },

  // Many servers: connect to all and list their tools, and the memory that costs.
  async fanout({ servers = 20 }) {
    await warmUp();
    gc();
    const rssBefore = rssMiB();
    const defs = Object.fromEntries(Array.from({ length: servers }, (_, i) => [`s${i}`, stdioServer()]));
    const c = await makeClient(defs);
    const t = performance.now();
    const list = await c.listTools();
    const elapsed = performance.now() - t;
    if (Object.keys(list).length !== servers * 10) throw new Error(`${impl}: listed ${Object.keys(list).length} tools`);
    gc();
    const growth = rssMiB() - rssBefore;
    await echoOnce(list[`s${servers - 1}_echo`], 'fan');
    await c.disconnect();
    return { connect_list_ms: elapsed, rss_growth_mib: growth };
  },

  'http-json': (p) => httpThroughput(p, false),
  'http-sse': (p) => httpThroughput(p, true),

  // A big tool result: time per call and the process's peak RSS.
  async blob({ bytes = 5_000_000, calls = 5 }) {
    return bigResults(stdioServer(), bytes, calls);
  },

  // The same from a server that also speaks 2026-07-28 (ours pinned to it, stripping the result envelope).
  async 'blob-2026'({ bytes = 5_000_000, calls = 5 }) {
    return bigResults(stdioServer(10, { dualEra: true }), bytes, calls);
  },

  // Real servers (scripts/real-servers.mjs), one after another in this process: connect (spawn, handshake or
  // probe), listTools() and the first call, timed from before listTools() to the call's result. The client module is
  // loaded (by a first client that is never connected) before the first measurement. A server the client cannot
  // reach reports no number for it (and says why on stderr) instead of failing the run.
  async 'connect-real'() {
    const { realServers } = await import('../scripts/real-servers.mjs');
    const paths = realServers();
    const fixtures = new URL('../__test__/fixtures/', import.meta.url).pathname;
    const node = process.execPath;
    const servers = {
      time_mcp1: [{ command: paths.timeServer1, args: ['--local-timezone', 'UTC'] }, 'get_current_time', { timezone: 'UTC' }],
      time_old: [{ command: paths.timeServerOld, args: ['--local-timezone', 'UTC'] }, 'get_current_time', { timezone: 'UTC' }],
      py2: [{ command: paths.python2, args: [`${fixtures}python/server.py`, 'stdio'] }, 'echo', { message: 'hi' }],
      memory: [{ command: node, args: [paths.memoryServer] }, 'read_graph', {}],
      mastra118dual: [{ command: node, args: [`${fixtures}mastra-server/server.mjs`, 'stdio', '2026-07-28'] }, 'echo', { message: 'hi' }],
      mastra20: [{ command: node, args: [`${fixtures}mastra2-server/server.mjs`, 'stdio'] }, 'echo', { message: 'hi' }],
    };
    await makeClient({});
    const out = {};
    for (const [key, [def, tool, args]] of Object.entries(servers)) {
      const c = await makeClient({ s: { ...def, timeout: 10_000 } });
      const t = performance.now();
      try {
        const tools = await c.listTools();
        if (!tools[`s_${tool}`]) throw new Error(`no s_${tool} (connection failed)`);
        const result = await tools[`s_${tool}`].execute(args, {});
        if (result?.isError) throw new Error(`the call failed: ${JSON.stringify(result).slice(0, 200)}`);
        out[`${key}_ms`] = performance.now() - t;
      } catch (e) {
        console.error(`${impl}/${key}: ${e.message}`);
      } finally {
        await c.disconnect().catch(() => {});
      }
    }
    return out;
  },

  // A whole short-lived process: import, connect, list, call, disconnect (wall time is taken by run.mjs).
  async cold() {
    const c = await makeClient({ s: stdioServer() });
    const tools = await c.listTools();
    await echoOnce(tools.s_echo, 'cold');
    await c.disconnect();
    return { in_process_ms: performance.now() };
  },

  // Per-call overhead of the OpenTelemetry instrumentation (ours only): stdio and Streamable HTTP.
  async 'otel-overhead'({ calls = 4000, warm = 500, rounds = 8 }) {
    const stdio = await otelOverhead(stdioServer(), calls, warm, rounds);
    const server = await httpServer(false);
    try {
      const http = await otelOverhead(server.def, calls, warm, rounds);
      const out = {};
      for (const [k, v] of Object.entries(stdio)) out[`stdio_${k}`] = v;
      for (const [k, v] of Object.entries(http)) out[`http_${k}`] = v;
      return out;
    } finally {
      await server.stop();
    }
  },
};

// ---- OpenTelemetry: per-call overhead with a provider registered ----

/**
 * Registers an OpenTelemetry tracer and meter provider as an app would (the SDK, the async-hooks context
 * manager) with exporters that drop everything: what is measured is the instrumentation, not an export.
 * Returns `off()`, which unregisters them (the face then takes its no-provider path again).
 */
async function registerOtel() {
  const api = await import('@opentelemetry/api');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics');
  class Reader extends MetricReader {
    async onForceFlush() {}
    async onShutdown() {}
  }
  const dropAll = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const tracer = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropAll)] });
  const meter = new MeterProvider({ readers: [new Reader()] });
  return {
    on() {
      api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      api.trace.setGlobalTracerProvider(tracer);
      api.metrics.setGlobalMeterProvider(meter);
    },
    off() {
      api.trace.disable();
      api.metrics.disable();
      api.context.disable();
    },
  };
}

/**
 * `calls` sequential echoes in `rounds` alternating blocks, without and with a provider registered, in one
 * process (so JIT and machine drift fall on both alike): p50 and p99 of each, and the p50 difference.
 */
async function otelOverhead(server, calls, warm, rounds) {
  const otel = await registerOtel();
  const c = await makeClient({ s: server });
  const echo = (await c.listTools()).s_echo;
  otel.on();
  for (let i = 0; i < warm; i++) await echoOnce(echo, `w${i}`);
  otel.off();
  for (let i = 0; i < warm; i++) await echoOnce(echo, `w${i}`);
  const per = Math.floor(calls / rounds);
  const lat = { none: new Float64Array(per * rounds), otel: new Float64Array(per * rounds) };
  for (let r = 0; r < rounds; r++) {
    for (const mode of r % 2 === 0 ? ['none', 'otel'] : ['otel', 'none']) {
      if (mode === 'otel') otel.on();
      for (let i = 0; i < per; i++) {
        const t = performance.now();
        await echo.execute({ message: `m${i}` }, {});
        lat[mode][r * per + i] = performance.now() - t;
      }
      if (mode === 'otel') otel.off();
    }
  }
  await c.disconnect();
  lat.none.sort();
  lat.otel.sort();
  const p50 = { none: quantile(lat.none, 0.5) * 1000, otel: quantile(lat.otel, 0.5) * 1000 };
  return { p50_none_us: p50.none, p50_otel_us: p50.otel, p99_none_us: quantile(lat.none, 0.99) * 1000, p99_otel_us: quantile(lat.otel, 0.99) * 1000, overhead_us: p50.otel - p50.none };
}

// ---- per-user clients: a new client per user (their own token or API key), listToolsets, one call ----

/** A per-user client: `{ listToolsets() → { [server]: { [tool]: { execute } } }, disconnect() }`. */
async function userClient(servers) {
  const id = `bench-${impl}-${process.pid}-${clientCount++}`;
  if (impl === 'floor') {
    const { StdioFloorClient, HttpFloorClient } = await import('./floor-client.mjs');
    const connections = {};
    return {
      async listToolsets() {
        const out = {};
        await Promise.all(
          Object.entries(servers).map(async ([name, def]) => {
            connections[name] ??= await (def.url
              ? HttpFloorClient.connect(def.url, def.requestInit?.headers)
              : StdioFloorClient.connect(def.command, def.args, def.env));
            const conn = connections[name];
            out[name] = {};
            for (const tool of await conn.listTools()) out[name][tool.name] = { execute: (args) => conn.callTool(tool.name, args) };
          }),
        );
        return out;
      },
      async disconnect() {
        await Promise.all(Object.values(connections).map((c) => c.close()));
      },
    };
  }
  const { MCPClient } =
    impl === 'anchor' ? await import('@mastra/mcp') : impl === 'anchor2' ? await import('@mastra/mcp-v2') : await import('../index.mjs');
  const client = new MCPClient({ id, servers });
  return { listToolsets: () => client.listToolsets(), disconnect: () => client.disconnect() };
}

/** User `i`'s server definition: a bearer token of their own (HTTP) or an API key in the env (stdio). */
function userServer(transport, i, url, { dualEra = false } = {}) {
  if (transport === 'http') {
    const def = { url: new URL(url), requestInit: { headers: { Authorization: `Bearer user-${i}-token` } } };
    return dualEra && impl === 'ours' ? { ...def, protocolVersion: '2026-07-28' } : def;
  }
  return { command: FIXTURE_BIN, args: ['stdio'], env: { API_KEY: `user-${i}-key` } };
}

/** One user: new client, listToolsets, one echo, disconnect; the times of the steps (ms). */
async function oneUser(transport, i, url, opts) {
  const t0 = performance.now();
  const c = await userClient({ s: userServer(transport, i, url, opts) });
  const sets = await c.listToolsets();
  const t1 = performance.now();
  await echoOnce(sets.s.echo, `u${i}`);
  const t2 = performance.now();
  let warm;
  if (opts.warmCall) {
    await echoOnce(sets.s.echo, `u${i}-again`);
    warm = performance.now() - t2;
  }
  await c.disconnect();
  return { total: performance.now() - t0, list: t1 - t0, call: t2 - t1, warm };
}

/** `users` users, `concurrency` at a time: users per second and the median time per user. */
async function userChurn(transport, url, users, concurrency, opts = {}) {
  const times = [];
  let next = 0;
  const worker = async () => {
    while (next < users) times.push((await oneUser(transport, next++, url, opts)).total);
  };
  const t = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t) / 1000;
  times.sort((a, b) => a - b);
  return { users_per_s: users / seconds, median_ms: quantile(times, 0.5) };
}

/** Starts bench/rtt-proxy.mjs in front of `port`; `connections()` asks it how many it accepted. */
async function rttProxy(port, rttMs) {
  const child = spawn(process.execPath, [new URL('./rtt-proxy.mjs', import.meta.url).pathname, String(port), String(rttMs / 2)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const queue = [];
  lines.on('line', (l) => queue.shift()?.(Number(l)));
  const read = () => new Promise((resolve) => queue.push(resolve));
  const own = await read();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    port: own,
    connections: () => (child.stdin.write('count\n'), read()),
    posts: () => (child.stdin.write('posts\n'), read()),
    stop: async () => (child.stdin.end(), await exited),
  };
}

/** Medians over `users` users, one at a time: first listToolsets, first call, a second (warm) call. */
async function firstCalls(transport, url, users) {
  const runs = [];
  for (let i = 0; i < users; i++) runs.push(await oneUser(transport, 100_000 + i, url, { warmCall: true }));
  const med = (k) => quantile(runs.map((r) => r[k]).sort((a, b) => a - b), 0.5);
  return { first_list_ms: med('list'), first_call_ms: med('call'), warm_call_ms: med('warm'), first_over_warm: med('call') / med('warm') };
}

/**
 * Holds `n` connected, idle clients (each has listed its toolsets), in two halves: the RSS each client
 * of the second half adds (KiB, after gc: what one more held client costs once the allocator's slack
 * from the churn before is used up by the first half), and the process's whole RSS with all `n` held
 * (MiB). A growth over all `n` measured from the churn's end said more about that slack than about
 * the clients: a process 35 MiB smaller after the churn read as 6× more per held client.
 */
/** How long held clients are left alone before their memory is read. */
const IDLE_MS = 2500;

async function heldClients(transport, url, n) {
  const held = [];
  const hold = async (count) => {
    for (let i = 0; i < count; i += 8) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(8, count - i) }, async () => {
          const c = await userClient({ s: userServer(transport, 200_000 + held.length, url) });
          const sets = await c.listToolsets();
          return { c, sets };
        }),
      );
      held.push(...batch);
    }
  };
  // Idle means idle for a while: each sample follows a quiet spell (ours parks an idle session
  // whose server has no stream to give after about a second: docs/performance.md).
  const half = Math.floor(n / 2);
  await hold(half);
  await sleep(IDLE_MS);
  gc();
  const middle = process.memoryUsage().rss;
  await hold(n - half);
  await sleep(IDLE_MS);
  gc();
  const rss = process.memoryUsage().rss;
  const perClient = (rss - middle) / 1024 / (n - half);
  await echoOnce(held[n - 1].sets.s.echo, 'held');
  for (let i = 0; i < held.length; i += 16) await Promise.all(held.slice(i, i + 16).map((h) => h.c.disconnect()));
  return { rss_per_held_kib: perClient, rss_held_mib: rss / MiB };
}

async function perUser(transport, { users = 400, concurrency = 8, sequential = 40, hold = 200 }) {
  const server = transport === 'http' ? await httpServer(false) : undefined;
  const url = server ? `http://127.0.0.1:${server.port}/mcp` : undefined;
  try {
    await userChurn(transport, url, Math.min(40, users), concurrency); // module loading, JIT
    gc();
    const rssBefore = rssMiB();
    const churn = await userChurn(transport, url, users, concurrency);
    gc();
    const growth = rssMiB() - rssBefore;
    const first = await firstCalls(transport, url, sequential);
    const held = await heldClients(transport, url, hold);
    return { ...churn, rss_growth_mib: growth, ...first, ...held };
  } finally {
    await server?.stop();
  }
}

/** How long a burst's clients are left alone before their memory is read the second time. */
const BURST_QUIET_MS = 3000;

function memory() {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
}

/**
 * `burst` users arrive together: each gets a client of its own (its own token or key), lists its toolsets and
 * calls one tool, all at once, and the clients are held. What the process grew by, per client (KiB, after gc):
 * right after the burst, and after `quiet` ms with nothing to do; its V8 heap and external parts beside the RSS
 * (the rest is native). A fresh process (run.mjs runs it apart from the rest of the scenario), warmed by a few
 * users first so module loading is not counted.
 */
async function perUserBurst(transport, { burst = 200, quiet = BURST_QUIET_MS }) {
  const server = transport === 'http' ? await httpServer(false) : undefined;
  const url = server ? `http://127.0.0.1:${server.port}/mcp` : undefined;
  try {
    const arrive = (first) =>
      Promise.all(
        Array.from({ length: burst }, async (_, i) => {
          const c = await userClient({ s: userServer(transport, first + i, url) });
          const sets = await c.listToolsets();
          await echoOnce(sets.s.echo, `burst-${i}`);
          return { c, sets };
        }),
      );
    const release = async (clients) => {
      for (let i = 0; i < clients.length; i += 16) await Promise.all(clients.slice(i, i + 16).map((h) => h.c.disconnect()));
    };
    // A first burst, let go: module loading, JIT, and the process-wide pools (sockets, heaps, allocator
    // arenas) at a burst's size, so the second burst's growth is what its held clients cost.
    await release(await arrive(300_000));
    await sleep(500);
    gc();
    const before = memory();
    const held = await arrive(400_000);
    gc();
    const after = memory();
    await sleep(quiet);
    gc();
    const idle = memory();
    await echoOnce(held[burst - 1].sets.s.echo, 'held');
    await release(held);
    const per = (a, k) => (a[k] - before[k]) / 1024 / burst;
    return {
      burst_rss_kib: per(after, 'rss'),
      burst_idle_rss_kib: per(idle, 'rss'),
      burst_heap_kib: per(after, 'heap'),
      burst_idle_heap_kib: per(idle, 'heap'),
      burst_idle_external_kib: per(idle, 'external'),
    };
  } finally {
    await server?.stop();
  }
}

/**
 * A new client per user, before its first request: `clients` clients made (each its own bearer token) and held,
 * none connected; the RSS and V8 heap each adds (after `gc()`). A fresh process, warmed by 200 clients made and
 * dropped first (module loading, the allocators). The floor's client has nothing before it connects.
 */
async function clientFootprint({ clients = 2000 }) {
  const url = 'http://127.0.0.1:9/mcp'; // never reached: nothing connects
  const make = (first) => Promise.all(Array.from({ length: clients }, (_, i) => userClient({ s: userServer('http', first + i, url) })));
  await make(600_000).then((warm) => (warm.length = 0));
  await sleep(200);
  gc();
  const before = memory();
  const held = await make(700_000);
  gc();
  const after = memory();
  const per = (k) => (after[k] - before[k]) / 1024 / clients;
  const result = { construct_rss_kib: per('rss'), construct_heap_kib: per('heap') };
  held.length = 0;
  return result;
}

/**
 * Per user over a link with `rtt` ms of round-trip time (bench/rtt-proxy.mjs): the median time per user in
 * round trips, and new TCP connections per user, `concurrency` users at a time. With `dualEra` the server
 * also speaks 2026-07-28 and ours is pinned to it (a known era: no discovery after the first client).
 */
async function perUserRtt({ users = 40, concurrency = 4, rtt = 50, dualEra = 0 }) {
  const server = await httpServer(false, Boolean(dualEra));
  const proxy = await rttProxy(server.port, rtt);
  const url = `http://127.0.0.1:${proxy.port}/mcp`;
  try {
    await oneUser('http', -1, url, { dualEra: Boolean(dualEra) }); // module loading, the era learned
    const before = await proxy.connections();
    const totals = [];
    let n = 0;
    const run = async () => {
      while (n < users) {
        const r = await oneUser('http', n++, url, { dualEra: Boolean(dualEra) });
        totals.push(r.list + r.call); // new client to the call's result (the disconnect is not waited for by a user)
      }
    };
    await Promise.all(Array.from({ length: concurrency }, run));
    const after = await proxy.connections();
    totals.sort((a, b) => a - b);
    const median = quantile(totals, 0.5);
    return { median_ms: median, round_trips: median / rtt, connections_per_user: (after - before) / users };
  } finally {
    await proxy.stop();
    await server.stop();
  }
}

/**
 * A serverless function: every invocation a fresh process (bench/cold-invoke.mjs) over a `rtt` ms link, against
 * a handshake server that keeps sessions. Ours keeps what it learned in a store the invocations share (one
 * invocation first fills it); the medians over `invocations`: the POSTs an invocation sends (each a round
 * trip: these clients send one at a time), the time from the client's construction to the first tool result
 * (a new TCP connection costs one more round trip), and from process start. With `dualEra` the server also
 * speaks 2026-07-28 and ours is pinned to it.
 */
async function coldRtt({ invocations = 10, rtt = 50, dualEra = 0 }) {
  const server = await httpServer(false, Boolean(dualEra));
  const proxy = await rttProxy(server.port, rtt);
  const url = `http://127.0.0.1:${proxy.port}/mcp`;
  const dir = mkdtempSync(path.join(tmpdir(), 'cold-rtt-'));
  const storeUrl = `file:${path.join(dir, 'store.db')}`;
  const once = () =>
    new Promise((resolve, reject) => {
      const script = new URL('./cold-invoke.mjs', import.meta.url).pathname;
      execFile(process.execPath, [script, impl, url, storeUrl, ...(dualEra ? ['2026'] : [])], { timeout: 60_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${impl}/cold-rtt: ${err.message} ${stderr}`)) : resolve(JSON.parse(stdout.trim().split('\n').pop())),
      );
    });
  try {
    await once(); // a warm store for ours; module caches for all
    const runs = [];
    for (let i = 0; i < invocations; i++) {
      const before = await proxy.posts();
      const run = await once();
      runs.push({ ...run, posts: (await proxy.posts()) - before });
    }
    const med = (k) => quantile(runs.map((r) => r[k]).sort((a, b) => a - b), 0.5);
    return { posts: med('posts'), network_ms: med('network_ms'), total_ms: med('total_ms') };
  } finally {
    await proxy.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

scenarios['cold-rtt'] = (p) => coldRtt(p);
scenarios['cold-rtt-2026'] = (p) => coldRtt({ ...p, dualEra: 1 });
scenarios['per-user-http'] = (p) => perUser('http', p);
scenarios['per-user-stdio'] = (p) => perUser('stdio', p);
scenarios['per-user-burst-http'] = (p) => perUserBurst('http', p);
scenarios['per-user-burst-stdio'] = (p) => perUserBurst('stdio', p);
scenarios['per-user-rtt'] = (p) => perUserRtt(p);
scenarios['client-footprint'] = (p) => clientFootprint(p);
scenarios['per-user-rtt-2026'] = (p) => perUserRtt({ ...p, dualEra: 1 });

async function httpThroughput({ calls = 10000, inflight = 64, warm = 1000 }, sse) {
  const server = await httpServer(sse);
  try {
    const c = await makeClient({ h: server.def });
    const echo = (await c.listTools()).h_echo;
    const run = async (n, prefix) => {
      let next = 0;
      const worker = async () => {
        while (next < n) {
          const i = next++;
          await echo.execute({ message: `${prefix}${i}` }, {});
        }
      };
      await Promise.all(Array.from({ length: inflight }, worker));
    };
    await run(warm, 'w');
    const t = performance.now();
    await run(calls, 'm');
    const seconds = (performance.now() - t) / 1000;
    await echoOnce(echo, 'last');
    await c.disconnect();
    return { calls_per_s: calls / seconds };
  } finally {
    await server.stop();
  }
}

const run = scenarios[scenario];
if (!run || !['anchor', 'anchor2', 'ours', 'floor'].includes(impl)) {
  console.error(`usage: scenario.mjs <anchor|anchor2|ours|floor> <${Object.keys(scenarios).join('|')}> [key=value ...]`);
  process.exit(2);
}
const result = await run(params);
process.stdout.write(JSON.stringify({ impl, scenario, ...result }) + '\n');
exitGuard();

// The side-by-side benchmark: @mastra/mcp 1.18 (anchor), this package (ours) and a hand-written JSON-RPC
// client (floor), against a fixture server that costs microseconds. Each measurement runs in a fresh process;
// runs come in pairs (one process per implementation, order alternating), and the table shows medians.
//
//   npm run bench                      full run (5 pairs)
//   npm run bench -- --quick           smoke run (2 pairs, small sizes)
//   npm run bench -- --only catalog    one scenario (repeatable); --pairs N; --verbose prints every run
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { buildFixture } from './fixture.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCENARIO = fileURLToPath(new URL('./scenario.mjs', import.meta.url));
const IMPLS = ['anchor', 'ours', 'floor'];
const RUN_TIMEOUT_MS = 180_000;

// Each scenario: its parameters (full and quick) and its metrics: [key, label, 'lower' | 'higher' is better].
const SCENARIOS = [
  {
    name: 'stdio-seq',
    full: { calls: 5000, warm: 1000 },
    quick: { calls: 300, warm: 50 },
    metrics: [
      ['p50_us', 'stdio, one echo at a time: p50 latency (µs)', 'lower'],
      ['p99_us', 'stdio, one echo at a time: p99 latency (µs)', 'lower'],
      ['vcsw_per_call', 'stdio, one at a time: voluntary context switches / call', 'lower'],
      ['ivcsw_per_call', 'stdio, one at a time: involuntary context switches / call', 'lower'],
    ],
  },
  {
    name: 'stdio-seq-2026',
    full: { calls: 5000, warm: 1000 },
    quick: { calls: 300, warm: 50 },
    metrics: [
      ['p50_us', 'stdio, dual-era server, one echo at a time: p50 latency (µs)', 'lower'],
      ['p99_us', 'stdio, dual-era server, one echo at a time: p99 latency (µs)', 'lower'],
    ],
  },
  {
    name: 'stdio-soak',
    full: { calls: 20000, warm: 1000 },
    quick: { calls: 1000, warm: 100 },
    metrics: [['calls_per_s', 'stdio, {calls}-call sequential soak (calls/s)', 'higher']],
  },
  {
    name: 'catalog',
    full: { tools: 2000, relists: 5 },
    quick: { tools: 300, relists: 2 },
    metrics: [
      ['first_list_ms', '{tools}-tool catalog: first listTools() (ms)', 'lower'],
      ['relist_ms', '{tools}-tool catalog: listTools() again, nothing changed (ms)', 'lower'],
      ['rss_growth_mib', '{tools}-tool catalog: RSS growth (MiB)', 'lower'],
    ],
  },
  {
    name: 'fanout',
    full: { servers: 20 },
    quick: { servers: 5 },
    metrics: [
      ['connect_list_ms', '{servers} stdio servers: connect + listTools() (ms)', 'lower'],
      ['rss_growth_mib', '{servers} stdio servers: RSS growth (MiB)', 'lower'],
    ],
  },
  {
    name: 'http-json',
    full: { calls: 3000, inflight: 64, warm: 300 },
    quick: { calls: 300, inflight: 64, warm: 64 },
    metrics: [['calls_per_s', 'Streamable HTTP, JSON answers, {inflight} in flight (calls/s)', 'higher']],
  },
  {
    name: 'http-sse',
    full: { calls: 3000, inflight: 64, warm: 300 },
    quick: { calls: 300, inflight: 64, warm: 64 },
    metrics: [['calls_per_s', 'Streamable HTTP, SSE answers, {inflight} in flight (calls/s)', 'higher']],
  },
  {
    name: 'blob',
    full: { bytes: 5_000_000, calls: 5 },
    quick: { bytes: 1_000_000, calls: 2 },
    metrics: [
      ['time_ms', '{bytes} B tool result: time per call (ms)', 'lower'],
      ['peak_rss_mib', '{bytes} B tool result: peak RSS of the process (MiB)', 'lower'],
    ],
  },
  {
    name: 'blob-2026',
    full: { bytes: 5_000_000, calls: 5 },
    quick: { bytes: 1_000_000, calls: 2 },
    metrics: [['time_ms', 'dual-era server, {bytes} B tool result: time per call (ms)', 'lower']],
  },
  {
    name: 'cold',
    full: {},
    quick: {},
    metrics: [['wall_ms', 'cold process: import, connect, list, call, exit (ms)', 'lower']],
  },
  {
    name: 'cold-rtt',
    full: { invocations: 10, rtt: 50 },
    quick: { invocations: 3, rtt: 50 },
    metrics: [
      ['posts', 'serverless: a fresh process per invocation, {rtt} ms RTT, handshake server, warm store: requests sent, each a round trip', 'lower'],
      ['network_ms', 'serverless, {rtt} ms RTT: new client to first tool result (ms)', 'lower'],
      ['total_ms', 'serverless, {rtt} ms RTT: process start to first tool result (ms)', 'lower'],
    ],
  },
  {
    name: 'cold-rtt-2026',
    full: { invocations: 10, rtt: 50 },
    quick: { invocations: 3, rtt: 50 },
    metrics: [
      ['posts', 'serverless, {rtt} ms RTT, dual-era server (ours pinned to 2026-07-28), warm store: requests sent, each a round trip', 'lower'],
      ['network_ms', 'serverless, {rtt} ms RTT, dual-era server: new client to first tool result (ms)', 'lower'],
      ['total_ms', 'serverless, {rtt} ms RTT, dual-era server: process start to first tool result (ms)', 'lower'],
    ],
  },
  {
    name: 'per-user-http',
    full: { users: 400, concurrency: 8, sequential: 40, hold: 200 },
    quick: { users: 80, concurrency: 8, sequential: 10, hold: 40 },
    // The burst runs in a fresh process of its own (scenario.mjs `perUserBurst`), its figures merged in.
    also: { scenario: 'per-user-burst-http', full: { burst: 200 }, quick: { burst: 40 } },
    metrics: [
      ['users_per_s', 'per user over Streamable HTTP (new client, listToolsets, call, disconnect), {concurrency} at a time: users/s', 'higher'],
      ['median_ms', 'per user over Streamable HTTP, {concurrency} at a time: median time per user (ms)', 'lower'],
      ['rss_growth_mib', 'per user over Streamable HTTP: RSS growth over {users} users (MiB)', 'lower'],
      ['first_list_ms', 'per user over Streamable HTTP, one at a time: new client to listToolsets() (ms)', 'lower'],
      ['first_call_ms', 'per user over Streamable HTTP, one at a time: first tool call (ms)', 'lower'],
      ['first_over_warm', 'per user over Streamable HTTP: first call / a warm call on the same client', 'lower'],
      ['rss_per_held_kib', 'Streamable HTTP: RSS per connected idle client, the second half of {hold} held (KiB)', 'lower'],
      ['rss_held_mib', "Streamable HTTP: the process's RSS with {hold} idle clients held, after the churn (MiB)", 'lower'],
      ['burst_rss_kib', 'Streamable HTTP, {burst} users at once (new client, listToolsets, call), held: RSS per client right after (KiB)', 'lower'],
      ['burst_idle_rss_kib', 'Streamable HTTP, {burst} held at once: RSS per client after 3 s idle (KiB)', 'lower'],
      ['burst_heap_kib', 'Streamable HTTP, {burst} held at once: V8 heap per client right after (KiB)', 'lower'],
      ['burst_idle_heap_kib', 'Streamable HTTP, {burst} held at once: V8 heap per client after 3 s idle (KiB)', 'lower'],
    ],
  },
  {
    name: 'per-user-stdio',
    full: { users: 400, concurrency: 8, sequential: 40, hold: 100 },
    quick: { users: 80, concurrency: 8, sequential: 10, hold: 40 },
    also: { scenario: 'per-user-burst-stdio', full: { burst: 100 }, quick: { burst: 20 } },
    metrics: [
      ['users_per_s', 'per user over stdio (new client and server process, listToolsets, call, disconnect), {concurrency} at a time: users/s', 'higher'],
      ['median_ms', 'per user over stdio, {concurrency} at a time: median time per user (ms)', 'lower'],
      ['rss_growth_mib', 'per user over stdio: RSS growth over {users} users (MiB)', 'lower'],
      ['first_call_ms', 'per user over stdio, one at a time: first tool call (ms)', 'lower'],
      ['first_over_warm', 'per user over stdio: first call / a warm call on the same client', 'lower'],
      ['rss_per_held_kib', 'stdio: RSS per connected idle client, the second half of {hold} held (KiB)', 'lower'],
      ['rss_held_mib', "stdio: the process's RSS with {hold} idle clients held, after the churn (MiB)", 'lower'],
      ['burst_rss_kib', 'stdio, {burst} users at once, held: RSS per client right after (KiB)', 'lower'],
      ['burst_idle_rss_kib', 'stdio, {burst} held at once: RSS per client after 3 s idle (KiB)', 'lower'],
    ],
  },
  {
    name: 'client-footprint',
    full: { clients: 2000 },
    quick: { clients: 500 },
    metrics: [
      ['construct_rss_kib', 'a new client per user (own bearer token), not connected yet, {clients} held: RSS per client (KiB)', 'lower'],
      ['construct_heap_kib', 'a new client per user, not connected yet: V8 heap per client (KiB)', 'lower'],
    ],
  },
  {
    name: 'per-user-rtt',
    full: { users: 40, concurrency: 4, rtt: 50 },
    quick: { users: 12, concurrency: 4, rtt: 50 },
    metrics: [
      ['round_trips', 'per user over a {rtt} ms RTT link, {concurrency} at a time: new client to first call result (round trips)', 'lower'],
      ['connections_per_user', 'per user over a {rtt} ms RTT link: new TCP connections per user', 'lower'],
    ],
  },
  {
    name: 'per-user-rtt-2026',
    full: { users: 40, concurrency: 4, rtt: 50 },
    quick: { users: 12, concurrency: 4, rtt: 50 },
    metrics: [
      ['round_trips', 'dual-era server (ours pinned to 2026-07-28), {rtt} ms RTT: new client to first call result (round trips)', 'lower'],
      ['connections_per_user', 'dual-era server, {rtt} ms RTT: new TCP connections per user', 'lower'],
    ],
  },
  {
    // Ours without and with an OpenTelemetry provider registered, alternating in one process. Printed as a
    // table of its own.
    name: 'otel-overhead',
    impls: ['ours'],
    table: 'otel',
    full: { calls: 4000, warm: 500, rounds: 8 },
    quick: { calls: 400, warm: 50, rounds: 2 },
    metrics: [
      ['stdio_p50', 'stdio, one echo at a time: p50 latency (µs)', 'lower'],
      ['stdio_p99', 'stdio, one echo at a time: p99 latency (µs)', 'lower'],
      ['http_p50', 'Streamable HTTP, one echo at a time: p50 latency (µs)', 'lower'],
      ['http_p99', 'Streamable HTTP, one echo at a time: p99 latency (µs)', 'lower'],
    ],
  },
  {
    // Real servers (scripts/real-servers.mjs installs them): @mastra/mcp 1.18 and 2.0 side by side, no floor.
    // Printed as a table of its own.
    name: 'connect-real',
    impls: ['anchor', 'anchor2', 'ours'],
    full: {},
    quick: {},
    metrics: [
      ['time_mcp1_ms', 'mcp-server-time 2026.7.10, Python mcp 1.30 (stdio)', 'lower'],
      ['time_old_ms', 'mcp-server-time 0.6.2, Python mcp 1.6 (stdio; a probe kills its reader)', 'lower'],
      ['py2_ms', 'Python SDK 2.3 dual-era fixture (stdio)', 'lower'],
      ['memory_ms', '@modelcontextprotocol/server-memory 2026.8.31, TS SDK 1.x (stdio)', 'lower'],
      ['mastra118dual_ms', '@mastra/mcp 1.18 MCPServer, dual-era (stdio)', 'lower'],
      ['mastra20_ms', '@mastra/mcp 2.0 MCPServer, 2026-07-28 only (stdio)', 'lower'],
    ],
  },
];

function parseArgs(argv) {
  const opts = { quick: false, only: [], pairs: undefined, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') opts.quick = true;
    else if (a === '--verbose') opts.verbose = true;
    else if (a === '--only') opts.only.push(argv[++i]);
    else if (a === '--pairs') opts.pairs = Number(argv[++i]);
    else throw new Error(`unknown argument ${a} (known: --quick, --only <scenario>, --pairs <n>, --verbose)`);
  }
  for (const name of opts.only) {
    if (!SCENARIOS.some((s) => s.name === name)) {
      throw new Error(`unknown scenario ${name} (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);
    }
  }
  opts.pairs ??= opts.quick ? 2 : 5;
  if (!Number.isInteger(opts.pairs) || opts.pairs < 1) throw new Error('--pairs needs a positive integer');
  return opts;
}

/** Node 22 from the `node` devDependency when present (Mastra needs >= 22.13), else the running Node. */
function nodeBinary() {
  const local = `${ROOT}node_modules/.bin/node`;
  return existsSync(local) ? realpathSync(local) : process.execPath;
}

function sh(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function prepare(node) {
  console.error('building the fixture server (cargo build --release in bench/fixture-server) …');
  buildFixture();
  console.error('making sure the addon is built (scripts/ensure-built.mjs) …');
  // Measure what users install: the release profile (LTO), unless MCP_NATIVE_PROFILE says otherwise.
  const env = { ...process.env, MCP_NATIVE_PROFILE: process.env.MCP_NATIVE_PROFILE ?? 'release' };
  const r = spawnSync(node, ['scripts/ensure-built.mjs'], { cwd: ROOT, stdio: 'inherit', env });
  if (r.status !== 0) throw new Error(`building the addon failed (exit ${r.status})`);
}

/** Installs the real servers (connect-real) before the first timed run. */
function prepareRealServers(node) {
  console.error('installing the real servers (scripts/real-servers.mjs) …');
  const r = spawnSync(node, ['scripts/real-servers.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`installing the real servers failed (exit ${r.status})`);
}

/** One fresh process; resolves to its measurements (plus wall_ms), or to an error. */
function runOnce(node, impl, scenario, params) {
  const args = ['--expose-gc', SCENARIO, impl, scenario, ...Object.entries(params).map(([k, v]) => `${k}=${v}`)];
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(node, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.once('close', (code, signal) => {
      const wall = performance.now() - started;
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop();
      let data;
      try {
        data = JSON.parse(line);
      } catch {
        data = undefined;
      }
      if (code !== 0 || !data) {
        const why = signal ? `killed by ${signal}` : `exit ${code}`;
        resolve({ error: `${impl} ${scenario}: ${why}\n${stderr.trim().split('\n').slice(-8).join('\n')}` });
      } else {
        resolve({ ...data, wall_ms: wall });
      }
    });
  });
}

function median(xs) {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function fmt(x) {
  if (x === undefined || Number.isNaN(x)) return 'n/a';
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

function ratio(a, b) {
  return a === undefined || b === undefined || b === 0 ? 'n/a' : `${(a / b).toFixed(2)}×`;
}

function label(template, params) {
  return template.replace(/\{(\w+)\}/g, (_, k) => (params[k] ?? k).toLocaleString('en-US'));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const node = nodeBinary();
  prepare(node);
  const nodeVersion = sh(node, ['--version']);
  const commit = sh('git', ['rev-parse', '--short', 'HEAD']) ?? 'unknown';
  const dirty = sh('git', ['status', '--porcelain', '--untracked-files=no']) ? ' (with uncommitted changes)' : '';
  const loadBefore = os.loadavg();
  const begun = performance.now();
  const selected = SCENARIOS.filter((s) => opts.only.length === 0 || opts.only.includes(s.name));
  if (selected.some((s) => s.impls && s.table !== 'otel')) prepareRealServers(node);

  const rows = [];
  const realRows = [];
  const otelRows = [];
  const failures = [];
  for (const sc of selected) {
    const params = opts.quick ? sc.quick : sc.full;
    const impls = sc.impls ?? IMPLS;
    const results = Object.fromEntries(impls.map((i) => [i, []]));
    for (let p = 0; p < opts.pairs; p++) {
      const order = p % 2 === 0 ? impls : [...impls].reverse();
      for (const impl of order) {
        let r = await runOnce(node, impl, sc.name, params);
        if (!r.error && sc.also) {
          const also = opts.quick ? sc.also.quick : sc.also.full;
          const extra = await runOnce(node, impl, sc.also.scenario, also);
          r = extra.error ? extra : { ...r, ...extra, wall_ms: r.wall_ms };
        }
        if (r.error) {
          failures.push(r.error);
          console.error(`  FAILED ${r.error}`);
          continue;
        }
        results[impl].push(r);
        if (opts.verbose) console.error(`  ${JSON.stringify(r)}`);
      }
    }
    console.error(`${sc.name}: done (${opts.pairs} pairs, ${((performance.now() - begun) / 1000).toFixed(0)} s so far)`);
    if (sc.table === 'otel') {
      // Each metric key names a pair: `${key}_none_us` and `${key}_otel_us` of the same runs.
      const med = (k) => median(results.ours.map((r) => r[k]).filter((v) => v !== undefined));
      for (const [key, template] of sc.metrics) {
        otelRows.push({ label: label(template, params), none: med(`${key}_none_us`), otel: med(`${key}_otel_us`) });
      }
      continue;
    }
    for (const [key, template, better] of sc.metrics) {
      const med = Object.fromEntries(impls.map((i) => [i, median(results[i].map((r) => r[key]).filter((v) => v !== undefined))]));
      const runs = Object.fromEntries(impls.map((i) => [i, results[i].filter((r) => r[key] !== undefined).length]));
      const labelParams = sc.also ? { ...params, ...(opts.quick ? sc.also.quick : sc.also.full) } : params;
      (sc.impls ? realRows : rows).push({ label: label(template, labelParams), better, runs, ...med });
    }
  }

  const elapsed = (performance.now() - begun) / 1000;
  const loadAfter = os.loadavg();
  const lines = [];
  lines.push(
    `mastra-mcp-native ${commit}${dirty}; ${opts.quick ? 'quick' : 'full'} run, ${opts.pairs} pairs, medians; ` +
      `Node ${nodeVersion}; ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}); ` +
      `load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after; ` +
      `${elapsed.toFixed(0)} s`,
  );
  if (rows.length > 0) {
    lines.push('');
    lines.push('| scenario | better | @mastra/mcp | ours | floor | ours / @mastra/mcp | ours / floor |');
    lines.push('|---|---|--:|--:|--:|--:|--:|');
    for (const r of rows) {
      lines.push(
        `| ${r.label} | ${r.better} | ${fmt(r.anchor)} | ${fmt(r.ours)} | ${fmt(r.floor)} | ${ratio(r.ours, r.anchor)} | ${ratio(r.ours, r.floor)} |`,
      );
    }
  }
  if (realRows.length > 0) {
    // n/a: the client connected in none of the runs (the runs that did count: "ok/runs" when some failed).
    const cell = (r, impl) => {
      const ok = r.runs[impl];
      return `${fmt(r[impl])}${ok > 0 && ok < opts.pairs ? ` (${ok}/${opts.pairs})` : ''}`;
    };
    lines.push('');
    lines.push('connect + listTools() + first call (ms), a real server per row:');
    lines.push('');
    lines.push('| server | @mastra/mcp 1.18 | @mastra/mcp 2.0 | ours | ours / 1.18 | ours / 2.0 |');
    lines.push('|---|--:|--:|--:|--:|--:|');
    for (const r of realRows) {
      lines.push(
        `| ${r.label} | ${cell(r, 'anchor')} | ${cell(r, 'anchor2')} | ${cell(r, 'ours')} | ${ratio(r.ours, r.anchor)} | ${ratio(r.ours, r.anchor2)} |`,
      );
    }
  }
  if (otelRows.length > 0) {
    lines.push('');
    lines.push('ours, per call, without and with an OpenTelemetry provider registered (alternating blocks in one process):');
    lines.push('');
    lines.push('| scenario | no provider | provider registered | overhead (µs) | ratio |');
    lines.push('|---|--:|--:|--:|--:|');
    for (const r of otelRows) lines.push(`| ${r.label} | ${fmt(r.none)} | ${fmt(r.otel)} | ${fmt(r.otel - r.none)} | ${ratio(r.otel, r.none)} |`);
  }
  console.log(lines.join('\n'));
  if (failures.length > 0) {
    console.error(`\n${failures.length} run(s) failed:\n${failures.join('\n\n')}`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e.message ?? e);
  process.exit(1);
});

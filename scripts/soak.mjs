// Soak: many tool calls over stdio and Streamable HTTP through one MCPClient, with 10 % of the
// HTTP calls answered 503 by the fixture, while RSS, descriptors and threads are sampled.
// Fails (exit 1) when a call does not settle as expected, when RSS or descriptors keep growing
// after warm-up, or when a process is left behind after disconnect().
//
//   npm run soak                       20 000 calls (long form)
//   node scripts/soak.mjs --calls 2000 short form (what `npm test` runs, via __test__/soak.test.mjs)
import { MCPClient } from '../index.mjs';
import { startHttpFixture } from '../__test__/fixtures/http-server.mjs';
import { stdioFixtureServer, waitFor } from '../__test__/fixtures/helpers.mjs';
import { fdCount, threadCount, descendants, gc } from '../__test__/fixtures/observe.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TOTAL = arg('calls', 20000);
const CONCURRENCY = arg('concurrency', 8);
const FAIL_EVERY = 10; // 10 % injected 503s on HTTP tools/call
// RSS may grow this much after warm-up (allocator arenas settle), no more.
const RSS_SLACK_MB = arg('rss-slack', 64);

const mb = (bytes) => Math.round(bytes / 1e5) / 10;
const problems = [];
const fail = (text) => {
  problems.push(text);
  console.error(`soak: ${text}`);
};

const fx = await startHttpFixture({ failEvery: FAIL_EVERY });
const client = new MCPClient({
  id: 'soak',
  servers: {
    // A quiet logger: the injected failures would otherwise each print a line.
    stdio: stdioFixtureServer({}, { timeout: 30000, logger: () => {} }),
    http: { url: new URL(fx.mcpUrl), timeout: 30000, logger: () => {} },
  },
});

const samples = [];
const sample = (done) => {
  gc();
  fx.requests.length = 0; // the fixture's request log lives in this process too
  fx.state.deletedSessions.length = 0;
  const s = { done, rssMb: mb(process.memoryUsage().rss), heapMb: mb(process.memoryUsage().heapUsed), fds: fdCount(), threads: threadCount() };
  samples.push(s);
  return s;
};

const startFds = fdCount();
const started = Date.now();
const tools = await client.listTools();
const counts = { ok: 0, injected503: 0, unexpected: 0 };
let next = 0;
let done = 0;
const sampleEvery = Math.max(1, Math.floor(TOTAL / 20));

async function worker() {
  while (next < TOTAL) {
    const i = next++;
    const overHttp = i % 2 === 1;
    const tool = overHttp ? tools.http_echo : tools.stdio_slow;
    try {
      const out = overHttp ? await tool.execute({ message: `m${i}` }, {}) : await tool.execute({ ms: 0 }, {});
      const want = overHttp ? `Echo: m${i}` : 'slept';
      if (out?.content?.[0]?.text !== want) throw new Error(`unexpected result ${JSON.stringify(out).slice(0, 200)}`);
      counts.ok++;
    } catch (e) {
      if (overHttp && e.status === 503 && /server http/.test(e.message)) counts.injected503++;
      else {
        counts.unexpected++;
        if (counts.unexpected <= 5) fail(`call ${i} failed: ${e.message}`);
      }
    }
    done++;
    if (done % sampleEvery === 0) {
      const s = sample(done);
      if (process.env.SOAK_VERBOSE || TOTAL >= 10000) console.log(`soak: ${s.done} calls, RSS ${s.rssMb} MB, heap ${s.heapMb} MB, fds ${s.fds}, threads ${s.threads}`);
    }
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const elapsed = (Date.now() - started) / 1000;

const children = descendants();
await client.disconnect();
try {
  await waitFor(() => descendants().length === 0, { timeoutMs: 10000, message: 'no processes left' });
} catch {
  fail(`processes left after disconnect: ${descendants().join(', ')} (were ${children.join(', ')})`);
}
await fx.close();
try {
  await waitFor(() => fdCount() <= startFds + 1, { timeoutMs: 5000, message: 'descriptors back' });
} catch {
  fail(`descriptors not back to baseline: ${startFds} at start, ${fdCount()} after disconnect`);
}

// Flat after warm-up: the first 20 % of the run warms up (JIT, allocator arenas, pools).
const warm = samples.filter((s) => s.done >= TOTAL * 0.2);
if (warm.length >= 2) {
  const base = warm[0];
  const peakRss = Math.max(...warm.map((s) => s.rssMb));
  const peakFds = Math.max(...warm.map((s) => s.fds));
  if (peakRss - base.rssMb > RSS_SLACK_MB) fail(`RSS grew from ${base.rssMb} MB to ${peakRss} MB after warm-up`);
  if (peakFds > base.fds + 4) fail(`descriptors grew from ${base.fds} to ${peakFds} after warm-up`);
}
const expected503 = fx.state.injectedFailures;
if (counts.injected503 !== expected503) fail(`${expected503} 503s injected, ${counts.injected503} reported as such`);
if (counts.ok + counts.injected503 + counts.unexpected !== TOTAL) fail('not every call settled');

const last = samples.at(-1) ?? sample(done);
console.log(
  `soak: ${TOTAL} calls in ${elapsed.toFixed(1)} s (${Math.round(TOTAL / elapsed)}/s): ${counts.ok} ok, ` +
    `${counts.injected503} injected 503s, ${counts.unexpected} unexpected; ` +
    `RSS ${samples[0]?.rssMb} → ${last.rssMb} MB, fds ${startFds} → ${fdCount()}, threads ${last.threads}`,
);
if (problems.length) {
  console.error(`soak: FAILED (${problems.length} problem${problems.length > 1 ? 's' : ''})`);
  process.exit(1);
}
console.log('soak: ok');

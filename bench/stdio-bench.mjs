// Side-by-side benchmark: @mastra/mcp 1.18 vs mastra-mcp-native in one run, same machine, same
// server (server-everything over stdio). Reports ratios (native / anchor); lower is better.
//   npm run bench        (or: node bench/stdio-bench.mjs [calls])
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const CALLS = Number(process.argv[2] ?? 300);

async function measure(label, MCPClient) {
  const servers = { everything: { command: process.execPath, args: [everything, 'stdio'] } };
  const client = new MCPClient({ id: `bench-${label}`, servers });
  const heapBefore = process.memoryUsage().heapUsed;
  let t = performance.now();
  const tools = await client.listTools();
  const connectAndList = performance.now() - t;

  t = performance.now();
  for (let i = 0; i < 20; i++) await client.listTools();
  const relist = (performance.now() - t) / 20;

  const echo = tools.everything_echo;
  t = performance.now();
  for (let i = 0; i < CALLS; i++) await echo.execute({ message: `m${i}` }, {});
  const sequential = (performance.now() - t) / CALLS;

  t = performance.now();
  await Promise.all(Array.from({ length: CALLS }, (_, i) => echo.execute({ message: `p${i}` }, {})));
  const parallel = (performance.now() - t) / CALLS;
  const heapDelta = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;

  await client.disconnect();
  return { connectAndList, relist, sequential, parallel, heapDelta };
}

const anchor = await import('@mastra/mcp');
const native = await import('../index.mjs');
// Warm both up once (module loading, JIT), then measure each.
await measure('warm-a', anchor.MCPClient);
await measure('warm-n', native.MCPClient);
const a = await measure('anchor', anchor.MCPClient);
const n = await measure('native', native.MCPClient);

const rows = [
  ['connect + listTools (ms)', 'connectAndList'],
  ['listTools again (ms)', 'relist'],
  [`echo, sequential, per call (ms, ${CALLS} calls)`, 'sequential'],
  [`echo, ${CALLS} in parallel, per call (ms)`, 'parallel'],
  ['JS heap growth over the run (MiB)', 'heapDelta'],
];
console.log(`Node ${process.version}; ratio = native / @mastra/mcp (lower is better)\n`);
console.log('metric'.padEnd(48), '@mastra/mcp'.padStart(12), 'native'.padStart(10), 'ratio'.padStart(8));
for (const [label, key] of rows) {
  console.log(label.padEnd(48), a[key].toFixed(2).padStart(12), n[key].toFixed(2).padStart(10), (n[key] / a[key]).toFixed(2).padStart(8));
}

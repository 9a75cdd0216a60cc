// One serverless invocation for the `cold-rtt` scenario, in a fresh process:
//   node bench/cold-invoke.mjs <anchor|ours|floor> <server URL> <store URL> [2026]
// Loads the client, then times from the client's construction to the first tool result (listTools, one
// echo): what a fresh process spends on the network. `ours` keeps what it learned in the store at the
// given URL (a SQLite file the invocations share) with `toolsCacheTtlMs`; 1.18 and the floor know
// nothing between processes. With `2026` (a dual-era server) ours is pinned to 2026-07-28, the others keep
// the handshake. Prints one JSON line: { network_ms, total_ms } (total: from process start).
import { performance } from 'node:perf_hooks';

const [impl, url, storeUrl, era] = process.argv.slice(2);
const headers = { Authorization: 'Bearer cold-token' };
const message = `cold-${process.pid}`;

async function invoke() {
  if (impl === 'floor') {
    const { HttpFloorClient } = await import('./floor-client.mjs');
    const t0 = performance.now();
    const c = await HttpFloorClient.connect(url, headers);
    await c.listTools();
    const result = await c.callTool('echo', { message });
    const t1 = performance.now();
    await c.close();
    return { t0, t1, result };
  }
  const mod = impl === 'anchor' ? await import('@mastra/mcp') : await import('../index.mjs');
  const store = impl === 'ours' ? mod.createMCPStore(storeUrl, { secret: 'cold-rtt-bench' }) : undefined;
  const t0 = performance.now();
  const server = { url: new URL(url), requestInit: { headers }, ...(store ? { toolsCacheTtlMs: 600_000 } : {}), ...(impl === 'ours' && era === '2026' ? { protocolVersion: '2026-07-28' } : {}) };
  const client = new mod.MCPClient({ id: `cold-${process.pid}`, servers: { s: server }, ...(store ? { store } : {}) });
  const tools = await client.listTools();
  const result = await tools.s_echo.execute({ message }, {});
  const t1 = performance.now();
  await client.disconnect();
  return { t0, t1, result };
}

const { t0, t1, result } = await invoke();
const text = result?.content?.[0]?.text ?? result?.result?.content?.[0]?.text;
if (text !== message) {
  console.error(`${impl}: echo returned ${JSON.stringify(result).slice(0, 200)}`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ network_ms: t1 - t0, total_ms: t1 })}\n`);

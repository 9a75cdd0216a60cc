// A fault-injection run (docs/reliability-and-security.md): one MCPClient over three stdio servers and one
// Streamable HTTP server, 16 calls in flight for 15 s while the stdio servers are killed (SIGKILL) and the HTTP
// server is stopped and started again on its port, at random; then 3 quiet seconds. Every server appends each
// call it runs to a ledger before answering. Prints one JSON line: calls completed, failed during the faults,
// failed after them, and calls that ran twice.
//   node scripts/fault-run.mjs [ours|anchor] [seconds]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [impl = 'ours', secondsArg = '15'] = process.argv.slice(2);
const FAULT_MS = Number(secondsArg) * 1000;
const QUIET_MS = 3000;
const IN_FLIGHT = 16;
const dir = mkdtempSync(join(tmpdir(), 'fault-run-'));
const root = fileURLToPath(new URL('..', import.meta.url));
const { MCPClient } = impl === 'anchor' ? await import('@mastra/mcp') : await import('../index.mjs');

// A stdio server that writes `start <pid>` and each call's message to its ledger.
const stdioScript = (ledger) => `
const fs = require('fs');
fs.appendFileSync(${JSON.stringify(ledger)}, 'start ' + process.pid + '\\n');
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'ledger', version: '1' } } });
  if (m.method === 'tools/list') return send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } }] } });
  if (m.method === 'tools/call') {
    fs.appendFileSync(${JSON.stringify(ledger)}, m.params.arguments.message + '\\n');
    setTimeout(() => send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params.arguments.message }] } }), 2);
    return;
  }
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
});`;

const stdioLedgers = [0, 1, 2].map((i) => join(dir, `stdio${i}.ledger`));
const httpLedger = join(dir, 'http.ledger');
for (const f of [...stdioLedgers, httpLedger]) writeFileSync(f, '');

/** The HTTP server in a child process (so that it can be stopped and started again on its port). */
function startHttp(port) {
  const code = `import(${JSON.stringify(join(root, '__test__/fixtures/per-user-server.mjs'))}).then(async (m) => { const s = await m.startPerUserServer({ port: ${port}, ledger: ${JSON.stringify(httpLedger)} }); console.log(new URL(s.url).port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => child.stdout.once('data', (d) => resolve({ child, port: Number(String(d).trim()) })));
}

let http = await startHttp(0);
const servers = {
  ...Object.fromEntries(stdioLedgers.map((ledger, i) => [`s${i}`, { command: process.execPath, args: ['-e', stdioScript(ledger)], timeout: 5000 }])),
  h: { url: new URL(`http://127.0.0.1:${http.port}/mcp`), timeout: 5000, requestInit: { headers: { Authorization: 'Bearer fault-token' } } },
};
const client = new MCPClient({ id: `fault-run-${impl}`, servers });
const tools = await client.listTools();
const names = Object.keys(tools).filter((n) => n.endsWith('_echo'));

let faultsEnd = Infinity;
const counts = { completed: 0, failedDuringFaults: 0, failedAfterFaults: 0 };
let seq = 0;
const started = Date.now();
const worker = async () => {
  while (Date.now() - started < FAULT_MS + QUIET_MS) {
    const name = names[seq % names.length];
    const message = `${name}-${seq++}`;
    try {
      await tools[name].execute({ message }, {});
      counts.completed++;
    } catch {
      if (Date.now() < faultsEnd) counts.failedDuringFaults++;
      else counts.failedAfterFaults++;
    }
  }
};
const faults = (async () => {
  while (Date.now() - started < FAULT_MS) {
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 700));
    if (Math.random() < 0.75) {
      const ledger = stdioLedgers[Math.floor(Math.random() * stdioLedgers.length)];
      const pid = Number(readFileSync(ledger, 'utf8').split('\n').filter((l) => l.startsWith('start')).at(-1)?.split(' ')[1]);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    } else {
      http.child.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 600));
      http = await startHttp(http.port);
    }
  }
  faultsEnd = Date.now() + 500; // calls that were in flight when the last fault struck
})();
await Promise.all([faults, ...Array.from({ length: IN_FLIGHT }, worker)]);
await client.disconnect();
http.child.kill();
let ranTwice = 0;
for (const ledger of [...stdioLedgers, httpLedger]) {
  const calls = readFileSync(ledger, 'utf8').split('\n').filter((l) => l && !l.startsWith('start'));
  ranTwice += calls.length - new Set(calls).size;
}
const total = counts.completed + counts.failedDuringFaults + counts.failedAfterFaults;
console.log(JSON.stringify({ impl, ...counts, ranTwice, successRate: +(counts.completed / total).toFixed(4) }));
process.exit(0);

// Runs the official MCP conformance suite (client mode) against __test__/conformance/client.mjs:
// the scenario list, one scenario, a few scenarios at a time. Shared by the suites of both
// releases (conformance.test.mjs: 0.1.16; conformance-next.test.mjs: 0.2.0-alpha.12).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const client = fileURLToPath(new URL('./client.mjs', import.meta.url));

/** The suite at `cli` (its dist/index.js): each run is bounded by the suite's own --timeout. */
export function conformance(cli) {
  const spawnSuite = (args, env = {}) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', (e) => resolve({ code: -1, out: String(e) }));
      child.on('close', (code) => resolve({ code, out: out.replace(/\x1b\[[0-9;]*m/g, '') }));
    });

  /** The client scenarios the suite lists, with the revisions each runs at (`[2026-07-28]`). */
  async function list() {
    const { out } = await spawnSuite(['list', '--client']);
    return [...out.matchAll(/^\s*-\s+(\S+)(?:\s+\[([^\]]*)\])?/gm)].map((m) => ({ name: m[1], versions: (m[2] ?? '').split(',').filter(Boolean) }));
  }

  const run = (scenario, env) => spawnSuite(['client', '--command', `${process.execPath} ${client}`, '--scenario', scenario, '--timeout', '60000'], env);

  /** Runs scenarios a few at a time (each starts its own servers on loopback). */
  async function runAll(scenarios, env = {}, parallel = 3) {
    const results = new Map();
    const queue = [...scenarios];
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (queue.length) {
          const s = queue.shift();
          results.set(s, await run(s, env));
        }
      }),
    );
    return results;
  }

  return { list, run, runAll };
}

export const passed = (r) => r.code === 0 && r.out.includes('OVERALL: PASSED') && !r.out.includes('CLIENT EXITED WITH ERROR');

/** The failures of a run, with the lines that say why, for an assertion message. */
export function failures(results) {
  const failed = [...results].filter(([, r]) => !passed(r));
  const why = failed.map(([s, r]) => `--- ${s}\n${r.out.split('\n').filter((l) => /FAILURE|WARNING|failed|Error/.test(l)).join('\n')}`).join('\n');
  return { names: failed.map(([s]) => s), why };
}

// Provides the Python venv the era tests need: the official MCP Python SDK, pinned, in
// target/py-venv (gitignored). Creates it when missing; prints the interpreter's path.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const MCP_PYTHON_SDK = 'mcp==2.3.0';
const root = new URL('..', import.meta.url).pathname;
const venv = join(root, 'target', 'py-venv');
const python = join(venv, 'bin', 'python');
const stamp = join(venv, `.installed-${MCP_PYTHON_SDK}`);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
}

/** The venv's python, installing the SDK first if needed. Throws with what to do on failure. */
export function pythonWithMcp() {
  if (existsSync(stamp)) return python;
  const base = process.env.PYTHON ?? 'python3';
  try {
    if (!existsSync(python)) run(base, ['-m', 'venv', venv]);
    run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', MCP_PYTHON_SDK]);
    run('touch', [stamp]);
  } catch (e) {
    throw new Error(`Could not provide the Python MCP SDK (${MCP_PYTHON_SDK}) in ${venv}: ${e.message}. Python 3.10+ with venv and pip is required.`);
  }
  return python;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(pythonWithMcp());

// Installs the pinned third-party MCP servers of the real-server matrix (__test__/real-servers.test.mjs) and the
// `connect-real` bench scenario, from the package registries only, under target/ (gitignored). Idempotent: each
// part has a stamp file naming exactly what was installed; a changed pin installs again.
//
//   node scripts/real-servers.mjs        installs what is missing, prints the paths as JSON
//
// What is installed:
// - target/py-mcp1: `mcp-server-time` 2026.7.10 (a PyPI server) on the Python SDK `mcp` 1.30.0 (the 1.9.4–1.30
//   line: a `server/discover` probe makes it print ~6.8 KB of "Failed to validate request" to stderr). Our
//   FastMCP fixture `__test__/fixtures/python/v1_server.py` (stdio and Streamable HTTP, a tool that elicits) runs
//   in the same venv.
// - target/py-mcp-old: `mcp-server-time` 0.6.2 (its last release before July 2025) on `mcp` 1.6.0 (before 1.9.4:
//   a probe line kills its reader). The server declares `mcp>=1.0.0` and `pydantic>=2.0.0`; today's pydantic
//   breaks mcp 1.6.0 on import (`eval_type_backport` moved), so pydantic and anyio are pinned to their releases of
//   that time too.
// - The Python SDK 2.x venv (target/py-venv, `scripts/python-venv.mjs`): `__test__/fixtures/python/server.py`.
// - target/npm-servers: `npm ci` of scripts/real-servers/package.json and its lockfile:
//   `@modelcontextprotocol/server-memory` 2026.8.31 (TS SDK 1.x, `@modelcontextprotocol/sdk` 1.32.2) and the TS
//   SDK 2.x packages `@modelcontextprotocol/server` / `@modelcontextprotocol/node` 2.0.0 that
//   `__test__/fixtures/sdk2-server.mjs` is written on.
// `@mastra/mcp` 1.18 and 2.0 (the `@mastra/mcp-v2` alias) are devDependencies of the package itself.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pythonWithMcp } from './python-venv.mjs';

const root = new URL('..', import.meta.url).pathname;
const target = join(root, 'target');

export const PYTHON_SERVERS = {
  'py-mcp1': ['mcp==1.30.0', 'mcp-server-time==2026.7.10'],
  'py-mcp-old': ['mcp==1.6.0', 'mcp-server-time==0.6.2', 'pydantic==2.10.6', 'anyio==4.9.0'],
};

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
}

const digest = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16);

function pythonVenv(name) {
  const pins = PYTHON_SERVERS[name];
  const venv = join(target, name);
  const python = join(venv, 'bin', 'python');
  const stamp = join(venv, `.installed-${digest(pins.join(' '))}`);
  if (!existsSync(stamp)) {
    const base = process.env.PYTHON ?? 'python3';
    try {
      rmSync(venv, { recursive: true, force: true });
      run(base, ['-m', 'venv', venv]);
      run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...pins]);
      writeFileSync(stamp, `${pins.join('\n')}\n`);
    } catch (e) {
      throw new Error(`Could not install ${pins.join(' ')} in ${venv}: ${e.message}. Python 3.10+ with venv and pip is required.`);
    }
  }
  return { python, bin: (name) => join(venv, 'bin', name) };
}

function npmServers() {
  const dir = join(target, 'npm-servers');
  const src = join(root, 'scripts', 'real-servers');
  const lock = readFileSync(join(src, 'package-lock.json'), 'utf8');
  const stamp = join(dir, `.installed-${digest(lock)}`);
  if (!existsSync(stamp)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(src, 'package.json'), join(dir, 'package.json'));
    copyFileSync(join(src, 'package-lock.json'), join(dir, 'package-lock.json'));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    try {
      run(npm, ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, shell: process.platform === 'win32' });
    } catch (e) {
      throw new Error(`Could not install the npm servers in ${dir}: ${e.message}`);
    }
    writeFileSync(stamp, lock);
  }
  return dir;
}

/** Installs what is missing; returns the interpreters, executables and directories the matrix needs. */
export function realServers() {
  const mcp1 = pythonVenv('py-mcp1');
  const old = pythonVenv('py-mcp-old');
  const npmDir = npmServers();
  return {
    python2: pythonWithMcp(),
    python1: mcp1.python,
    timeServer1: mcp1.bin('mcp-server-time'),
    timeServerOld: old.bin('mcp-server-time'),
    npmServers: npmDir,
    memoryServer: join(npmDir, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js'),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(realServers(), null, 2));

// `npm test`: builds the addon if it is missing or older than its sources (ensure-built), runs the Rust core's
// unit tests (napi-free, own target dir so the two builds do not invalidate each other), then the
// node:test suites against real servers.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { ensureBuilt } from './ensure-built.mjs';
import { pythonWithMcp } from './python-venv.mjs';
import { realServers } from './real-servers.mjs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const run = (cmd, args, env = {}) => {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

// The era suites (node and Rust: tests/stdio_lane.rs) run a server on the official Python MCP
// SDK: a pinned venv under target/.
pythonWithMcp();
// The real-server matrix (__test__/real-servers.test.mjs): pinned third-party servers under target/.
realServers();

// MCP_NATIVE_NO_CARGO=1 (release workflow, in containers without Rust): test the binary already in place.
if (process.env.MCP_NATIVE_NO_CARGO !== '1') {
  ensureBuilt();
  run('cargo', ['test', '--no-default-features', '--quiet'], { CARGO_TARGET_DIR: join(root, 'target', 'core-tests') });
}

const tests = readdirSync(join(root, '__test__'))
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => join('__test__', f));
run(process.execPath, ['--test', '--test-concurrency=2', ...tests]);

// `npm test`: builds the addon if it is missing or older than its sources, runs the Rust core's
// unit tests (napi-free, own target dir so the two builds do not invalidate each other), then the
// node:test suites against real servers.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const run = (cmd, args, env = {}) => {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

const addon = readdirSync(root).find((f) => f.endsWith('.node'));
const sourcesChanged =
  !addon ||
  !existsSync(join(root, 'binding.js')) ||
  Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'Cargo.toml')).mtimeMs) > statSync(join(root, addon)).mtimeMs;
if (sourcesChanged) {
  run('npx', ['napi', 'build', '--platform', '--profile', process.env.MCP_NATIVE_PROFILE ?? 'ci', '--js', 'binding.js', '--dts', 'binding.d.ts']);
}

run('cargo', ['test', '--no-default-features', '--quiet'], { CARGO_TARGET_DIR: join(root, 'target', 'core-tests') });

const tests = readdirSync(join(root, '__test__'))
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => join('__test__', f));
run(process.execPath, ['--test', '--test-concurrency=2', ...tests]);

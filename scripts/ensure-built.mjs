// Builds the native addon when it is missing, older than its Rust sources (ours and the vendored
// rmcp), or built with another cargo profile than the one asked for (MCP_NATIVE_PROFILE: `ci` by
// default — quick to build, for tests; `release` — what users get, for the benchmark).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

const PROFILE_MARK = join(root, 'target', 'addon-profile');

export function ensureBuilt() {
  const profile = process.env.MCP_NATIVE_PROFILE ?? 'ci';
  const addon = readdirSync(root).find((f) => f.endsWith('.node'));
  const builtWith = existsSync(PROFILE_MARK) ? readFileSync(PROFILE_MARK, 'utf8').trim() : undefined;
  const stale =
    !addon ||
    builtWith !== profile ||
    Math.max(newestMtime(join(root, 'src')), newestMtime(join(root, 'vendor')), statSync(join(root, 'Cargo.toml')).mtimeMs) >
      statSync(join(root, addon)).mtimeMs;
  if (!stale) return;
  const args = ['napi', 'build', '--platform', '--profile', profile, '--no-js', '--dts', 'binding.d.ts'];
  console.log(`$ npx ${args.join(' ')}`);
  const r = spawnSync('npx', args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  mkdirSync(join(root, 'target'), { recursive: true });
  writeFileSync(PROFILE_MARK, profile);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureBuilt();

// Builds the native addon when it is missing or older than its Rust sources.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

export function ensureBuilt() {
  const addon = readdirSync(root).find((f) => f.endsWith('.node'));
  const stale =
    !addon ||
    Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'Cargo.toml')).mtimeMs) > statSync(join(root, addon)).mtimeMs;
  if (!stale) return;
  const profile = process.env.MCP_NATIVE_PROFILE ?? 'ci';
  const args = ['napi', 'build', '--platform', '--profile', profile, '--no-js', '--dts', 'binding.d.ts'];
  console.log(`$ npx ${args.join(' ')}`);
  const r = spawnSync('npx', args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureBuilt();

// The typed contract between the JS face and the binding: `binding.d.ts`, which every build of the addon writes
// (`napi build --dts binding.d.ts`, see scripts/ensure-built.mjs), is checked in. A build whose declarations differ
// from the checked-in file fails here (regenerate, review the diff, commit it), and every method the face calls on
// the addon must be declared there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../scripts/ensure-built.mjs';

const root = new URL('..', import.meta.url).pathname;
const noCargo = process.env.MCP_NATIVE_NO_CARGO === '1';
const inGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8' }).stdout?.trim() === 'true';
const normalized = (text) => text.replace(/\r\n/g, '\n');

test('binding.d.ts: the build writes exactly the checked-in contract', { skip: noCargo ? 'MCP_NATIVE_NO_CARGO=1: no build' : !inGit && 'not a git checkout' }, () => {
  ensureBuilt();
  const built = normalized(readFileSync(join(root, 'binding.d.ts'), 'utf8'));
  const checkedIn = spawnSync('git', ['show', ':binding.d.ts'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  assert.equal(checkedIn.status, 0, `binding.d.ts is not checked in: ${checkedIn.stderr}`);
  assert.equal(built, normalized(checkedIn.stdout), 'the build changed binding.d.ts: the face <-> binding contract moved; review `git diff binding.d.ts` and commit it');
});

test('binding.d.ts: every method the face calls on the addon is declared', () => {
  const declared = readFileSync(join(root, 'binding.d.ts'), 'utf8');
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/\.(c|m)?js$/.test(entry.name)) files.push(p);
    }
  };
  walk(join(root, 'lib'));
  const called = new Set();
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bnative\.([A-Za-z_]\w*)\(/g)) called.add(m[1]);
  }
  assert.ok(called.size > 0, 'the scan sees the face calling the addon');
  const missing = [...called].filter((name) => !new RegExp(`(^|\\s)${name}\\(`, 'm').test(declared));
  assert.deepEqual(missing, [], 'the face calls methods the binding does not declare');
});

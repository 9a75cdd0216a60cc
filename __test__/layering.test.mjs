// The rules of the JS face, enforced where the code is (the core's are in src/core/layering.rs):
// no file in lib/ is over 500 lines; the CLI (lib/cli/) uses the package through its public API
// only; the package's own files are loaded by static requires bundlers can trace. See
// docs/architecture.md, "What each layer may import".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_LINES = 500;

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(rel));
    else if (/\.(c|m)?js$/.test(e.name)) out.push(rel);
  }
  return out;
}

const read = (rel) => fs.readFileSync(path.join(root, rel), 'utf8');

/** The string-literal specifiers a file requires (`require('…')`), comments left out. */
function requires(rel) {
  const text = read(rel).replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(/(?<![\w.])require\(\s*(['"])([^'"]+)\1\s*\)/g)].map((m) => m[2]);
}

test('layering: no file in lib/ is over 500 lines', () => {
  const over = walk('lib')
    .map((f) => [f, read(f).split('\n').length - (read(f).endsWith('\n') ? 1 : 0)])
    .filter(([, n]) => n > MAX_LINES);
  assert.deepEqual(over, [], `split these by concern: ${over.map(([f, n]) => `${f} (${n} lines)`).join(', ')}`);
});

test('layering: lib/cli/ requires only the public API (index.js), its own files and the typegen tool', () => {
  // The typegen tool (lib/typegen/, `generateToolTypes` of the public API) must itself be free of
  // the package's internals for the CLI to use it.
  const allowedDir = (abs) => ['lib/cli/', 'lib/typegen/'].some((d) => abs.startsWith(d));
  const bad = [];
  for (const file of [...walk('lib/cli'), ...walk('lib/typegen')]) {
    for (const spec of requires(file)) {
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        bad.push(`${file}: ${spec} (a package: the CLI is a user of the library)`);
        continue;
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (target === 'index.js' && file.startsWith('lib/cli/')) continue;
      if (allowedDir(target)) continue;
      bad.push(`${file}: ${spec} (${target} is not the public API)`);
    }
  }
  assert.deepEqual(bad, []);
});

test('layering: the package loads its own files by static requires (no createRequire in lib/ or the entries)', () => {
  const bad = [...walk('lib'), 'index.js', 'index.mjs'].filter((f) => /createRequire\s*\(/.test(read(f).replace(/^\s*\/\/.*$/gm, '')));
  assert.deepEqual(bad, []);
});

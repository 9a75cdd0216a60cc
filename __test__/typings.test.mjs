// Typings: a TypeScript program written against @mastra/mcp's documented API (docs examples,
// OAuth, proxies, handlers) type-checks against our index.d.ts, and index.d.ts itself is
// consistent. Any tsc diagnostic, or a non-zero exit status, fails the test.
//
// @mastra/core's own bundled declarations do not type-check on their own (they reference
// @ai-sdk provider versions that are not installed), so library declarations are skipped
// (`skipLibCheck`). Ours are checked anyway: the test compiles a `.ts` copy of index.d.ts,
// which `skipLibCheck` does not skip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));

test('typings: a Mastra TypeScript program using the documented API compiles against index.d.ts', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const copy = path.join(root, '__test__/typings/index-decl.gen.ts');
  copyFileSync(path.join(root, 'index.d.ts'), copy);
  try {
    const r = spawnSync(process.execPath, [tsc, '-p', '__test__/typings/tsconfig.json', '--pretty', 'false'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(r.error, undefined, 'tsc ran');
    assert.equal(r.stdout.trim(), '', 'no diagnostics');
    assert.equal(r.stderr.trim(), '', 'nothing on stderr');
    assert.equal(r.signal, null, 'tsc was not killed');
    assert.equal(r.status, 0, 'tsc exit status');
  } finally {
    rmSync(copy, { force: true });
  }
});

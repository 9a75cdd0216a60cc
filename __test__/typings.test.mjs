// Typings: a TypeScript program written against @mastra/mcp's documented API (docs examples,
// OAuth, proxies, handlers) type-checks against our index.d.ts. Diagnostics inside
// @mastra/core's own declarations are not ours and are ignored; any in our files fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));

test('typings: a Mastra TypeScript program using the documented API compiles against index.d.ts', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', '__test__/typings/tsconfig.json', '--pretty', 'false'], { cwd: root, encoding: 'utf8' });
  const ours = r.stdout.split('\n').filter((line) => /^(index\.d\.ts|__test__\/)/.test(line));
  assert.deepEqual(ours, [], ours.join('\n'));
  assert.equal(r.error, undefined, 'tsc ran');
  assert.equal(typeof r.status, 'number');
});

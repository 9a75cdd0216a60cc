// The soak's short form (the long one is `npm run soak`): 2 000 calls over stdio and HTTP
// through one client, 10 % of the HTTP calls answered 503; RSS and descriptors stay flat and no
// process is left. Runs in its own process so that its RSS is its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('soak (short): 2 000 calls with injected 503s keep RSS, descriptors and processes flat', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
  const child = spawn(process.execPath, ['scripts/soak.mjs', '--calls', '2000'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.once('exit', (c, signal) => resolve(c ?? signal)));
  assert.equal(code, 0, out);
  assert.match(out, /soak: ok/);
  assert.match(out, /2000 calls .*: 1900 ok, 100 injected 503s, 0 unexpected/);
});

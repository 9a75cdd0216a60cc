// Where the fixture server's binary lives, and how to build it (cargo, release, its own target dir).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const FIXTURE_DIR = fileURLToPath(new URL('./fixture-server/', import.meta.url));
export const FIXTURE_BIN = `${FIXTURE_DIR}target/release/fixture-server${process.platform === 'win32' ? '.exe' : ''}`;

/** Builds the fixture server (a no-op when it is up to date); throws when cargo fails. */
export function buildFixture() {
  const r = spawnSync('cargo', ['build', '--release', '--locked', '--quiet'], { cwd: FIXTURE_DIR, stdio: 'inherit' });
  if (r.error) throw new Error(`cargo could not be started: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`building the fixture server failed (cargo exited with ${r.status})`);
}

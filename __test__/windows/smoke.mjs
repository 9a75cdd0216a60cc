// The Windows smoke run (scripts/wine-smoke.mjs runs it with Node.js for Windows, under wine here). Not a node:test
// suite of `npm test`: it needs Windows. Prints one line per check, exits 1 on the first failure.
//   SMOKE_HTTP_URL   a Streamable HTTP MCP server (server-everything) to connect to
//   SMOKE_DIR        a scratch directory (its name has a space in it)
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';

const here = new URL('.', import.meta.url);
const fixture = new URL('../fixtures/stdio-server.mjs', here).pathname.replace(/^\/([A-Za-z]:)/, '$1');
const dir = process.env.SMOKE_DIR;
const check = (what) => console.log(`ok - ${what}`);
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const gone = async (pids, ms = 10_000) => {
  const until = Date.now() + ms;
  while (pids.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return !pids.some(alive);
};

if (process.argv[2] === 'die-holding-a-server') {
  // A host that dies without disconnecting: its Job Object must take the server and its child along.
  const { MCPClient } = await import('../../index.mjs');
  const c = new MCPClient({ id: 'dies', servers: { fx: JSON.parse(process.env.SMOKE_SERVER) } });
  await c.listTools();
  console.log('listed');
  process.kill(process.pid, 'SIGKILL'); // TerminateProcess: no exit handlers, no cleanup
}

console.log(`node ${process.version} ${process.platform}-${process.arch}`);
const { MCPClient } = await import('../../index.mjs');
check('index.mjs imports, the addon loads');

// A server named like `npx`: a .cmd shim found through PATH and PATHEXT, in a directory with a space, run by cmd.exe.
mkdirSync(join(dir, 'bin dir'), { recursive: true });
const script = join(dir, 'server copy.mjs');
copyFileSync(fixture, script);
writeFileSync(join(dir, 'bin dir', 'fake-npx.cmd'), `@echo off\r\n"${process.execPath}" %*\r\n`);
const pidFile = join(dir, 'server.pid');
const childPidFile = join(dir, 'grandchild.pid');
const server = {
  command: 'fake-npx',
  args: [script, 'an arg with spaces', 'a "quoted" one', '100%', 'x&y'],
  env: { PATH: `${join(dir, 'bin dir')};${process.env.PATH ?? process.env.Path ?? ''}`, FIXTURE_PID_FILE: pidFile, FIXTURE_CHILD_PID_FILE: childPidFile },
};

const c = new MCPClient({ id: 'smoke', servers: { fx: server, ev: { url: new URL(process.env.SMOKE_HTTP_URL) } } });
const tools = await c.listTools();
assert.ok(tools.fx_structured, 'the stdio fixture lists its tools');
assert.ok(tools.ev_echo, 'the HTTP server lists its tools');
check(`listTools: ${Object.keys(tools).length} tools from the stdio server (fake-npx.cmd via PATHEXT) and the HTTP server`);
const out = await tools.fx_structured.execute({}, {});
assert.deepEqual({ ...out }, { a: 1 });
const echo = await tools.ev_echo.execute({ message: 'from windows' }, {});
assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: from windows' }]);
check('call: a stdio tool and an HTTP tool answered');
const env = await tools.fx_env_dump.execute({}, {});
check(`stdio server started with its PATH (${JSON.stringify(env).includes('bin dir') ? 'has' : 'lacks'} the shim's dir)`);

const serverPid = Number(readFileSync(pidFile, 'utf8'));
while (!existsSync(childPidFile)) await new Promise((r) => setTimeout(r, 50));
const grandchild = Number(readFileSync(childPidFile, 'utf8'));
assert.ok(alive(serverPid) && alive(grandchild), 'server and grandchild run');
await c.disconnect();
assert.ok(await gone([serverPid, grandchild]), `after disconnect: server ${alive(serverPid) ? 'alive' : 'gone'}, grandchild ${alive(grandchild) ? 'alive' : 'gone'}`);
check(`disconnect: the server (pid ${serverPid}) and the grandchild it started (pid ${grandchild}, ignores stdin EOF) are gone`);

// The host dies with a server running.
const pid2 = join(dir, 'server2.pid');
const child2 = join(dir, 'grandchild2.pid');
const host = spawn(process.execPath, [new URL(import.meta.url).pathname.replace(/^\/([A-Za-z]:)/, '$1'), 'die-holding-a-server'], {
  env: { ...process.env, SMOKE_SERVER: JSON.stringify({ ...server, env: { ...server.env, FIXTURE_PID_FILE: pid2, FIXTURE_CHILD_PID_FILE: child2 } }) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let said = '';
host.stdout.on('data', (d) => (said += d));
const code = await new Promise((r) => host.on('exit', (c) => r(c)));
assert.match(said, /listed/, 'the dying host had connected');
const orphans = [Number(readFileSync(pid2, 'utf8')), Number(readFileSync(child2, 'utf8'))];
assert.ok(await gone(orphans), `after the host was killed: ${orphans.filter(alive).join(', ')} still running`);
check(`host killed (exit ${code}): its server and grandchild (pids ${orphans.join(', ')}) ended with it (Job Object)`);
console.log('windows smoke: all passed');
process.exit(0);

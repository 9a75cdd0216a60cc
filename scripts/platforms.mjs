// The platform packages (npm/<platform>/), kept in sync with package.json's `napi.targets`, the loader's candidates
// (lib/native.cjs) and the main package's `optionalDependencies`, which are written at pack time from the same list.
//   node scripts/platforms.mjs check          exits 1 and says what is out of sync
//   node scripts/platforms.mjs list           prints the platform keys, one a line
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;
export const mainPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const ARCH = { x86_64: 'x64', aarch64: 'arm64' };
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };

/** A Rust target triple as napi-rs names its platform: `x86_64-unknown-linux-musl` -> { key: 'linux-x64-musl', ... }. */
export function platformOf(triple) {
  const parts = triple.split('-');
  const cpu = ARCH[parts[0]];
  const sys = parts[2];
  const os = OS[sys === 'apple' ? 'darwin' : sys] ?? OS[parts[2]];
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

/** Everything out of sync between the targets, npm/*, the loader and package.json, as sentences. */
export function problems() {
  const out = [];
  const dirs = readdirSync(join(root, 'npm'));
  const loader = readFileSync(join(root, 'lib', 'native.cjs'), 'utf8');
  for (const p of platforms) {
    const file = join(root, 'npm', p.key, 'package.json');
    if (!existsSync(file)) {
      out.push(`npm/${p.key}/package.json is missing (target ${p.triple})`);
      continue;
    }
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    const want = {
      name: packageName(p.key),
      version: mainPackage.version,
      os: [p.os],
      cpu: [p.cpu],
      ...(p.libc ? { libc: [p.libc] } : {}),
      main: binaryFile(p.key),
      files: [binaryFile(p.key)],
      license: mainPackage.license,
      engines: mainPackage.engines,
    };
    for (const [field, value] of Object.entries(want)) {
      if (JSON.stringify(pkg[field]) !== JSON.stringify(value)) {
        out.push(`npm/${p.key}/package.json: "${field}" is ${JSON.stringify(pkg[field])}, expected ${JSON.stringify(value)}`);
      }
    }
    if (!p.libc && pkg.libc) out.push(`npm/${p.key}/package.json: "libc" is set on a non-Linux platform`);
    for (const literal of [`require('../${binaryFile(p.key)}')`, `require('${packageName(p.key)}')`]) {
      if (!loader.includes(literal)) out.push(`lib/native.cjs does not load ${literal.slice(9, -2)} (target ${p.triple})`);
    }
  }
  for (const dir of dirs) {
    if (!platforms.some((p) => p.key === dir)) out.push(`npm/${dir} is not a target in package.json "napi.targets"`);
  }
  const listed = mainPackage.optionalDependencies;
  if (listed && JSON.stringify(listed) !== JSON.stringify(optionalDependencies())) {
    out.push(`package.json "optionalDependencies" ${JSON.stringify(listed)} differ from ${JSON.stringify(optionalDependencies())}`);
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

// Packs what would be published: the main package (with its optionalDependencies on every platform package) and
// the platform packages whose binary is at hand, as npm tarballs, and checks that each holds the files it names.
//   node scripts/pack.mjs --out DIR [--binaries DIR] [--platform KEY]... [--all]
// --binaries: where the built `.node` files are (searched recursively; default: the repository root).
// --platform: pack this platform package (repeatable); --all: every target, and fail when a binary is missing.
// Prints one JSON object: { main: {file, size, unpackedSize, files}, platforms: {KEY: {...}} } (also DIR/pack.json).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { binaryFile, mainPackage, optionalDependencies, platforms, problems, root } from './platforms.mjs';

function parseArgs(argv) {
  const args = { out: undefined, binaries: root, platforms: [], all: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') args.out = resolve(argv[++i]);
    else if (a === '--binaries') args.binaries = resolve(argv[++i]);
    else if (a === '--platform') args.platforms.push(argv[++i]);
    else if (a === '--all') args.all = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.out) throw new Error('--out DIR is required');
  return args;
}

function findFile(dir, name, depth = 4) {
  if (!existsSync(dir)) return undefined;
  const direct = join(dir, name);
  if (existsSync(direct)) return direct;
  if (depth === 0) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name === 'target' || entry.name.startsWith('.')) continue;
    const found = findFile(join(dir, entry.name), name, depth - 1);
    if (found) return found;
  }
  return undefined;
}

function npmPack(dir, dest) {
  const r = spawnSync('npm', ['pack', '--json', '--pack-destination', dest], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed:\n${r.stderr}`);
  const [info] = JSON.parse(r.stdout);
  return { file: join(dest, info.filename), size: info.size, unpackedSize: info.unpackedSize, files: info.files.map((f) => f.path) };
}

function assertHolds(what, packed, wanted) {
  const missing = wanted.filter((f) => !packed.files.some((p) => p === f || p.startsWith(`${f.replace(/\/$/, '')}/`)));
  if (missing.length) throw new Error(`${what}: the tarball lacks ${missing.join(', ')}`);
}

export function pack({ out, binaries = root, platforms: keys = [], all = false }) {
  const found = problems();
  if (found.length) throw new Error(`platform packages out of sync:\n${found.join('\n')}`);
  const stage = join(out, 'stage');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });

  // The main package: its `files`, README and LICENSE, and a package.json listing the platform packages.
  const mainDir = join(stage, 'main');
  mkdirSync(mainDir);
  for (const f of [...mainPackage.files, 'README.md', 'LICENSE']) {
    if (existsSync(join(root, f))) cpSync(join(root, f), join(mainDir, f), { recursive: true });
  }
  const { devDependencies, scripts, ...published } = mainPackage;
  published.optionalDependencies = optionalDependencies();
  writeFileSync(join(mainDir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  const result = { main: npmPack(mainDir, out), platforms: {} };
  assertHolds(mainPackage.name, result.main, mainPackage.files);

  const wanted = all ? platforms.map((p) => p.key) : keys;
  for (const key of wanted) {
    if (!platforms.some((p) => p.key === key)) throw new Error(`${key} is not a target in package.json "napi.targets"`);
    const binary = findFile(binaries, binaryFile(key));
    if (!binary) throw new Error(`no ${binaryFile(key)} under ${binaries}: build it (npm run build -- --target ...) first`);
    const dir = join(stage, key);
    cpSync(join(root, 'npm', key), dir, { recursive: true });
    // npm's provenance ties each package to its source repository: the platform packages share the main one's.
    const platformPkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const field of ['repository', 'homepage', 'bugs']) if (mainPackage[field]) platformPkg[field] = mainPackage[field];
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(platformPkg, null, 2)}\n`);
    cpSync(binary, join(dir, binaryFile(key)));
    result.platforms[key] = npmPack(dir, out);
    assertHolds(`${mainPackage.name}-${key}`, result.platforms[key], [binaryFile(key)]);
    if (statSync(binary).size === 0) throw new Error(`${binary} is empty`);
  }
  rmSync(stage, { recursive: true, force: true });
  writeFileSync(join(out, 'pack.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const args = parseArgs(process.argv.slice(2));
    mkdirSync(args.out, { recursive: true });
    console.log(JSON.stringify(pack(args), null, 2));
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}

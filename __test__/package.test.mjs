// The package as users get it from npm, without Rust: `npm pack` the main package and this platform's package
// (with the addon `npm test` built), install both tarballs into a fresh app next to @mastra/core with no cargo on
// PATH, and use it from ESM and CJS as `mastra-mcp-native` and as `@mastra/mcp` (the alias install). Then the
// same app without the platform package: the loader's one error naming the platform, what it tried, what to do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from '../scripts/pack.mjs';
import { platforms, problems, mainPackage, root } from '../scripts/platforms.mjs';
import { builtPlatformKey, cargoOnPath, envWithoutRust, installApp, run } from './fixtures/install.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let work;
let packed;
let key;
const env = envWithoutRust();

before(() => {
  key = builtPlatformKey();
  work = mkdtempSync(join(tmpdir(), 'mmn-package-'));
  packed = pack({ out: join(work, 'dist'), platforms: [key] });
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function tarJson(tgz, path) {
  const r = spawnSync('tar', ['-xzOf', tgz, `package/${path}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('package: the platform packages, napi.targets, the loader and optionalDependencies agree', () => {
  assert.deepEqual(problems(), []);
  assert.equal(platforms.length, 8, 'linux x64/arm64 gnu+musl, darwin x64/arm64, win32 x64/arm64');
  const published = tarJson(packed.main.file, 'package.json');
  assert.deepEqual(
    Object.keys(published.optionalDependencies).sort(),
    platforms.map((p) => `mastra-mcp-native-${p.key}`).sort(),
  );
  for (const v of Object.values(published.optionalDependencies)) assert.equal(v, mainPackage.version);
  const platformPkg = tarJson(packed.platforms[key].file, 'package.json');
  assert.equal(platformPkg.name, `mastra-mcp-native-${key}`);
  assert.deepEqual(platformPkg.os, [process.platform]);
  assert.deepEqual(platformPkg.cpu, [process.arch]);
});

test('package: the sync check names a missing platform package, a wrong field and a loader without the candidate', () => {
  const copy = join(work, 'sync-check');
  for (const f of ['package.json', 'npm', 'lib/native.cjs']) cpSync(join(root, f), join(copy, f), { recursive: true });
  assert.deepEqual(problems(copy), []);
  rmSync(join(copy, 'npm', 'linux-arm64-musl'), { recursive: true });
  const darwin = join(copy, 'npm', 'darwin-x64', 'package.json');
  writeFileSync(darwin, JSON.stringify({ ...JSON.parse(readFileSync(darwin, 'utf8')), cpu: ['arm64'] }));
  const loader = join(copy, 'lib', 'native.cjs');
  writeFileSync(loader, readFileSync(loader, 'utf8').replace("require('mastra-mcp-native-win32-arm64-msvc')", 'undefined'));
  assert.deepEqual(problems(copy), [
    'npm/linux-arm64-musl/package.json is missing (target aarch64-unknown-linux-musl)',
    'npm/darwin-x64/package.json: "cpu" is ["arm64"], expected ["x64"]',
    'lib/native.cjs does not load mastra-mcp-native-win32-arm64-msvc (target aarch64-pc-windows-msvc)',
  ]);
});

test('package: the tarballs hold no Rust sources or build outputs beyond the binary', (t) => {
  const forbidden = /(^|\/)(src|target|npm|__test__|tests|bench|scripts|examples)\/|\.(rs|toml|lock|node|d\.ts\.map)$|^binding\./;
  const mainFiles = packed.main.files;
  assert.deepEqual(mainFiles.filter((f) => forbidden.test(f)), []);
  assert.ok(mainFiles.includes('lib/native.cjs') && mainFiles.includes('index.mjs') && mainFiles.includes('index.d.ts'));
  // The README's links point into docs/: the pages travel with it.
  assert.ok(mainFiles.includes('docs/README.md') && mainFiles.includes('docs/eras-and-tasks.md'), 'the docs pages are packed');
  assert.deepEqual(packed.platforms[key].files.sort(), [`mastra-mcp-native.${key}.node`, 'package.json']);
  const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  t.diagnostic(`mastra-mcp-native: packed ${kb(packed.main.size)}, unpacked ${kb(packed.main.unpackedSize)}`);
  t.diagnostic(`mastra-mcp-native-${key}: packed ${mb(packed.platforms[key].size)}, unpacked ${mb(packed.platforms[key].unpackedSize)}`);
});

// The app with both tarballs (main package by name and as @mastra/mcp, this platform's package) and @mastra/core.
let fullAppPromise;
function fullApp() {
  fullAppPromise ??= (async () => {
    const app = join(work, 'app');
    const main = `file:${packed.main.file}`;
    await installApp(app, { 'mastra-mcp-native': main, '@mastra/mcp': main, [`mastra-mcp-native-${key}`]: `file:${packed.platforms[key].file}` });
    return app;
  })();
  return fullAppPromise;
}

const APP_ESM = `
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MCPClient } from 'mastra-mcp-native';
import { MCPClient as AliasClient } from '@mastra/mcp';
import { Tool } from '@mastra/core/tools';
const require = createRequire(import.meta.url);
const server = JSON.parse(process.env.APP_SERVER);
const out = {};
for (const [name, Client] of [['mastra-mcp-native', MCPClient], ['@mastra/mcp', AliasClient]]) {
  const client = new Client({ id: 'esm-' + name, servers: { everything: server } });
  try {
    const tools = await client.listTools();
    const echo = await tools.everything_echo.execute({ message: 'esm ' + name }, {});
    out[name] = { tools: Object.keys(tools).length, isTool: tools.everything_echo instanceof Tool, echo: echo.content[0].text, from: fileURLToPath(import.meta.resolve(name)) };
  } finally {
    await client.disconnect();
  }
}
out.binaries = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
console.log(JSON.stringify(out));
`;

const APP_CJS = `
const { MCPClient } = require('mastra-mcp-native');
const { MCPClient: AliasClient } = require('@mastra/mcp');
const { Tool } = require('@mastra/core/tools');
const server = JSON.parse(process.env.APP_SERVER);
(async () => {
  const out = {};
  for (const [name, Client] of [['mastra-mcp-native', MCPClient], ['@mastra/mcp', AliasClient]]) {
    const client = new Client({ id: 'cjs-' + name, servers: { everything: server } });
    try {
      const tools = await client.listTools();
      const echo = await tools.everything_echo.execute({ message: 'cjs ' + name }, {});
      out[name] = { tools: Object.keys(tools).length, isTool: tools.everything_echo instanceof Tool, echo: echo.content[0].text, from: require.resolve(name) };
    } finally {
      await client.disconnect();
    }
  }
  out.binaries = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
  console.log(JSON.stringify(out));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
`;

test('package: installed from the tarballs without cargo, it works from ESM and CJS, by name and as @mastra/mcp', async () => {
  assert.equal(cargoOnPath(env), false, 'the app runs with no cargo on PATH');
  const app = await fullApp();
  writeFileSync(join(app, 'app.mjs'), APP_ESM);
  writeFileSync(join(app, 'app.cjs'), APP_CJS);
  const appEnv = { ...env, APP_SERVER: JSON.stringify({ command: process.execPath, args: [everythingEntry, 'stdio'] }) };
  for (const [file, flavour] of [['app.mjs', 'esm'], ['app.cjs', 'cjs']]) {
    const r = await run(process.execPath, [file], { cwd: app, env: appEnv, timeoutMs: 60_000 });
    assert.equal(r.code, 0, `${file} failed:\n${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split('\n').pop());
    for (const name of ['mastra-mcp-native', '@mastra/mcp']) {
      assert.ok(out[name].tools > 5, `${flavour} ${name} lists server-everything's tools`);
      assert.equal(out[name].isTool, true, `${flavour} ${name}: tools are @mastra/core Tools`);
      assert.equal(out[name].echo, `Echo: ${flavour} ${name}`);
      assert.ok(out[name].from.startsWith(join(realpathSync(app), 'node_modules', name)), `${name} resolves into the app: ${out[name].from}`);
    }
    assert.deepEqual(out.binaries, [join(realpathSync(app), 'node_modules', `mastra-mcp-native-${key}`, `mastra-mcp-native.${key}.node`)]);
    assert.doesNotMatch(r.stderr, /could not be loaded/, 'no missing-core warning when @mastra/core is installed');
  }
});

test('package: without its platform package, loading throws one error naming the platform, what it tried, what to do', async () => {
  const app = join(work, 'app-no-binary');
  await installApp(app, { 'mastra-mcp-native': `file:${packed.main.file}` });
  const probe = (load) =>
    `${load}.then(() => console.log('{"loaded":true}'), (e) => console.log(JSON.stringify({ code: e.code, platform: e.platform, message: e.message, tried: e.tried?.length })))`;
  for (const [flavour, args] of [
    ['cjs', ['-e', probe("Promise.resolve().then(() => require('mastra-mcp-native'))")]],
    ['esm', ['--input-type=module', '-e', probe("import('mastra-mcp-native')")]],
  ]) {
    const r = await run(process.execPath, args, { cwd: app, env, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim());
    assert.equal(out.loaded, undefined, `${flavour}: it must not load without a binary`);
    assert.equal(out.code, 'MASTRA_MCP_NATIVE_BINARY_MISSING', `${flavour}: ${out.message}`);
    assert.equal(out.platform, key);
    assert.equal(out.tried, 2);
    assert.match(out.message, new RegExp(`for this platform \\(${key}, Node v`));
    assert.match(out.message, new RegExp(`Tried:\\n  - \\./mastra-mcp-native\\.${key}\\.node: Cannot find module`));
    assert.match(out.message, new RegExp(`  - mastra-mcp-native-${key}: Cannot find module`));
    assert.match(out.message, new RegExp(`npm install mastra-mcp-native-${key}@${mainPackage.version.replace(/\./g, '\\.')}`));
    assert.match(out.message, /build the binary from source with Rust \(cargo\)/);
  }
});

test('package: without @mastra/core, tools are plain objects and the first client says so once through its logger', async () => {
  const app = join(work, 'app-no-core');
  await installApp(
    app,
    { 'mastra-mcp-native': `file:${packed.main.file}`, [`mastra-mcp-native-${key}`]: `file:${packed.platforms[key].file}` },
    { withCore: false },
  );
  writeFileSync(
    join(app, 'app.mjs'),
    `import { MCPClient } from 'mastra-mcp-native';
const server = JSON.parse(process.env.APP_SERVER);
const out = [];
for (const id of ['one', 'two']) {
  const client = new MCPClient({ id, servers: { everything: server } });
  try {
    const tools = await client.listTools();
    const echo = await tools.everything_echo.execute({ message: id }, {});
    out.push({ proto: Object.getPrototypeOf(tools.everything_echo) === Object.prototype, echo: echo.content[0].text });
  } finally {
    await client.disconnect();
  }
}
console.log(JSON.stringify(out));
`,
  );
  const appEnv = { ...env, APP_SERVER: JSON.stringify({ command: process.execPath, args: [everythingEntry, 'stdio'] }) };
  const r = await run(process.execPath, ['app.mjs'], { cwd: app, env: appEnv, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').pop()), [
    { proto: true, echo: 'Echo: one' },
    { proto: true, echo: 'Echo: two' },
  ]);
  const said = r.stderr.match(/mastra-mcp-native: @mastra\/core could not be loaded \(([^)]*)\)/g) ?? [];
  assert.equal(said.length, 1, r.stderr);
  assert.match(said[0], /@mastra\/core/);
});

// The loader's choice on other runtimes, seen by faking what it reads (process.platform, the diagnostic report)
// in a preload: with the glibc package installed, a musl Node must not load it, and an unknown OS gets the list.
const glibcLinux = process.platform === 'linux' && Boolean(process.report.getReport().header.glibcVersionRuntime);
const FAKE_RUNTIME = `
const fake = JSON.parse(process.env.FAKE_RUNTIME);
if (fake.platform) Object.defineProperty(process, 'platform', { value: fake.platform });
if (fake.musl) {
  // A musl system: its ldd names musl, and so does the diagnostic report.
  const fs = require('node:fs');
  const readFileSync = fs.readFileSync;
  fs.readFileSync = (file, ...rest) => (file === '/usr/bin/ldd' ? 'exec /lib/ld-musl-x86_64.so.1 --list "$@"' : readFileSync(file, ...rest));
  const real = process.report.getReport.bind(process.report);
  process.report.getReport = () => {
    const report = real();
    delete report.header.glibcVersionRuntime;
    report.sharedObjects = ['/lib/ld-musl-' + (process.arch === 'arm64' ? 'aarch64' : 'x86_64') + '.so.1'];
    return report;
  };
}
`;

test('package: a musl Node looks for the musl package, an unsupported OS is told which platforms exist', { skip: !glibcLinux && 'needs a glibc Linux host' }, async () => {
  const app = await fullApp();
  writeFileSync(join(app, 'fake-runtime.cjs'), FAKE_RUNTIME);
  const probe = `try { require('mastra-mcp-native'); console.log('{"loaded":true}') } catch (e) { console.log(JSON.stringify({ code: e.code, platform: e.platform, message: e.message })) }`;
  const attempt = async (fake) => {
    const r = await run(process.execPath, ['--require', './fake-runtime.cjs', '-e', probe], { cwd: app, env: { ...env, FAKE_RUNTIME: JSON.stringify(fake) } });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim());
  };
  const real = await attempt({});
  assert.deepEqual(real, { loaded: true }, 'the preload alone changes nothing');

  const musl = await attempt({ musl: true });
  const muslKey = `linux-${process.arch}-musl`;
  assert.equal(musl.code, 'MASTRA_MCP_NATIVE_BINARY_MISSING');
  assert.equal(musl.platform, muslKey);
  assert.match(musl.message, new RegExp(`  - mastra-mcp-native-${muslKey}: Cannot find module`));
  assert.doesNotMatch(musl.message, /-gnu/, 'the glibc binary is not a candidate on musl');

  const bsd = await attempt({ platform: 'freebsd' });
  assert.equal(bsd.platform, `freebsd-${process.arch}`);
  assert.match(bsd.message, /has no prebuilt binary; supported: linux-x64-gnu, linux-x64-musl, .*win32-arm64-msvc\./);
  assert.match(bsd.message, /build the binary from source with Rust \(cargo\)/);
});

// Mastra's own build, as a new user runs it: a minimal Mastra project (an agent whose tools come from an MCPClient
// over stdio, imported as `@mastra/mcp`, the npm alias of this package) installed from the packed tarballs, built
// with the `mastra` CLI from npm (installed on first use), deployed by copying .mastra/output elsewhere, started with
// no cargo on PATH, then asked over HTTP for the agent's tools and to run one.
// Slow (the CLI's install and each build take a minute or more): `npm run test:mastra-build`, which .ci/run runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from '../../scripts/pack.mjs';
import { builtPlatformKey, cargoOnPath, envWithoutRust, npmCommand, run } from '../fixtures/install.mjs';
import { installTool } from '../fixtures/tools.mjs';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const MASTRA_CLI = ['mastra', '1.31.0'];
const CORE_VERSION = require('@mastra/core/package.json').version;

let work;
let project;
let mastraBin;
const env = envWithoutRust({ MASTRA_TELEMETRY_DISABLED: '1', npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' });
const started = [];

before(async () => {
  assert.equal(cargoOnPath(env), false, 'builds and runs with no cargo on PATH');
  const key = builtPlatformKey();
  work = mkdtempSync(join(tmpdir(), 'mmn-mastra-build-'));
  const packed = pack({ out: join(work, 'dist'), platforms: [key] });
  mastraBin = join(installTool(...MASTRA_CLI), 'node_modules', '.bin', 'mastra');

  project = join(work, 'project');
  mkdirSync(join(project, 'src', 'mastra'), { recursive: true });
  const main = `file:${packed.main.file}`;
  const dependencies = {
    '@mastra/core': CORE_VERSION,
    '@mastra/mcp': main,
    'mastra-mcp-native': main,
    [`mastra-mcp-native-${key}`]: `file:${packed.platforms[key].file}`,
  };
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'mastra-app', private: true, version: '1.0.0', type: 'module', dependencies }, null, 2));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ES2022', moduleResolution: 'bundler', skipLibCheck: true, noEmit: true }, include: ['src/**/*'] }),
  );
  const r = await run(npmCommand(), ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, env, timeoutMs: 300_000 });
  assert.equal(r.code, 0, `npm install failed:\n${r.stdout}\n${r.stderr}`);
});

after(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

function writeApp(bundler) {
  writeFileSync(
    join(project, 'src', 'mastra', 'index.ts'),
    `import { Mastra } from '@mastra/core/mastra';
import { Agent } from '@mastra/core/agent';
import { MCPClient } from '@mastra/mcp';

const mcp = new MCPClient({
  id: 'mastra-app',
  servers: { everything: { command: process.execPath, args: [process.env.EVERYTHING_ENTRY ?? 'unset', 'stdio'] } },
});

export const helper = new Agent({
  id: 'helper',
  name: 'helper',
  instructions: 'You help.',
  model: 'openai/gpt-4o-mini',
  tools: async () => mcp.listTools(),
});

export const mastra = new Mastra({
  agents: { helper },
  server: { host: '127.0.0.1' },${bundler ? `\n  bundler: ${bundler},` : ''}
});
`,
  );
}

async function build() {
  rmSync(join(project, '.mastra'), { recursive: true, force: true });
  return run(mastraBin, ['build'], { cwd: project, env, timeoutMs: 480_000 });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Copies .mastra/output out of the project (a deployment sees nothing else), starts it, waits until it listens. */
async function deployAndStart(name) {
  const dir = join(work, `deploy-${name}`);
  cpSync(join(project, '.mastra', 'output'), dir, { recursive: true });
  const port = await freePort();
  const child = spawn(process.execPath, ['index.mjs'], {
    cwd: dir,
    env: { ...env, PORT: String(port), EVERYTHING_ENTRY: everythingEntry },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the built server did not start within 90 s:\n${output}`)), 90_000);
    const onData = (d) => {
      output += d;
      if (/Mastra API running/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the built server exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  await listening;
  child.removeAllListeners('exit');
  return { child, base: `http://127.0.0.1:${port}/api`, output: () => output };
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function checkServes(server) {
  const agent = await (await fetch(`${server.base}/agents/helper`)).json();
  const tools = Object.keys(agent.tools ?? {});
  assert.ok(tools.includes('everything_echo') && tools.length > 5, `the agent lists the MCP tools: ${JSON.stringify(tools)}\n${server.output()}`);
  const res = await fetch(`${server.base}/agents/helper/tools/everything_echo/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ data: { message: 'from the built app' } }),
  });
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).content, [{ type: 'text', text: 'Echo: from the built app' }]);
}

const CORE_MISSING = /mastra-mcp-native: @mastra\/core could not be loaded/g;

test('mastra build, default mode (externals installed into .mastra/output): builds, starts and serves the MCP tools', async () => {
  writeApp(undefined);
  const b = await build();
  assert.equal(b.code, 0, `mastra build failed:\n${b.stdout}\n${b.stderr}`);
  const output = JSON.parse(readFileSync(join(project, '.mastra', 'output', 'package.json'), 'utf8'));
  assert.match(output.dependencies['@mastra/mcp'], /mastra-mcp-native/);
  const server = await deployAndStart('default');
  try {
    await checkServes(server);
    assert.equal(server.output().match(CORE_MISSING), null, 'core loads next to the package: no warning');
  } finally {
    await stop(server.child);
  }
});

test("mastra build with bundler.externals: ['@mastra/mcp'] (the documented line): builds, starts, serves, says once that core is apart", async () => {
  writeApp("{ externals: ['@mastra/mcp'] }");
  const b = await build();
  assert.equal(b.code, 0, `mastra build failed:\n${b.stdout}\n${b.stderr}`);
  const server = await deployAndStart('externals');
  try {
    await checkServes(server);
    await checkServes(server);
    // @mastra/core was bundled into the app, apart from this package: said once, through the logger.
    assert.equal(server.output().match(CORE_MISSING)?.length, 1, server.output());
  } finally {
    await stop(server.child);
  }
});

test('mastra build with an externals list that leaves the package to the bundler fails at build time, naming it', async () => {
  writeApp("{ externals: ['hono'] }");
  const b = await build();
  assert.notEqual(b.code, 0, 'the bundler sees the binary (every internal load is traceable) and refuses it');
  assert.match(`${b.stdout}\n${b.stderr}`, /possible binary dependency[\s\S]*mastra-mcp-native\.[\w-]+\.node[\s\S]*externals: \["mastra-mcp-native"\]/);
});

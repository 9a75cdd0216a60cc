// Typed tools, as a user works with them: `mastra-mcp typegen` against live servers
// (server-everything, @modelcontextprotocol/server-filesystem and the Python SDK fixture server,
// each over stdio) writes the committed fixture byte for byte; a program using the contracts with
// `new MCPClient<MCPServers>` compiles under `tsc --strict`, and each of its `@ts-expect-error`
// cases, unmarked, is exactly one compile error; the module form of `--config`; failures write
// nothing; and an MCPClient never loads the generator.
//
// To refresh the fixture after a server upgrade: UPDATE_TYPEGEN_FIXTURES=1 node --test __test__/typegen.test.mjs
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { fixturePath, nodeBin } from './fixtures/helpers.mjs';
import { pythonWithMcp } from '../scripts/python-venv.mjs';
import { MCPClient, generateToolTypes } from '../index.mjs';

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(root, 'bin', 'mastra-mcp.cjs');
const FIXTURES = path.join(root, '__test__', 'fixtures', 'typegen');
const CONTRACTS = path.join(FIXTURES, 'mcp-types.ts');
const CONSUMER = path.join(FIXTURES, 'consumer.ts');
const TSC = require.resolve('typescript/bin/tsc');

function binOf(pkgName, binName) {
  const pkgJson = require.resolve(`${pkgName}/package.json`);
  const pkg = JSON.parse(fs.readFileSync(pkgJson, 'utf8'));
  return path.join(path.dirname(pkgJson), typeof pkg.bin === 'string' ? pkg.bin : pkg.bin[binName]);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mastra-mcp-typegen-'));
const allowed = path.join(tmp, 'files'); // server-filesystem's allowed directory
fs.mkdirSync(allowed);
fs.writeFileSync(path.join(allowed, 'hello.txt'), 'one\ntwo\nthree\n');
let python;
let servers;

before(() => {
  python = pythonWithMcp();
  servers = {
    everything: { command: nodeBin, args: [binOf('@modelcontextprotocol/server-everything', 'mcp-server-everything'), 'stdio'] },
    filesystem: { command: nodeBin, args: [binOf('@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem'), allowed] },
    python: { command: python, args: [fixturePath('python/server.py'), 'stdio'] },
  };
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const children = new Set();
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Runs the CLI; resolves { code, stdout, stderr }. */
function cli(args, { cwd = tmp } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(nodeBin, [BIN, ...args], { cwd, env: { ...process.env, MASTRA_MCP_CONFIG_DIR: path.join(tmp, 'cfg') }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function writeConfig(name, defs) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify({ mcpServers: defs }, null, 2));
  return file;
}

/** tsc --strict over one program (the fixture folder's tsconfig, with `files` replaced). */
function tsc(files) {
  const config = path.join(FIXTURES, `tsconfig.${process.pid}.gen.json`);
  const base = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'tsconfig.json'), 'utf8'));
  fs.writeFileSync(config, JSON.stringify({ ...base, files }));
  try {
    const r = spawnSync(process.execPath, [TSC, '-p', config, '--pretty', 'false'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.error, undefined, 'tsc ran');
    return r;
  } finally {
    fs.rmSync(config, { force: true });
  }
}

describe('typegen: contracts from live servers', () => {
  test('`mastra-mcp typegen` writes the committed contracts of server-everything, server-filesystem and the Python SDK server, byte for byte', { timeout: 120_000 }, async () => {
    const config = writeConfig('mcp.json', servers);
    const out = path.join(tmp, 'generated', 'mcp-types.ts');
    const r = await cli(['typegen', '--config', config, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '', 'no warnings: every schema of these servers has a TypeScript form');
    assert.match(r.stdout, /^Wrote .*mcp-types\.ts: 38 tools from 3 servers \(everything 2\.0\.0, filesystem 0\.2\.0, python 2\.3\.0-fixture\)\n$/);
    const generated = fs.readFileSync(out, 'utf8');
    if (process.env.UPDATE_TYPEGEN_FIXTURES) fs.writeFileSync(CONTRACTS, generated);
    assert.equal(generated, fs.readFileSync(CONTRACTS, 'utf8'), 'regenerated contracts differ from __test__/fixtures/typegen/mcp-types.ts');

    // The default output file, in the current directory, from ./mcp.json; and the same bytes again.
    const again = await cli(['typegen', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const report = JSON.parse(again.stdout);
    assert.equal(report.out, path.join(fs.realpathSync(tmp), 'mcp-types.ts'));
    assert.deepEqual(report.servers, [
      { name: 'everything', version: '2.0.0', tools: 13 },
      { name: 'filesystem', version: '0.2.0', tools: 14 },
      { name: 'python', version: '2.3.0-fixture', tools: 11 },
    ]);
    assert.deepEqual(report.warnings, []);
    assert.equal(fs.readFileSync(path.join(tmp, 'mcp-types.ts'), 'utf8'), generated);
  });

  test('the contracts say what the servers really return through MCPClient', { timeout: 60_000 }, async () => {
    const mcp = new MCPClient({ id: 'typegen-runtime', servers });
    try {
      const tools = await mcp.listTools();
      // Structured outputs (declared output schemas): the value itself.
      assert.deepEqual(await tools.python_add.execute({ a: 2, b: 3 }, {}), { result: 5 });
      const weather = await tools['everything_get-structured-content'].execute({ location: 'Chicago' }, {});
      assert.deepEqual(Object.keys(weather).sort(), ['conditions', 'humidity', 'temperature']);
      assert.equal(typeof weather.temperature, 'number');
      const text = await tools.filesystem_read_text_file.execute({ path: path.join(allowed, 'hello.txt'), head: 2 }, {});
      assert.deepEqual(text, { content: 'one\ntwo' });
      // No output schema: whatever the call gives (here the CallToolResult).
      const echoed = await tools.everything_echo.execute({ message: 'hi' }, {});
      assert.deepEqual(echoed.content, [{ type: 'text', text: 'Echo: hi' }]);
      // An input the live schema refuses is still refused at run time, whatever the types said.
      const refused = await tools['everything_get-sum'].execute({ a: 1, b: 'two' }, {});
      assert.equal(refused.error, true);
    } finally {
      await mcp.disconnect();
    }
  });
});

describe('typegen: the typed client under tsc --strict', () => {
  test('the consumer compiles: typed keys, inputs and outputs; agents take the typed tools', { timeout: 300_000 }, () => {
    const r = tsc(['consumer.ts']);
    assert.equal(r.stdout.trim(), '', 'no diagnostics');
    assert.equal(r.status, 0);
  });

  test('each @ts-expect-error case of the consumer, unmarked, is exactly one compile error on its line', { timeout: 300_000 }, () => {
    const lines = fs.readFileSync(CONSUMER, 'utf8').split('\n');
    const marked = [];
    const unmarked = lines.map((line, i) => {
      if (!/^\s*\/\/ @ts-expect-error /.test(line)) return line;
      marked.push(i + 2); // the case is the next line (1-based)
      return line.replace('@ts-expect-error', 'negative case:');
    });
    assert.ok(marked.length >= 15, `the consumer has its negative cases (${marked.length})`);
    const negative = path.join(FIXTURES, `negative.${process.pid}.gen.ts`);
    fs.writeFileSync(negative, unmarked.join('\n'));
    try {
      const r = tsc([path.basename(negative)]);
      assert.equal(r.status, 2, 'tsc fails');
      const errorLines = r.stdout
        .split('\n')
        .map((l) => l.match(/^.*negative\.\d+\.gen\.ts\((\d+),\d+\): error TS\d+/))
        .filter(Boolean)
        .map((m) => Number(m[1]));
      assert.deepEqual(errorLines, marked, `one error per case, on the case's line:\n${r.stdout}`);
    } finally {
      fs.rmSync(negative, { force: true });
    }
  });
});

describe('typegen: the CLI around the generator', () => {
  test('--config a module exporting an MCPClient: its servers, the same contracts as generateToolTypes over listToolDefinitions()', { timeout: 60_000 }, async () => {
    const mod = path.join(tmp, 'mcp-client.mjs');
    fs.writeFileSync(
      mod,
      `import { MCPClient } from ${JSON.stringify(path.join(root, 'index.mjs'))};\n` +
        `export const mcp = new MCPClient({ id: 'typegen-module', servers: { python: ${JSON.stringify(servers.python)} } });\n` +
        'export const notAClient = { servers: {} };\n',
    );
    const out = path.join(tmp, 'module-types.ts');
    const r = await cli(['typegen', '--config', mod, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /: 11 tools from 1 server \(python 2\.3\.0-fixture\)/);

    const mcp = new MCPClient({ id: 'typegen-module-check', servers: { python: servers.python } });
    try {
      assert.equal(fs.readFileSync(out, 'utf8'), await generateToolTypes(await mcp.listToolDefinitions()));
    } finally {
      await mcp.disconnect();
    }

    // A TypeScript module (Node runs it directly from 22.18 on), its client the default export.
    const tsModule = path.join(tmp, 'mcp-client.ts');
    fs.writeFileSync(
      tsModule,
      `import { MCPClient } from ${JSON.stringify(path.join(root, 'index.mjs'))};\n` +
        `const python: { command: string; args: string[] } = ${JSON.stringify(servers.python)};\n` +
        `export default new MCPClient({ id: 'typegen-ts-module', servers: { python } });\n`,
    );
    const tsOut = path.join(tmp, 'ts-module-types.ts');
    const fromTs = await cli(['typegen', '--config', tsModule, '--out', tsOut]);
    assert.equal(fromTs.code, 0, fromTs.stderr);
    assert.equal(fs.readFileSync(tsOut, 'utf8'), fs.readFileSync(out, 'utf8'));
  });

  test('a server that cannot be listed: exit 1, naming it, and the previous file is left as it was', { timeout: 60_000 }, async () => {
    const out = path.join(tmp, 'kept.ts');
    fs.writeFileSync(out, '// previous contracts\n');
    const config = writeConfig('broken.json', { python: servers.python, broken: { command: path.join(tmp, 'no-such-server') } });
    const r = await cli(['typegen', '--config', config, '--out', out]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /broken/);
    assert.match(r.stderr, /no file written/);
    assert.equal(fs.readFileSync(out, 'utf8'), '// previous contracts\n');
    assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.endsWith('.tmp')), []);
  });

  test('usage errors: no servers to read, a module without a client', { timeout: 60_000 }, async () => {
    const empty = fs.mkdtempSync(path.join(tmp, 'empty-'));
    const none = await cli(['typegen'], { cwd: empty });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /typegen needs your servers/);
    assert.deepEqual(fs.readdirSync(empty), []);

    const mod = path.join(empty, 'nothing.mjs');
    fs.writeFileSync(mod, 'export const x = 1;\n');
    const noClient = await cli(['typegen', '--config', mod], { cwd: empty });
    assert.equal(noClient.code, 2);
    assert.match(noClient.stderr, /exports no MCPClient/);
  });
});

test('an MCPClient never loads the generator; generateToolTypes loads it on its first call', { timeout: 60_000 }, () => {
  const script = `
    const { MCPClient, generateToolTypes } = require(${JSON.stringify(root)});
    const loaded = () => Object.keys(require.cache).filter((f) => f.includes(${JSON.stringify(path.join('lib', 'typegen'))}));
    (async () => {
      const mcp = new MCPClient({ id: 'lazy', servers: { fixture: { command: process.execPath, args: [${JSON.stringify(fixturePath('stdio-server.mjs'))}] } } });
      const tools = await mcp.listTools();
      await mcp.listToolDefinitions();
      const before = loaded();
      const source = await generateToolTypes(await mcp.listToolDefinitions());
      await mcp.disconnect();
      console.log(JSON.stringify({ tools: Object.keys(tools).length, before, after: loaded().length, servers: /export interface MCPServers/.test(source) }));
    })();`;
  const r = spawnSync(nodeBin, ['-e', script], { encoding: 'utf8', timeout: 50_000 });
  assert.equal(r.status, 0, r.stderr);
  const seen = JSON.parse(r.stdout);
  assert.ok(seen.tools > 0);
  assert.deepEqual(seen.before, []);
  assert.ok(seen.after > 0);
  assert.equal(seen.servers, true);
});

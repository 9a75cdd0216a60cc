// The mastra-mcp CLI as a user runs it: a subprocess (and under a pseudo-terminal from
// util-linux `script` for the progress bar, interactive elicitation and Ctrl-C), against the
// bundled example server, server-everything and a config file in each supported format.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { nodeBin, startEverythingHttp } from './fixtures/helpers.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(root, 'bin', 'mastra-mcp.cjs');
const require = createRequire(import.meta.url);
const everythingPkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
const EV_ENTRY = path.join(path.dirname(everythingPkg), JSON.parse(fs.readFileSync(everythingPkg, 'utf8')).bin['mcp-server-everything']);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mastra-mcp-cli-'));
const empty = path.join(tmp, 'empty'); // a cwd with no mcp.json: the bundled example server
fs.mkdirSync(empty);
const hasScript = fs.existsSync('/usr/bin/script') || fs.existsSync('/bin/script');

let http;
let sse;
before(async () => {
  [http, sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
});
after(async () => {
  await Promise.all([http?.stop(), sse?.stop()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const children = new Set();
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Runs the CLI; resolves { code, stdout, stderr }. */
function run(args, { cwd = empty, env = {}, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(nodeBin, [BIN, ...args], {
      cwd,
      env: { ...process.env, MASTRA_MCP_CONFIG_DIR: path.join(tmp, 'cfg'), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdin.end(input ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Runs the CLI on a pseudo-terminal (`script -qefc`). `steps` are [pattern, keys] pairs: when
 * the output (stdout+stderr, through the terminal) matches `pattern`, `keys` are typed.
 */
function runPty(args, { cwd = empty, steps = [], env = {} } = {}) {
  const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
  const command = [nodeBin, BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      cwd,
      env: { ...process.env, MASTRA_MCP_CONFIG_DIR: path.join(tmp, 'cfg'), TERM: 'xterm', COLUMNS: '100', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    let next = 0;
    const onData = (d) => {
      output += d;
      while (next < steps.length && steps[next][0].test(output)) {
        child.stdin.write(steps[next][1]);
        next++;
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      child.stdin.destroy();
      resolve({ code, signal, output, answered: next });
    });
  });
}

function write(rel, content) {
  const file = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

describe('bundled example server (no config)', () => {
  test('servers: transport, protocol version, status and instructions', async () => {
    const r = await run(['servers']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /config: bundled example server/);
    assert.match(r.stdout, /^example\s+stdio\s+\d{4}-\d{2}-\d{2}\s+connected\s+1\.0\.0$/m);
    assert.match(r.stdout, /example instructions: An example server/);
    const j = await run(['servers', '--json']);
    assert.equal(j.code, 0, j.stderr);
    const [s] = JSON.parse(j.stdout).servers;
    assert.equal(s.name, 'example');
    assert.equal(s.status, 'connected');
    assert.equal(s.transport, 'stdio');
    assert.match(s.protocolVersion, /^\d{4}-\d{2}-\d{2}$/);
  });

  test('tools, call, resources, read, prompts, prompt', async () => {
    const tools = await run(['tools']);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /^SERVER\s+TOOL\s+ARGS\s+DESCRIPTION$/m);
    assert.match(tools.stdout, /^example\s+echo\s+message\s+Echoes back the message$/m);
    const call = await run(['call', 'example', 'echo', '{"message":"hello cli"}']);
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout, 'Echo: hello cli\n');
    const add = await run(['--json', 'call', 'example', 'add', '{"a":2,"b":40}']);
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(JSON.parse(add.stdout).structuredContent, { sum: 42 });
    const resources = await run(['resources']);
    assert.match(resources.stdout, /^example\s+example:\/\/readme\s+text\/plain\s+readme$/m);
    const read = await run(['read', 'example', 'example://readme']);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /bundled with mastra-mcp-native/);
    const prompts = await run(['prompts']);
    assert.match(prompts.stdout, /^example\s+greet\s+name\s+Greets someone$/m);
    const prompt = await run(['prompt', 'example', 'greet', '{"name":"Ada"}']);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.match(prompt.stdout, /^user: Say hello to Ada\.$/m);
  });

  test('exit codes: 1 when a call fails, 2 for bad usage', async () => {
    const unknownTool = await run(['call', 'example', 'nope']);
    assert.equal(unknownTool.code, 1);
    assert.match(unknownTool.stderr, /example: no tool named "nope" \(tools: echo, add, countdown, ask\)/);
    const invalid = await run(['call', 'example', 'echo', '{}']);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /^mastra-mcp: example\/echo: Tool input validation failed/);
    const isError = await run(['call', 'example', 'add', '{"a":1e308,"b":1e308}']);
    assert.equal(isError.code, 1, 'a result with isError exits 1');
    assert.equal(isError.stderr, 'The sum of 1e+308 and 1e+308 is not a finite number\n');
    const isErrorJson = await run(['--json', 'call', 'example', 'add', '{"a":1e308,"b":1e308}']);
    assert.equal(isErrorJson.code, 1);
    assert.equal(JSON.parse(isErrorJson.stdout).isError, true);
    const notTty = await run(['call', 'example', 'ask']);
    assert.equal(notTty.code, 0, 'a declined elicitation is a result, not a failure');
    assert.match(notTty.stdout, /No answer \(decline\)/);
    assert.match(notTty.stderr, /declined: stdin is not a terminal/);
    for (const args of [['frobnicate'], ['call', 'example'], ['call', 'example', 'echo', 'not json'], ['--bogus', 'servers'], ['tools', 'nosuch']]) {
      const r = await run(args);
      assert.equal(r.code, 2, `${args.join(' ')} → 2 (${r.stderr})`);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    }
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: mastra-mcp/);
  });
});

describe('config files in each supported format, against server-everything', () => {
  const stdio = { command: nodeBin, args: [EV_ENTRY, 'stdio'] };
  const formats = {
    'claude-desktop': () => ['claude_desktop_config.json', { mcpServers: { ev: stdio } }, {}],
    'claude-code': () => ['.mcp.json', { mcpServers: { ev: { type: 'http', url: '${EV_URL}' } } }, { EV_URL: http.url }],
    cursor: () => ['.cursor/mcp.json', { mcpServers: { ev: { url: http.url, headers: { 'X-Key': '${env:KEY}' } } } }, { KEY: 'k' }],
    vscode: () => [
      '.vscode/mcp.json',
      `{ // comments are allowed\n "inputs": [{ "type": "promptString", "id": "key" }],\n "servers": { "ev": { "type": "sse", "url": "${sse.url}", "headers": { "X-Key": "\${input:key}" } } } }`,
      {},
      ['--input', 'key=v'],
    ],
    windsurf: () => ['.codeium/windsurf/mcp_config.json', { mcpServers: { ev: { serverUrl: http.url } } }, {}],
  };
  for (const [format, make] of Object.entries(formats)) {
    test(`${format}: servers, tools and call via --config`, async () => {
      const [rel, content, env, extra = []] = make();
      const file = write(`${format}/${rel}`, content);
      const servers = await run(['--config', file, '--json', ...extra, 'servers'], { env });
      assert.equal(servers.code, 0, servers.stderr);
      const parsed = JSON.parse(servers.stdout);
      assert.equal(parsed.format, format);
      assert.equal(parsed.servers[0].status, 'connected');
      const tools = await run(['-c', file, ...extra, 'tools', 'ev'], { env });
      assert.match(tools.stdout, /^ev\s+echo\s+message\s+/m);
      const call = await run(['-c', file, ...extra, 'call', 'ev', 'echo', '{"message":"via ' + format + '"}'], { env });
      assert.equal(call.code, 0, call.stderr);
      assert.match(call.stdout, new RegExp(`Echo: via ${format}`));
    });
  }

  test('./mcp.json in the working directory is used without --config', async () => {
    const dir = path.join(tmp, 'cwdcfg');
    write('cwdcfg/mcp.json', { mcpServers: { ev: stdio } });
    const r = await run(['prompts', 'ev'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ev\s+simple-prompt\s+/m);
    const res = await run(['--json', 'resources', 'ev'], { cwd: dir });
    const { resources } = JSON.parse(res.stdout);
    assert.ok(resources.length > 0 && resources.every((x) => x.server === 'ev'));
  });

  test('a broken file gives one clear line and exit code 2', async () => {
    const syntax = write('broken/mcp.json', '{ "mcpServers": { "ev": { "command": "x" } ');
    const r = await run(['--config', syntax, 'servers']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^mastra-mcp: ${syntax.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:\\d+: invalid JSON: [^\\n]+\\n$`));
    const field = write('broken2/.mcp.json', { mcpServers: { ev: { command: 'x', args: 'not-an-array' } } });
    const f = await run(['--config', field, 'tools']);
    assert.equal(f.code, 2);
    assert.equal(f.stderr, `mastra-mcp: ${field}: server "ev": args: must be an array of strings, got a string\n`);
    const good = write('broken-format/mcp.json', { mcpServers: { ev: stdio } });
    const fmt = await run(['--config', good, '--format', 'zed', 'servers']);
    assert.equal(fmt.code, 2);
    assert.match(fmt.stderr, /^mastra-mcp: .*mcp\.json: unknown format "zed" \(expected one of claude-desktop, claude-code, cursor, vscode, windsurf, generic\)\n$/);
    const missing = await run(['--config', path.join(tmp, 'nope.json'), 'servers']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^mastra-mcp: .*nope\.json: cannot read the file \(ENOENT\)\n$/);
    const noInput = write('broken3/.vscode/mcp.json', { servers: { ev: { url: http.url, headers: { K: '${input:key}' } } } });
    const i = await run(['--config', noInput, 'servers'], { env: { MCP_INPUT_KEY: '' } });
    assert.equal(i.code, 0, 'an empty MCP_INPUT_KEY is a value');
    const i2 = await run(['--config', noInput, 'servers'], { env: { MCP_INPUT_KEY: undefined } });
    assert.equal(i2.code, 2);
    assert.match(i2.stderr, /server "ev": headers\.K: input "key" has no value: pass it in options\.inputs or set MCP_INPUT_KEY/);
  });

  test('a server that fails to connect: exit 1, named in the output', async () => {
    const file = write('down/mcp.json', { mcpServers: { ok: stdio, down: { url: 'http://127.0.0.1:9/mcp' } } });
    const r = await run(['--config', file, '--timeout', '5000', 'servers']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^ok\s+stdio\s+\S+\s+connected/m);
    assert.match(r.stdout, /^down\s+http\s+failed/m);
    assert.match(r.stdout, /^down error: .+/m);
  });
});

describe('on a terminal', { skip: !hasScript && 'util-linux script is not installed' }, () => {
  test('call shows a live progress bar while the server reports progress', async () => {
    const file = write('pty/mcp.json', { mcpServers: { ev: { command: nodeBin, args: [EV_ENTRY, 'stdio'] } } });
    const r = await runPty(['--config', file, 'call', 'ev', 'trigger-long-running-operation', '{"duration":1,"steps":4}']);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /\[#{7,8}-{22,23}\] 1\/4 25%/);
    assert.match(r.output, /\[#{30}\] 4\/4 100%/);
    assert.match(r.output, /Long running operation completed/);
  });

  test('elicitation is answered interactively (example server: accept with a name)', async () => {
    const r = await runPty(['call', 'example', 'ask'], {
      steps: [
        [/Respond\? \[a\]ccept, \[d\]ecline, \[c\]ancel \(a\): $/, 'a\r'],
        [/Name \(string, required\): $/, 'Ada\r'],
      ],
    });
    assert.equal(r.answered, 2, r.output);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /What is your name\?/);
    assert.match(r.output, /Hello, Ada!/);
  });

  test('elicitation from server-everything: decline is sent back', async () => {
    const file = write('pty2/mcp.json', { mcpServers: { ev: { command: nodeBin, args: [EV_ENTRY, 'stdio'] } } });
    const r = await runPty(['--config', file, 'call', 'ev', 'trigger-elicitation-request'], {
      steps: [[/Please provide inputs[\s\S]*\(a\): $/, 'd\r']],
    });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /"action": "decline"/);
  });

  test('Ctrl-C cancels a running call', async () => {
    const r = await runPty(['call', 'example', 'countdown', '{"steps":200,"intervalMs":100}'], {
      steps: [[/\] 2\/200 /, '\x03']],
    });
    assert.equal(r.answered, 1, r.output);
    assert.equal(r.code, 130, r.output);
    assert.match(r.output, /call to example\/countdown cancelled/);
    assert.doesNotMatch(r.output, /Counted down/);
  });
});

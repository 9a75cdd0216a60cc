// `mastra-mcp auth <server>`: the browser OAuth flow with the loopback callback against a real
// authorization server (oidc-provider); tokens land in the CLI's store (a 0600 SQLite file, sealed) and
// later commands use them. A token file of an earlier version is moved in; a corrupt one is an error.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { nodeBin } from './fixtures/helpers.mjs';
import { createMCPStore } from '../index.mjs';
import { startAuthorizationServer } from './fixtures/oauth/authorization-server.mjs';
import { startProtectedMcpServer } from './fixtures/oauth/protected-mcp-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'bin', 'mastra-mcp.cjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mastra-mcp-auth-'));
const configDir = path.join(tmp, 'config');

let as;
let mcp;
before(async () => {
  as = await startAuthorizationServer();
  mcp = await startProtectedMcpServer({ authorizationServer: as });
});
after(async () => {
  await mcp?.close();
  await as?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function run(args, env = {}) {
  return runIn(tmp, args, env);
}

function runIn(cwd, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(nodeBin, [BIN, ...args], {
      cwd,
      env: { ...process.env, MASTRA_MCP_CONFIG_DIR: configDir, PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('auth: browser flow, tokens stored 0600 under the config dir, then used by call', async () => {
  fs.writeFileSync(path.join(tmp, 'mcp.json'), JSON.stringify({ mcpServers: { p: { url: mcp.url } } }));

  const before = await run(['call', 'p', 'whoami']);
  assert.equal(before.code, 1, 'no tokens yet');
  assert.match(before.stderr, /requires authorization.*\(run `mastra-mcp auth p`\)\n$/);

  const auth = await run(['auth', 'p'], { BROWSER: path.join(here, 'fixtures', 'cli-browser.mjs') });
  assert.equal(auth.code, 0, auth.stderr);
  const tokenFile = path.join(configDir, 'oauth.db');
  assert.equal(auth.stdout, `Authorized p; tokens stored in ${tokenFile}\n`);
  assert.match(auth.stderr, /Open this URL to authorize p:\n {2}http:\/\/127\.0\.0\.1:\d+\/.*code_challenge_method=S256/);
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
  assert.equal(fs.statSync(`${tokenFile}.key`).mode & 0o777, 0o600, 'the store key made beside it');
  assert.ok(!fs.readFileSync(tokenFile).includes('access_token'), 'the tokens are sealed at rest');
  const stored = createMCPStore(`file:${tokenFile}`).oauth({ server: mcp.url });
  assert.match(await stored.get('cli:redirect-url'), /^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
  assert.ok(JSON.parse(await stored.get('tokens')).access_token);

  const call = await run(['--json', 'call', 'p', 'whoami']);
  assert.equal(call.code, 0, call.stderr);
  assert.equal(JSON.parse(call.stdout).isError, false);

  const stdio = await run(['auth', 'nosuch']);
  assert.equal(stdio.code, 2);
});

test('auth: a token file of an earlier version is moved into the store; a corrupt one is an error naming it, not a logout', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'legacy-'));
  const cfg = path.join(dir, 'config');
  fs.mkdirSync(cfg);
  fs.writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { p: { url: mcp.url } } }));
  fs.writeFileSync(path.join(cfg, 'oauth.json'), '{ "truncated": ');
  const corrupt = await runIn(dir, ['call', 'p', 'whoami'], { MASTRA_MCP_CONFIG_DIR: cfg });
  assert.equal(corrupt.code, 1);
  assert.match(corrupt.stderr, /token file .*oauth\.json is corrupt/);
  assert.equal(fs.readFileSync(path.join(cfg, 'oauth.json'), 'utf8'), '{ "truncated": ', 'left as it was');

  fs.writeFileSync(path.join(cfg, 'oauth.json'), JSON.stringify({ [mcp.url]: { redirectUrl: 'http://127.0.0.1:1/oauth/callback', data: { tokens: JSON.stringify({ access_token: 'old', token_type: 'Bearer' }) } } }));
  await runIn(dir, ['call', 'p', 'whoami'], { MASTRA_MCP_CONFIG_DIR: cfg });
  assert.ok(fs.existsSync(path.join(cfg, 'oauth.json.imported')), 'the old file is kept aside');
  const stored = createMCPStore(`file:${path.join(cfg, 'oauth.db')}`).oauth({ server: mcp.url });
  assert.equal(await stored.get('cli:redirect-url'), 'http://127.0.0.1:1/oauth/callback');
});


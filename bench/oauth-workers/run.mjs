// The many-workers OAuth run: 8 worker processes for 60 s, a call every 100 ms each, against a real
// authorization server (oidc-provider) whose access tokens live 2 s and whose refresh tokens rotate
// on every use and revoke the whole grant when a spent one is presented again. One login first
// (ours, headless), then the workers; the authorization server counts revoked grants.
//
//   node bench/oauth-workers/run.mjs [anchor-file|ours-file|ours-store ...] [--seconds 60] [--workers 8]
//
// Prints a Markdown table: calls, failed calls, revoked grants, logins (browser redirects).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCPClient, MCPOAuthClientProvider, createMCPStore } from '../../index.mjs';
import { freePort } from '../../__test__/fixtures/helpers.mjs';
import { startAuthorizationServer } from '../../__test__/fixtures/oauth/authorization-server.mjs';
import { completeAuthorization } from '../../__test__/fixtures/oauth/consent.mjs';
import { startProtectedMcpServer } from '../../__test__/fixtures/oauth/protected-mcp-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args.splice(i, 2)[1]) : dflt;
};
const seconds = flag('seconds', 60);
const workers = flag('workers', 8);
const impls = args.length ? args : ['anchor-file', 'ours-file', 'ours-store'];

async function login(as, mcp, storageOrStore, redirectUrl) {
  const provider = new MCPOAuthClientProvider({
    redirectUrl,
    clientMetadata: { client_name: 'oauth-workers', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    ...(storageOrStore.storage ? { storage: storageOrStore.storage } : {}),
    onRedirectToAuthorization: (url) => completeAuthorization(url.href, { deliver: true }).catch(() => {}),
  });
  const client = new MCPClient({ id: `login-${Math.random()}`, servers: { p: { url: new URL(mcp.url), authProvider: provider } }, ...(storageOrStore.store ? { store: storageOrStore.store } : {}) });
  await client.authenticate('p', { timeoutMs: 30_000 });
  await client.disconnect();
}

function fileStorageFor(file) {
  const all = {};
  return {
    get: (k) => all[k],
    set: (k, v) => {
      all[k] = v;
      writeFileSync(file, JSON.stringify(all));
    },
    delete: (k) => {
      delete all[k];
      writeFileSync(file, JSON.stringify(all));
    },
  };
}

function runWorker(cfg) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, 'worker.mjs'), JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), cfg.durationMs + 60_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)));
      } catch {
        resolve({ calls: 0, failed: 0, logins: 0, errors: ['the worker printed no report'] });
      }
    });
  });
}

const rows = [];
for (const impl of impls) {
  const as = await startAuthorizationServer({ accessTokenTTL: 2 });
  let revoked = 0;
  as.provider.on('grant.revoked', () => revoked++);
  const mcp = await startProtectedMcpServer({ authorizationServer: as });
  const dir = mkdtempSync(path.join(tmpdir(), 'oauth-workers-'));
  const redirectUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  const secret = 'bench secret';
  const cfg = { impl, serverUrl: mcp.url, redirectUrl, file: path.join(dir, 'oauth.json'), storeUrl: `file:${path.join(dir, 'mcp.db')}`, secret, durationMs: seconds * 1000, intervalMs: 100 };
  await login(as, mcp, impl === 'ours-store' ? { store: createMCPStore(cfg.storeUrl, { secret }) } : { storage: fileStorageFor(cfg.file) }, redirectUrl);
  const reports = await Promise.all(Array.from({ length: workers }, () => runWorker(cfg)));
  const sum = (k) => reports.reduce((n, r) => n + r[k], 0);
  rows.push({ impl, calls: sum('calls'), failed: sum('failed'), revoked, logins: sum('logins'), error: reports.flatMap((r) => r.errors)[0] ?? '' });
  process.stderr.write(`${impl}: ${JSON.stringify(rows.at(-1))}\n`);
  await mcp.close();
  await as.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${workers} workers × ${seconds} s, a call every 100 ms each, 2 s access tokens, refresh tokens rotating and revoking the grant on reuse\n`);
console.log('| client and storage | calls | failed | grants revoked | logins asked for |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.impl} | ${r.calls} | ${r.failed} | ${r.revoked} | ${r.logins} |`);
process.exit(0);

// One worker of the many-workers OAuth run (bench/oauth-workers/run.mjs): a call to the protected
// server's `whoami` every `intervalMs` for `durationMs`, with one of
//   anchor-file  @mastra/mcp 1.18's MCPClient over the shared file storage a user writes today
//   ours-file    ours over that same file storage (no lock: what a plain get/set/delete allows)
//   ours-store   ours over an MCP store (createMCPStore: the refresh lock)
// Prints one JSON line: calls, failed, logins (redirects to the browser), the first errors.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const cfg = JSON.parse(process.argv[2]);
const api = cfg.impl === 'anchor-file' ? await import('@mastra/mcp') : await import('../../index.mjs');

/** The storage a user writes today: get/set/delete over one JSON file, written by atomic rename. */
function fileStorage(file) {
  const read = () => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return {};
    }
  };
  const write = (all) => {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all));
    renameSync(tmp, file);
  };
  return {
    get: (key) => read()[key],
    set: (key, value) => write({ ...read(), [key]: value }),
    delete: (key) => {
      const all = read();
      delete all[key];
      write(all);
    },
  };
}

let logins = 0;
const provider = new api.MCPOAuthClientProvider({
  redirectUrl: cfg.redirectUrl,
  clientMetadata: {
    client_name: 'oauth-workers',
    redirect_uris: [cfg.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  },
  storage: cfg.impl === 'ours-store' ? undefined : fileStorage(cfg.file),
  onRedirectToAuthorization: () => {
    logins++;
  },
});
const store = cfg.impl === 'ours-store' ? api.createMCPStore(cfg.storeUrl, { secret: cfg.secret }) : undefined;
const mcp = new api.MCPClient({ id: `w${process.pid}`, servers: { p: { url: new URL(cfg.serverUrl), authProvider: provider } }, ...(store ? { store } : {}) });
let calls = 0;
let failed = 0;
const errors = [];
const end = Date.now() + cfg.durationMs;
while (Date.now() < end) {
  const started = Date.now();
  calls++;
  try {
    const tools = await mcp.listTools();
    // listTools() leaves out a server it could not reach (and logs why): its error, as the user finds it.
    if (!tools.p_whoami) throw new Error((await mcp.listToolsWithErrors()).errors?.p ?? 'no whoami tool');
    const who = await tools.p_whoami.execute({}, {});
    if (!who?.sub) throw new Error(`unexpected result ${JSON.stringify(who).slice(0, 200)}`);
  } catch (e) {
    failed++;
    if (errors.length < 3) errors.push(String(e?.message ?? e).slice(0, 300));
  }
  await new Promise((r) => setTimeout(r, Math.max(0, cfg.intervalMs - (Date.now() - started))));
}
await mcp.disconnect().catch(() => {});
process.stdout.write(`${JSON.stringify({ calls, failed, logins, errors })}\n`);
process.exit(0);

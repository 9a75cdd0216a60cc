'use strict';
// OAuth state for the CLI, kept across runs in an MCP store (`createMCPStore`): by default the
// SQLite file `oauth.db` (0600, its key beside it) under the user's config directory
// (overridable with MASTRA_MCP_CONFIG_DIR), or the store at MASTRA_MCP_STORE (with
// MASTRA_MCP_STORE_SECRET) — the same store an app uses, so `mastra-mcp auth` can log an app in.
// One entry per server URL. A token file of an earlier version (`oauth.json`) is moved in once;
// a corrupt one is an error that names it, never a silent logout.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function configDir(env = process.env) {
  if (env.MASTRA_MCP_CONFIG_DIR) return env.MASTRA_MCP_CONFIG_DIR;
  if (process.platform === 'win32') return path.join(env.APPDATA || path.join(os.homedir(), 'AppData', 'Roaming'), 'mastra-mcp');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'mastra-mcp');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'mastra-mcp');
}

const REDIRECT = 'cli:redirect-url';

class CliCredentials {
  #redirects = new Map();

  /** `api`: the package's public API (the CLI is a user of the library). */
  constructor(api, env = process.env) {
    const dir = configDir(env);
    this.legacyFile = path.join(dir, 'oauth.json');
    if (env.MASTRA_MCP_STORE) {
      this.url = env.MASTRA_MCP_STORE;
      this.where = String(env.MASTRA_MCP_STORE).replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
    } else {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.url = `file:${path.join(dir, 'oauth.db')}`;
      this.where = path.join(dir, 'oauth.db');
    }
    this.store = api.createMCPStore(this.url, { secret: env.MASTRA_MCP_STORE_SECRET || undefined });
  }

  /** Reads what the commands need synchronously: the redirect URL of each server URL. */
  async load(serverUrls) {
    await this.#importLegacy();
    for (const url of serverUrls) {
      const redirectUrl = await this.store.oauth({ server: url }).get(REDIRECT);
      if (redirectUrl) this.#redirects.set(url, redirectUrl);
    }
  }

  async #importLegacy() {
    let text;
    try {
      text = fs.readFileSync(this.legacyFile, 'utf8');
    } catch {
      return;
    }
    let all;
    try {
      all = JSON.parse(text);
      if (!all || typeof all !== 'object') throw new Error('not an object');
    } catch (e) {
      throw new Error(`the CLI's token file ${this.legacyFile} is corrupt (${e.message}): fix or remove it, then run \`mastra-mcp auth\` again`);
    }
    for (const [url, entry] of Object.entries(all)) {
      const storage = this.store.oauth({ server: url });
      if (entry?.redirectUrl) await storage.set(REDIRECT, entry.redirectUrl);
      for (const [key, value] of Object.entries(entry?.data ?? {})) await storage.set(key, value);
    }
    fs.renameSync(this.legacyFile, `${this.legacyFile}.imported`);
  }

  entry(serverUrl) {
    const redirectUrl = this.#redirects.get(serverUrl);
    return redirectUrl ? { redirectUrl } : undefined;
  }

  async setRedirectUrl(serverUrl, redirectUrl) {
    this.#redirects.set(serverUrl, redirectUrl);
    await this.store.oauth({ server: serverUrl }).set(REDIRECT, redirectUrl);
  }

  /** An `OAuthStorage` (get/set/delete, and the store's lock) for one server's credentials. */
  storageFor(serverUrl) {
    return this.store.oauth({ server: serverUrl });
  }
}

module.exports = { CliCredentials, configDir };

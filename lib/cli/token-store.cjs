'use strict';
// OAuth state for the CLI, kept across runs in one file under the user's config directory
// (mode 0600, directory 0700), one entry per server URL. Overridable with MASTRA_MCP_CONFIG_DIR.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function configDir(env = process.env) {
  if (env.MASTRA_MCP_CONFIG_DIR) return env.MASTRA_MCP_CONFIG_DIR;
  if (process.platform === 'win32') return path.join(env.APPDATA || path.join(os.homedir(), 'AppData', 'Roaming'), 'mastra-mcp');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'mastra-mcp');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'mastra-mcp');
}

class TokenFile {
  constructor(file = path.join(configDir(), 'oauth.json')) {
    this.file = file;
  }

  #readAll() {
    try {
      const v = JSON.parse(fs.readFileSync(this.file, 'utf8'));
      return v && typeof v === 'object' ? v : {};
    } catch {
      return {};
    }
  }

  #writeAll(all) {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, this.file);
  }

  entry(serverUrl) {
    return this.#readAll()[serverUrl];
  }

  setRedirectUrl(serverUrl, redirectUrl) {
    const all = this.#readAll();
    all[serverUrl] = { ...all[serverUrl], redirectUrl };
    this.#writeAll(all);
  }

  /** An `OAuthStorage` (get/set/delete) over this server's entry. */
  storageFor(serverUrl) {
    const read = () => this.#readAll()[serverUrl]?.data ?? {};
    const write = (data) => {
      const all = this.#readAll();
      all[serverUrl] = { ...all[serverUrl], data };
      this.#writeAll(all);
    };
    return {
      get: (key) => read()[key],
      set: (key, value) => write({ ...read(), [key]: value }),
      delete: (key) => {
        const data = read();
        delete data[key];
        write(data);
      },
    };
  }
}

module.exports = { TokenFile, configDir };

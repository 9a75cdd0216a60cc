'use strict';
// MCP config files (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf) → MCPClient.
// Parsing, validation and `${…}` interpolation happen in Rust (src/core/mcp_json); this file
// reads the file, hands over the environment and inputs, and merges the caller's options.
const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const { parseMcpConfig } = require('./native.cjs');

/** A config file or object that cannot be used; `message` is one line naming file, server, field. */
class MCPConfigError extends Error {
  constructor(details) {
    super(details.message);
    this.name = 'MCPConfigError';
    this.code = 'MCP_CONFIG_INVALID';
    this.reason = details.code;
    this.file = details.file;
    this.server = details.server ?? undefined;
    this.field = details.field ?? undefined;
    if (details.line !== undefined) this.line = details.line;
    if (details.column !== undefined) this.column = details.column;
    if (details.input !== undefined) this.input = details.input;
    if (details.envVar !== undefined) this.envVar = details.envVar;
  }
}

function stringRecord(obj) {
  const out = {};
  for (const [k, v] of Object.entries(obj ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

function parse(text, label, file, options) {
  const out = JSON.parse(
    parseMcpConfig(text, {
      label,
      path: file,
      format: options.format,
      inputs: stringRecord(options.inputs),
      env: stringRecord(options.env ?? process.env),
      workspace: options.workspace,
    }),
  );
  if (!out.ok) throw new MCPConfigError(out.error);
  return out.value;
}

/** Parses a config object (the content of an mcp.json) into `{ format, servers, transports, disabled }`. */
function parseMCPConfig(config, options = {}) {
  const label = options.label ?? 'MCP config';
  if (!config || typeof config !== 'object' || Array.isArray(config)) {
    throw new MCPConfigError({ code: 'NO_SERVERS', file: label, message: `${label}: the config must be an object with "mcpServers" or "servers"` });
  }
  return parse(JSON.stringify(config), label, undefined, options);
}

/** Reads and parses a config file; resolves to `{ file, format, servers, transports, disabled }`. */
async function readMCPConfigFile(file, options = {}) {
  if (typeof file !== 'string' && !(file instanceof URL)) throw new TypeError('readMCPConfigFile: path must be a string or URL');
  const abs = path.resolve(file instanceof URL ? fileURLToPath(file) : file);
  const label = options.label ?? (file instanceof URL ? abs : file);
  let text;
  try {
    text = await fs.promises.readFile(abs, 'utf8');
  } catch (e) {
    throw new MCPConfigError({ code: 'READ_FAILED', file: label, message: `${label}: cannot read the file (${e.code ?? e.message})` });
  }
  return { file: abs, ...parse(text, label, abs, options) };
}

/** MCPClient options from a parsed config and the caller's options (per-server overrides win). */
function clientOptions(parsed, options, label) {
  const servers = {};
  for (const [name, def] of Object.entries(parsed.servers)) {
    const override = options.servers?.[name] ?? {};
    const merged = { ...def, ...(options.defaults ?? {}), ...override };
    const headers = def.requestInit?.headers;
    if (headers && (override.requestInit || options.defaults?.requestInit)) {
      const extra = { ...options.defaults?.requestInit, ...override.requestInit };
      merged.requestInit = { ...extra, headers: { ...headers, ...(extra.headers ?? {}) } };
    }
    servers[name] = merged;
  }
  for (const name of Object.keys(options.servers ?? {})) {
    if (servers[name]) continue;
    const why = parsed.disabled.includes(name) ? 'is disabled in the file' : 'is not in the file';
    throw new MCPConfigError({ code: 'INVALID_OPTION', file: label, server: name, message: `${label}: options.servers.${name}: server "${name}" ${why}` });
  }
  const out = { servers };
  if (options.id !== undefined) out.id = options.id;
  if (options.timeout !== undefined) out.timeout = options.timeout;
  return out;
}

function attachConfigStatics(MCPClient) {
  Object.defineProperties(MCPClient, {
    fromConfig: {
      configurable: true,
      writable: true,
      value: function fromConfig(config, options = {}) {
        const parsed = parseMCPConfig(config, options);
        return new this(clientOptions(parsed, options, options.label ?? 'MCP config'));
      },
    },
    fromConfigFile: {
      configurable: true,
      writable: true,
      value: async function fromConfigFile(file, options = {}) {
        const parsed = await readMCPConfigFile(file, options);
        return new this(clientOptions(parsed, options, options.label ?? String(file)));
      },
    },
  });
}

module.exports = { MCPConfigError, parseMCPConfig, readMCPConfigFile, attachConfigStatics };

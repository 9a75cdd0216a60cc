'use strict';
// `mastra-mcp typegen`: the parts that are not the CLI's own (loading an MCPClient module, writing
// the file). Required by lib/cli/main.cjs only when the command runs.
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const MODULE_EXTENSIONS = /\.(?:[cm]?js|[cm]?ts)$/i;

/** `--config FILE` names a JavaScript/TypeScript module (exporting an MCPClient), not a config file. */
function isModulePath(file) {
  return typeof file === 'string' && MODULE_EXTENSIONS.test(file);
}

const isClient = (v) => typeof v === 'object' && v !== null && typeof v.listToolDefinitionsWithErrors === 'function';

/**
 * Imports a module and returns the MCPClient it exports: its default export if that is one, else
 * its only exported client. Throws `UsageError` (from the CLI) when there is none or several.
 */
async function loadClientModule(file, UsageError, cwd = process.cwd()) {
  const abs = path.resolve(cwd, file);
  if (!fs.existsSync(abs)) throw new UsageError(`${file}: no such file`);
  let mod;
  try {
    mod = await import(pathToFileURL(abs).href);
  } catch (e) {
    if (e?.code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new UsageError(`${file}: this Node (${process.version}) cannot import TypeScript; use Node >= 22.18, or point --config at the compiled JavaScript`);
    }
    throw new UsageError(`${file}: could not be loaded: ${e?.message ?? e}`);
  }
  if (isClient(mod.default)) return { client: mod.default, exportName: 'default' };
  // A CommonJS module's exports arrive as `default`: look inside it too.
  const holders = [mod, ...(mod.default && typeof mod.default === 'object' ? [mod.default] : [])];
  const found = new Map();
  for (const h of holders) {
    for (const [name, value] of Object.entries(h)) if (isClient(value) && ![...found.values()].includes(value)) found.set(name, value);
  }
  if (found.size === 1) {
    const [[exportName, client]] = found;
    return { client, exportName };
  }
  if (!found.size) throw new UsageError(`${file} exports no MCPClient (export one, e.g. \`export const mcp = new MCPClient({ servers })\`)`);
  throw new UsageError(`${file} exports ${found.size} MCPClients (${[...found.keys()].join(', ')}): export one as default for typegen`);
}

/** Writes `text` to `file` atomically (a temporary file beside it, then a rename). */
function writeAtomically(file, text) {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** One row per server: name, version (when the server told it) and its number of tools. */
function serverSummary(catalog) {
  return Object.keys(catalog)
    .sort()
    .map((name) => {
      const tools = Object.values(catalog[name]);
      const version = tools.map((t) => t?.server?.version).find(Boolean);
      return { name, ...(version ? { version } : {}), tools: tools.length };
    });
}

module.exports = { isModulePath, loadClientModule, writeAtomically, serverSummary };

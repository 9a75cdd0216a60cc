'use strict';
// Which servers the CLI talks to: --config FILE, else ./mcp.json or ./.mcp.json, else the
// bundled example server (a dependency-free stdio server in this package: no network).
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLE_SERVER = path.join(__dirname, 'example-server.cjs');

function exampleConfig() {
  return {
    file: null,
    format: 'builtin',
    servers: { example: { command: process.execPath, args: [EXAMPLE_SERVER] } },
    transports: { example: 'stdio' },
    disabled: [],
  };
}

async function loadConfig(api, opts, cwd = process.cwd()) {
  const options = { inputs: opts.inputs, format: opts.format };
  if (opts.config) return api.readMCPConfigFile(opts.config, options);
  for (const name of ['mcp.json', '.mcp.json']) {
    const file = path.join(cwd, name);
    if (fs.existsSync(file)) return api.readMCPConfigFile(file, { ...options, label: name });
  }
  return exampleConfig();
}

module.exports = { loadConfig, EXAMPLE_SERVER };

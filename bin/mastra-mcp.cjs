#!/usr/bin/env node
'use strict';
// The `mastra-mcp` command: see `mastra-mcp --help` and lib/cli/.
require('../lib/cli/main.cjs')
  .main(process.argv.slice(2))
  .then((code) => {
    // Exit once stdout has drained (a pipe may still hold the output).
    process.stdout.write('', () => process.exit(code));
  });

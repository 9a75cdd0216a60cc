'use strict';
// `mastra-mcp lock`: the tool lock of a catalog (`listToolDefinitions()`), through the package's
// public helpers (createToolLock, checkToolLock, formatToolDrift). Written, checked (--check) or
// rewritten (--update); a lock that exists and differs is never overwritten without --update.
const fs = require('node:fs');
const path = require('node:path');
const { writeAtomically } = require('../typegen/cli.cjs');

/** The tools and servers of a catalog, in words. */
function counted(definitions) {
  const servers = Object.keys(definitions).length;
  const tools = Object.values(definitions).reduce((n, defs) => n + Object.keys(defs).length, 0);
  return `${tools} tool${tools === 1 ? '' : 's'} of ${servers} server${servers === 1 ? '' : 's'}`;
}

/**
 * Runs the command over `definitions`: `{ ok, out, action, summary, diff?, report? }`, where
 * `action` is 'written', 'updated', 'unchanged', 'matches' or 'differs'.
 */
function lock(api, definitions, opts) {
  const out = path.resolve(opts.out ?? 'mcp-lock.json');
  const text = api.createToolLock(definitions);
  const exists = fs.existsSync(out);
  const what = counted(definitions);
  const differs = (report, summary) => ({ ok: false, out, action: 'differs', report, diff: api.formatToolDrift(report), summary });
  if (opts.check) {
    if (!exists) return { ok: false, out, action: 'missing', summary: `no tool lock at ${out}: run \`mastra-mcp lock\` to write one` };
    const report = api.checkToolLock(out, definitions);
    if (report.ok) return { ok: true, out, action: 'matches', summary: `${out} matches the servers (${what})`, report };
    return differs(report, `the servers no longer match ${out}; review the changes above, then accept them with \`mastra-mcp lock --update\``);
  }
  const before = exists ? fs.readFileSync(out, 'utf8') : undefined;
  if (before === text) return { ok: true, out, action: 'unchanged', summary: `${out} is up to date (${what})` };
  if (before !== undefined && !opts.update) {
    const report = api.checkToolLock(out, definitions);
    if (report.ok) return { ok: true, out, action: 'unchanged', summary: `${out} matches the servers (${what})` };
    return differs(report, `${out} exists and the servers no longer match it: nothing written; accept the changes above with \`mastra-mcp lock --update\``);
  }
  writeAtomically(out, text);
  return { ok: true, out, action: before === undefined ? 'written' : 'updated', summary: `${before === undefined ? 'Wrote' : 'Updated'} ${out} (${what})` };
}

module.exports = { lock };

'use strict';
// Tool pinning, the public helpers (docs/tool-safety.md): fingerprints of tool definitions, lock
// files, and what differs between a lock and what servers list now. The reviewed part of a
// definition, its canonical JSON and SHA-256, the lock's bytes and the drift itself are the
// core's (src/core/tool_lock.rs); this file reads lock files and words the differences.
const fs = require('node:fs');
const native = require('./native.cjs');

/** Each tool's fingerprint (`sha256:<hex>`), by name: `tools` is an array of definitions or an object of them by name. */
function fingerprintTools(tools) {
  if (!tools || typeof tools !== 'object') throw new TypeError('fingerprintTools expects tool definitions: an array, or an object by name');
  return native.toolFingerprints(tools);
}

/**
 * What differs between a baseline (`fingerprintTools()` of the tools you reviewed) and tools now:
 * `{ drifted, changed, added, removed }`, each a list of tool names.
 */
function detectToolDrift(baseline, tools) {
  if (!baseline || typeof baseline !== 'object') throw new TypeError('detectToolDrift expects a baseline from fingerprintTools()');
  const now = fingerprintTools(tools);
  const changed = [];
  const added = [];
  for (const [name, hash] of Object.entries(now)) {
    if (!Object.prototype.hasOwnProperty.call(baseline, name)) added.push(name);
    else if (baseline[name] !== hash) changed.push(name);
  }
  const removed = Object.keys(baseline).filter((name) => !Object.prototype.hasOwnProperty.call(now, name));
  return { drifted: changed.length + added.length + removed.length > 0, changed, added, removed };
}

/** The text of a lock file for `listToolDefinitions()`'s result (`{ server: { tool: definition } }`). */
function createToolLock(definitions) {
  if (!definitions || typeof definitions !== 'object') throw new TypeError('createToolLock expects tool definitions by server');
  return native.toolLockText(definitions);
}

// Lock files read, by path, while unchanged (size and mtime): a new client per user does not
// read and parse the same file again. A few paths at most.
const readLocks = new Map();
const READ_LOCKS_MAX = 16;

/** A parsed lock from a path or an object, its shape checked (throws a TypeError naming what is wrong). */
function readToolLock(lock) {
  if (typeof lock !== 'string' && !(lock instanceof URL)) return checked(lock, lock);
  const key = String(lock);
  let stat;
  let text;
  try {
    stat = fs.statSync(lock);
    const known = readLocks.get(key);
    if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.parsed;
    text = fs.readFileSync(lock, 'utf8');
  } catch (e) {
    throw new TypeError(`Cannot read the tool lock ${key}: ${e.message}`, { cause: e });
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new TypeError(`The tool lock ${key} is not JSON: ${e.message}`, { cause: e });
  }
  checked(parsed, key);
  // The size and mtime seen before the read: a file changed since is read again next time.
  if (readLocks.size >= READ_LOCKS_MAX) readLocks.delete(readLocks.keys().next().value);
  readLocks.set(key, { size: stat.size, mtimeMs: stat.mtimeMs, parsed });
  return parsed;
}

/** `lock`, once the core found it to be a lock; `what` names it in the error. */
function checked(lock, what) {
  try {
    native.toolLockServers(lock);
  } catch (e) {
    throw new TypeError(`Invalid tool lock${typeof what === 'string' ? ` ${what}` : ''}: ${e.message}`, { cause: e });
  }
  return lock;
}

/** The drift of one server's tools (an array or object of definitions) from a lock; `null` when the lock does not pin it. */
function serverDrift(lock, server, tools) {
  return native.toolDrift(lock, server, tools);
}

/**
 * Compares a lock with `listToolDefinitions()`'s result: `{ ok, servers: { name: drift[] },
 * unpinned: servers listed but not in the lock, unlisted: servers in the lock not listed }`.
 */
function checkToolLock(lock, definitions) {
  const parsed = readToolLock(lock);
  const out = { ok: true, servers: {}, unpinned: [], unlisted: [] };
  for (const server of Object.keys(definitions).sort()) {
    const drift = serverDrift(parsed, server, definitions[server]);
    if (drift === null) out.unpinned.push(server);
    else if (drift.length) out.servers[server] = drift;
  }
  out.unlisted = Object.keys(parsed.servers)
    .filter((s) => !Object.prototype.hasOwnProperty.call(definitions, s))
    .sort();
  out.ok = !Object.keys(out.servers).length && !out.unpinned.length && !out.unlisted.length;
  return out;
}

const show = (value) => JSON.stringify(value);

/** One drifted tool in words: a line, then each change as a pointer with `-` before and `+` after. */
function describeDrift(server, drift) {
  const lines = [];
  if (drift.kind === 'added') lines.push(`${server}: tool "${drift.tool}" is not in the lock (${drift.actual})`);
  else if (drift.kind === 'removed') lines.push(`${server}: tool "${drift.tool}" is in the lock but no longer listed`);
  else {
    lines.push(`${server}: tool "${drift.tool}" changed (${drift.expected} -> ${drift.actual})`);
    for (const change of drift.changes) {
      lines.push(`  ${change.pointer || '/'}`);
      if ('before' in change) lines.push(`    - ${show(change.before)}`);
      if ('after' in change) lines.push(`    + ${show(change.after)}`);
    }
    if (drift.more) lines.push(`  … and ${drift.more} more change${drift.more === 1 ? '' : 's'}`);
  }
  return lines.join('\n');
}

/** `checkToolLock()`'s report as a readable diff (empty when it is ok). */
function formatToolDrift(report) {
  const parts = [];
  for (const [server, drifts] of Object.entries(report.servers)) for (const d of drifts) parts.push(describeDrift(server, d));
  for (const server of report.unpinned) parts.push(`${server}: the server is not in the lock`);
  for (const server of report.unlisted) parts.push(`${server}: the server is in the lock but was not listed`);
  return parts.join('\n');
}

module.exports = { fingerprintTools, detectToolDrift, createToolLock, readToolLock, serverDrift, checkToolLock, formatToolDrift, describeDrift };

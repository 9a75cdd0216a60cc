'use strict';
// Where @mastra/core keeps its `Tool` class, so that a cold process can load just that file.
//
// `@mastra/core/tools` re-exports `Tool`, `createTool` and `validateToolOutput` from one chunk of
// core's build (`dist/tool-<hash>.js` / `.cjs`), and, beside it, chunks this package never uses:
// the code-mode transport, the web-search and ask-user tools, the goal processors (importing
// them loads `node:http` and with it undici). Loading the whole entry cost a cold process about
// 55 ms of CPU on top of the chunk. The chunk is found by reading the entry's own import (or
// require) of it, so a rebuilt core with new hashes is followed; anything unexpected returns
// `undefined` and the entry imports `@mastra/core/tools` as a whole. The chunk is the module the
// entry itself loads, so `Tool` is the very class `@mastra/core/tools` exports.
const { readFileSync } = require('node:fs');

const NEEDED = ['createTool', 'validateToolOutput', 'Tool'];

/**
 * In the ESM entry's text: the chunk's path relative to the entry and the chunk's export name for
 * each needed binding (the build renames them: `import { r as createTool, … } from "../tool-x.js"`).
 */
function esmChunkOf(entryText) {
  for (const match of entryText.matchAll(/import\s*\{([^}]*)\}\s*from\s*"(\.\.\/[^"]+\.js)"/g)) {
    const names = {};
    for (const part of match[1].split(',')) {
      const [exported, local = exported] = part.trim().split(/\s+as\s+/);
      if (NEEDED.includes(local)) names[local] = exported;
    }
    if (NEEDED.every((n) => names[n])) return { path: match[2], names };
  }
  return undefined;
}

/** In the CommonJS entry's text: the chunk's path when it exports the needed names as they are. */
function cjsChunkOf(entryText) {
  for (const match of entryText.matchAll(/const (\w+) = require\("(\.\.\/[^"]+\.cjs)"\);/g)) {
    const [, variable, path] = match;
    if (NEEDED.every((n) => entryText.includes(`exports.${n} = ${variable}.${n};`))) {
      return { path, names: Object.fromEntries(NEEDED.map((n) => [n, n])) };
    }
  }
  return undefined;
}

/**
 * The chunk for the entry file at `entryPath` (`@mastra/core/tools` resolved), read by `parse`
 * (esmChunkOf or cjsChunkOf); `undefined` when the file cannot be read or is not as expected.
 */
function chunkFor(entryPath, parse) {
  try {
    return parse(readFileSync(entryPath, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The needed bindings out of the loaded chunk, or `undefined` when one is missing. */
function bindingsOf(chunk, names) {
  const out = {};
  for (const n of NEEDED) {
    out[n] = chunk?.[names[n]];
    if (typeof out[n] !== 'function') return undefined;
  }
  return out;
}

/**
 * Whether this package runs from its own directory (`dir` holds its package.json): a bundle that
 * inlined it must use the bundler's own `@mastra/core/tools`, so it never takes the short way.
 */
function runsFromPackage(dir) {
  try {
    return JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')).name === 'mastra-mcp-native';
  } catch {
    return false;
  }
}

module.exports = { esmChunkOf, cjsChunkOf, chunkFor, bindingsOf, runsFromPackage };

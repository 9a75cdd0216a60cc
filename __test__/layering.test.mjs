// The rules of the JS face, enforced where the code is (the core's are in src/core/layering.rs):
// no file in lib/ is over 500 lines; the CLI (lib/cli/) uses the package through its public API
// only; the package's own files are loaded by static requires bundlers can trace. See
// docs/architecture.md, "What each layer may import".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_LINES = 500;

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(rel));
    else if (/\.(c|m)?js$/.test(e.name)) out.push(rel);
  }
  return out;
}

const read = (rel) => fs.readFileSync(path.join(root, rel), 'utf8');

/** The string-literal specifiers a file requires (`require('…')`), comments left out. */
function requires(rel) {
  const text = read(rel).replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(/(?<![\w.])require\(\s*(['"])([^'"]+)\1\s*\)/g)].map((m) => m[2]);
}

test('layering: no file in lib/ is over 500 lines', () => {
  const over = walk('lib')
    .map((f) => [f, read(f).split('\n').length - (read(f).endsWith('\n') ? 1 : 0)])
    .filter(([, n]) => n > MAX_LINES);
  assert.deepEqual(over, [], `split these by concern: ${over.map(([f, n]) => `${f} (${n} lines)`).join(', ')}`);
});

test('layering: lib/cli/ requires only the public API (index.js), its own files and the typegen tool', () => {
  // The typegen tool (lib/typegen/, `generateToolTypes` of the public API) must itself be free of
  // the package's internals for the CLI to use it.
  const allowedDir = (abs) => ['lib/cli/', 'lib/typegen/'].some((d) => abs.startsWith(d));
  const bad = [];
  for (const file of [...walk('lib/cli'), ...walk('lib/typegen')]) {
    for (const spec of requires(file)) {
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        bad.push(`${file}: ${spec} (a package: the CLI is a user of the library)`);
        continue;
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (target === 'index.js' && file.startsWith('lib/cli/')) continue;
      if (allowedDir(target)) continue;
      bad.push(`${file}: ${spec} (${target} is not the public API)`);
    }
  }
  assert.deepEqual(bad, []);
});

test('layering: the package loads its own files by static requires (no createRequire in lib/ or the entries)', () => {
  const bad = [...walk('lib'), 'index.js', 'index.mjs'].filter((f) => /createRequire\s*\(/.test(read(f).replace(/^\s*\/\/.*$/gm, '')));
  assert.deepEqual(bad, []);
});

// The JSON-RPC vocabulary is the core's: `lib/` names no MCP method (a string literal such as
// 'tools/call', 'notifications/…', 'initialize') and no JSON-RPC error code (a -320xx or -326xx
// number) in its code; the method names of its spans come from the binding (`methods()`). The
// bundled example server is a server, and exempt. The word list mirrors src/core/layering.rs.
const METHOD_HEADS = [
  'tools', 'resources', 'prompts', 'notifications', 'tasks', 'completion', 'logging', 'roots', 'sampling', 'elicitation', 'subscriptions', 'server',
];
const BARE_METHODS = ['initialize', 'ping'];
const VOCABULARY_EXEMPT = ['lib/cli/example-server.cjs'];
// Prose, not protocol: the header typegen writes into the file it generates.
const VOCABULARY_PROSE = { 'lib/typegen/generate.cjs': ["the method 'tools/list'"] };

/**
 * A JavaScript file split into its code (string literals blanked, comments dropped) and its string
 * literals (template literals included). Regular expression literals count as code.
 */
function scanJs(text) {
  let code = '';
  const literals = [];
  let i = 0;
  // Where a `/` starts a regular expression rather than a division: after these, or a keyword.
  const regexAfter = (prev) => prev === undefined || /[(,=:[!&|?{};+\-*%<>~^]/.test(prev);
  let lastSignificant;
  let lastWord = '';
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      let literal = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\') {
          literal += text.slice(j, j + 2);
          j += 2;
        } else literal += text[j++];
      }
      literals.push(literal);
      code += `${c}${c}`;
      i = j + 1;
      lastSignificant = c;
      lastWord = '';
    } else if (c === '/' && (regexAfter(lastSignificant) || ['return', 'typeof', 'case', 'in', 'of'].includes(lastWord))) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && (inClass || text[j] !== '/') && text[j] !== '\n') {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        j++;
      }
      while (/[a-z]/i.test(text[j + 1] ?? '')) j++;
      code += text.slice(i, j + 1);
      i = j + 1;
      lastSignificant = '/';
      lastWord = '';
    } else {
      code += c;
      if (/\S/.test(c)) {
        lastSignificant = c;
        lastWord = /[\w$]/.test(c) ? (/[\w$]/.test(text[i - 1] ?? '') ? lastWord + c : c) : '';
      }
      i++;
    }
  }
  return { code, literals };
}

/** The MCP methods a string literal names. */
function methodsNamed(literal) {
  return literal
    .split(/[^A-Za-z0-9/_]/)
    .filter((w) => BARE_METHODS.includes(w) || (w.includes('/') && METHOD_HEADS.includes(w.slice(0, w.indexOf('/'))) && w.length > w.indexOf('/') + 1));
}

/** The JSON-RPC error codes (-32000 to -32099, -32600 to -32699) code names as numbers. */
function errorCodesNamed(code) {
  return [...code.matchAll(/(?<![\w$.])[0-9][0-9_]*(?![\w$])/g)]
    .map((m) => m[0].replace(/_/g, ''))
    .filter((n) => n.length === 5 && (n.startsWith('320') || n.startsWith('326')));
}

/** What a file names of the JSON-RPC vocabulary, as `file: word` lines. */
function vocabularyOf(file, text) {
  const { code, literals } = scanJs(text);
  return [
    ...literals.flatMap(methodsNamed).map((m) => `${file}: the method '${m}'`),
    ...errorCodesNamed(code).map((n) => `${file}: the error code ${n}`),
  ];
}

test('layering: the vocabulary scan finds methods and codes in code, not in comments', () => {
  const source = [
    "const m = 'tools/call'; // 'resources/read' and -32601 in a comment",
    'const n = "notifications/roots/list_changed", p = `initialize`;',
    '/* prompts/get, -32000 */ if (code === -32601 || c === -32_000) {}',
    "const ok = 'tools' + '/x/tools/' + 'https://x/tools'; const re = /['\"]tools\\/list/; const t = 32768, port = 3200;",
  ].join('\n');
  assert.deepEqual(vocabularyOf('f', source), [
    "f: the method 'tools/call'",
    "f: the method 'notifications/roots/list_changed'",
    "f: the method 'initialize'",
    'f: the error code 32601',
    'f: the error code 32000',
  ]);
});

test('layering: lib/ names no JSON-RPC method or error code (the core owns the vocabulary)', () => {
  const files = walk('lib').filter((f) => !VOCABULARY_EXEMPT.includes(f));
  assert.ok(files.includes('lib/tools.cjs') && files.includes('lib/telemetry.cjs'), 'the scan sees lib/');
  const named = files.flatMap((f) => vocabularyOf(f, read(f)).filter((line) => !VOCABULARY_PROSE[f]?.includes(line.slice(f.length + 2))));
  assert.deepEqual(named, [], 'what is sent and what a code means is the core\'s: take method names from the binding (lib/client/defaults.cjs)');
});

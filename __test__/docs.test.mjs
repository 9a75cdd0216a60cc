// The documentation cannot rot: every fenced code block in README.md and docs/*.md is checked, and
// every relative link resolves.
//
// By the block's language:
// - `ts`, `js` (and `typescript`, `javascript`, `mjs`): type-checked with tsc --strict against our
//   index.d.ts (imports of '@mastra/mcp' and 'mastra-mcp-native' resolve to it), all blocks in one tsc
//   run, each as its own ES module.
// - `sh` (and `bash`, `shell`): each command is checked as far as it can be without running it:
//   `npm run X` / `npm test` name a script of package.json, `npm i` names this package (or its alias) or a
//   known one, `node FILE` / `node --test FILE…` name files that exist, `mastra-mcp …` (also through
//   `npx` or `npm run cli --`) parses with the CLI's own parser, `npm run bench -- …` uses the benchmark's
//   flags and scenario names, `cargo test --test NAME` names a file of tests/. Any other command fails.
// - `json`: parsed; an MCP config (top-level `mcpServers` or `servers`, or a `config=` directive) is
//   also read through our own config-file parser (readMCPConfigFile, then MCPClient.fromConfigFile).
// - `jsonc`: must be an MCP config (a `config=` directive); read as above.
// - `text`: not code (diagrams, synopses, output); not checked.
// - No language, or any other: fails (say what the block is).
//
// A directive in an HTML comment on the line(s) just before a block changes how it is checked:
//   <!-- docs-test: preamble=model,mcp -->   declarations the block uses without defining (PREAMBLES below)
//   <!-- docs-test: config=.vscode/mcp.json --> the file name the config example is read as (picks the dialect)
//   <!-- docs-test: skip REASON -->           not checked; the reason is required and is printed
//   <!-- docs-test: file=mcp-types.ts -->      a ts block written under this name (not a numbered module),
//                                              so the other blocks can import it (`./mcp-types.js`)
//   <!-- docs-test: typegen=input -->          a json block: a tool catalog, as listToolDefinitions() returns it
//   <!-- docs-test: typegen=output -->         a ts block: exactly what generateToolTypes writes for the
//                                              nearest typegen=input block above it in the same page
// Directives combine, space-separated: `<!-- docs-test: typegen=output file=mcp-types.ts -->`.
//
// Paths: every repository path the docs name in backticks (`src/…`, `lib/…`, `__test__/…`, …) exists, and
// docs/architecture.md names every file of src/ and lib/ (or a folder holding it), so a new or moved file
// fails here until the page says where it lives; and its test table names every __test__/*.test.mjs file and no
// other, so a new, moved or deleted suite fails here until the table follows.
//
// Links: every `[text](target)` outside code whose target is not absolute (http:, https:, mailto:) must name
// an existing file, and its `#anchor` a heading of that file (GitHub's slugs). PENDING_PAGES lists pages
// other branches are adding; links to them may dangle until they land.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCPClient, generateToolTypes, readMCPConfigFile } from '../index.mjs';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const { parseArgs, parseJsonArgs } = require('../lib/cli/args.cjs');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

// Pages being written on other branches. The lead removes each entry when its page lands.
const PENDING_PAGES = [];

// What a `preamble=` name puts above a TypeScript block.
const PREAMBLES = {
  none: [],
  model: ['declare const model: `${string}/${string}`;'],
  mcp: ["import { MCPClient } from '@mastra/mcp';", 'declare const mcp: MCPClient;'],
  mastra: ["import { Mastra } from '@mastra/core/mastra';"],
  // What `listTools()` of a `new MCPClient<MCPServers>` resolves to, MCPServers from the page's
  // `file=mcp-types.ts` block (docs/typed-tools.md).
  typedTools: [
    "import type { MCPTypedTools } from '@mastra/mcp';",
    "import type { MCPServers } from './mcp-types.js';",
    'declare const tools: MCPTypedTools<MCPServers>;',
  ],
};

const TS_LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);
const SH_LANGS = new Set(['sh', 'bash', 'shell']);

function docFiles() {
  const docs = existsSync(path.join(root, 'docs'))
    ? readdirSync(path.join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return ['README.md', ...docs];
}

/** Fenced blocks of a Markdown text: { lang, code, line (1-based, of the first code line), directive }. */
function extractBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const lang = open[3].trim().split(/\s+/)[0] ?? '';
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[j])) j++;
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const m = k >= 0 ? /^<!--\s*docs-test:\s*(.*?)\s*-->$/.exec(lines[k].trim()) : null;
    blocks.push({ lang, code: lines.slice(i + 1, j).join('\n') + '\n', line: i + 2, directive: m ? m[1] : undefined });
    i = j;
  }
  return blocks;
}

/** `preamble=a,b` / `config=FILE` / `file=NAME` / `typegen=input|output` / `skip REASON` → an object; throws on anything else. */
function parseDirective(d) {
  if (d === undefined) return {};
  const skip = /^skip(?:\s+(.*))?$/.exec(d);
  if (skip) {
    if (!skip[1]?.trim()) throw new Error('`skip` needs a reason');
    return { skip: skip[1].trim() };
  }
  const out = {};
  for (const part of d.split(/\s+/)) {
    const [key, value] = part.split('=');
    if (key === 'preamble' && value) {
      out.preamble = value.split(',');
      for (const p of out.preamble) if (!PREAMBLES[p]) throw new Error(`unknown preamble "${p}" (known: ${Object.keys(PREAMBLES).join(', ')})`);
    } else if (key === 'config' && value) out.config = value;
    else if (key === 'file' && value) {
      if (!/^[\w-]+\.ts$/.test(value)) throw new Error(`file=${value}: a plain .ts file name`);
      out.file = value;
    } else if (key === 'typegen' && (value === 'input' || value === 'output')) out.typegen = value;
    else throw new Error(`unknown directive "${part}" (known: preamble=…, config=…, file=NAME.ts, typegen=input|output, skip REASON)`);
  }
  return out;
}

// --- sh ------------------------------------------------------------------------------------------

/** Shell words of one block, split into commands at `&&`, `||`, `;`, `|` and newlines; comments dropped. */
function shellCommands(code) {
  const commands = [];
  let words = [];
  let word = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endCommand = () => {
    endWord();
    if (words.length) commands.push(words);
    words = [];
  };
  const src = code.replace(/\\\n/g, ' ');
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unterminated ${c} quote`);
      word = (word ?? '') + src.slice(i + 1, end);
      i = end;
    } else if (c === '#' && word === null) {
      while (i < src.length && src[i] !== '\n') i++;
      endCommand();
    } else if (c === '\n' || c === ';') endCommand();
    else if (c === '&' || c === '|') {
      if (src[i + 1] === c) i++;
      else if (c === '&') throw new Error('background jobs (&) are not documented commands');
      endCommand();
    } else if (c === ' ' || c === '\t') endWord();
    else word = (word ?? '') + c;
  }
  endCommand();
  return commands;
}

function knownPackage(name) {
  const platformNames = readdirSync(path.join(root, 'npm')).map((d) => JSON.parse(readFileSync(path.join(root, 'npm', d, 'package.json'), 'utf8')).name);
  return (
    name === pkg.name ||
    platformNames.includes(name) ||
    Object.hasOwn(pkg.devDependencies ?? {}, name) ||
    Object.hasOwn(pkg.peerDependencies ?? {}, name)
  );
}

/** `name`, `name@range` or `alias@npm:name@range` → the package npm installs. */
function installedName(spec) {
  const alias = /^(@?[^@]+)@npm:(@?[^@]+)/.exec(spec);
  if (alias) return alias[2];
  return /^(@?[^@]+)/.exec(spec)[1];
}

function checkCli(args) {
  const parsed = parseArgs(args);
  if ((parsed.command === 'call' && parsed.operands[2] !== undefined) || (parsed.command === 'prompt' && parsed.operands[2] !== undefined)) {
    parseJsonArgs(parsed.operands[2], 'json-args');
  }
}

const benchScenarios = () => [...readFileSync(path.join(root, 'bench/run.mjs'), 'utf8').matchAll(/name: '([^']+)'/g)].map((m) => m[1]);

function checkBench(args) {
  const scenarios = benchScenarios();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--quick' || a === '--verbose') continue;
    if (a === '--only') {
      if (!scenarios.includes(args[++i])) throw new Error(`bench: unknown scenario "${args[i]}" (known: ${scenarios.join(', ')})`);
    } else if (a === '--pairs') {
      if (!(Number(args[++i]) > 0)) throw new Error('bench: --pairs needs a positive number');
    } else throw new Error(`bench: unknown argument ${a}`);
  }
}

const pathLike = (w) => !w.startsWith('-') && (w.includes('/') || /\.(m?js|cjs)$/.test(w));
const mustExist = (p) => {
  if (!existsSync(path.join(root, p))) throw new Error(`${p} does not exist`);
};

/** Throws when one command of a `sh` block is stale. */
function checkCommand(words) {
  const w = [...words];
  while (w.length && /^[A-Z_][A-Z0-9_]*=/.test(w[0])) w.shift();
  const [cmd, ...args] = w;
  const rest = (from) => {
    const dd = args.indexOf('--');
    return dd < 0 ? [] : args.slice(dd + 1);
  };
  switch (cmd) {
    case 'npm': {
      const [sub, ...more] = args;
      if (sub === 'ci' || sub === 'pack') return;
      if (sub === 'test' || sub === 't') {
        if (!pkg.scripts.test) throw new Error('package.json has no test script');
        return;
      }
      if (sub === 'run' || sub === 'run-script') {
        const script = more[0];
        if (!Object.hasOwn(pkg.scripts, script)) throw new Error(`npm run ${script}: package.json has no such script (has: ${Object.keys(pkg.scripts).join(', ')})`);
        if (script === 'cli') checkCli(rest());
        else if (script === 'bench' || script === 'bench:quick') checkBench(rest());
        else if (rest().length) throw new Error(`npm run ${script} -- …: arguments not checked for this script`);
        return;
      }
      if (sub === 'i' || sub === 'install' || sub === 'add') {
        const specs = more.filter((a) => !a.startsWith('-'));
        for (const spec of specs) if (!knownPackage(installedName(spec))) throw new Error(`npm ${sub} ${spec}: not this package or one it knows`);
        return;
      }
      throw new Error(`npm ${sub}: not a command the docs checker knows`);
    }
    case 'npx':
      if (args[0] === 'mastra-mcp') return checkCli(args.slice(1));
      throw new Error(`npx ${args[0]}: not a command the docs checker knows`);
    case 'mastra-mcp':
      return checkCli(args);
    case 'node':
    case 'node_modules/.bin/node': {
      if (args.includes('--test')) {
        const files = args.filter(pathLike);
        if (!files.length) throw new Error('node --test without a file');
        files.forEach(mustExist);
        return;
      }
      const script = args.find(pathLike);
      if (!script) throw new Error('node without a script');
      mustExist(script);
      return;
    }
    case 'cargo': {
      const [sub] = args;
      if (!['test', 'build', 'check'].includes(sub)) throw new Error(`cargo ${sub}: not a command the docs checker knows`);
      const t = args.indexOf('--test');
      if (t >= 0) mustExist(`tests/${args[t + 1]}.rs`);
      return;
    }
    case 'cd':
      mustExist(args[0]);
      return;
    default:
      throw new Error(`${cmd}: not a command the docs checker knows (make the block \`text\`, or teach __test__/docs.test.mjs)`);
  }
}

function checkShell(code) {
  const commands = shellCommands(code);
  if (!commands.length) throw new Error('no command in the block');
  for (const words of commands) {
    try {
      checkCommand(words);
    } catch (e) {
      throw new Error(`\`${words.join(' ')}\`: ${e.message}`);
    }
  }
}

// --- json / jsonc ----------------------------------------------------------------------------------

/** Reads an MCP config example through our own parser; variables it names get placeholder values. */
async function checkConfig(code, file, dir) {
  const abs = path.join(dir, file);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, code);
  const env = {};
  const inputs = {};
  for (const m of code.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) env[m[1]] = 'placeholder';
  for (const m of code.matchAll(/\$\{input:([^}]+)\}/g)) inputs[m[1]] = 'placeholder';
  const options = { env, inputs, workspace: dir };
  const config = await readMCPConfigFile(abs, options);
  if (!Object.keys(config.servers).length) throw new Error('the config example defines no (enabled) server');
  const client = await MCPClient.fromConfigFile(abs, { ...options, id: `docs-test:${file}:${Math.random()}` });
  await client.disconnect();
  return config;
}

// --- links -----------------------------------------------------------------------------------------

/** GitHub's heading anchors (github-slugger): lower case, punctuation dropped, spaces to dashes, dups numbered. */
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Relative links outside code: [{ target, line }]. */
function relativeLinks(markdown) {
  const links = [];
  let inFence = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) return;
    const plain = line.replace(/`[^`]*`/g, '');
    for (const m of plain.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^(https?:|mailto:)/.test(m[1])) continue;
      links.push({ target: m[1], line: i + 1 });
    }
  });
  return links;
}

function checkLinks(file) {
  const problems = [];
  const pending = [];
  const text = readFileSync(path.join(root, file), 'utf8');
  for (const { target, line } of relativeLinks(text)) {
    const [p, anchor] = target.split('#');
    const resolved = p ? path.normalize(path.join(path.dirname(file), decodeURIComponent(p))) : file;
    const where = `${file}:${line}: ${target}`;
    if (!existsSync(path.join(root, resolved))) {
      if (PENDING_PAGES.includes(resolved.split(path.sep).join('/'))) pending.push(where);
      else problems.push(`${where}: ${resolved} does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith('.md') || statSync(path.join(root, resolved)).isDirectory()) {
      problems.push(`${where}: an anchor into something that is not a Markdown file`);
      continue;
    }
    if (!anchors(readFileSync(path.join(root, resolved), 'utf8')).has(anchor)) problems.push(`${where}: no heading "#${anchor}" in ${resolved}`);
  }
  return { problems, pending };
}

// --- tsc -------------------------------------------------------------------------------------------

/** Runs tsc --strict once over the given modules; returns { name → diagnostics[] } and the raw output. */
function typeCheck(modules) {
  const dir = path.join(root, 'target', 'docs-test');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const typings = path.join(root, 'index.d.ts');
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      paths: { '@mastra/mcp': [typings], 'mastra-mcp-native': [typings] },
    },
    files: modules.map((m) => m.name),
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  for (const m of modules) writeFileSync(path.join(dir, m.name), m.source);
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.error, undefined, 'tsc ran');
  assert.equal(r.signal, null, 'tsc was not killed');
  const byFile = new Map();
  let last;
  for (const line of r.stdout.split('\n')) {
    const m = /^(.*?\.m?ts)\((\d+),(\d+)\): (.*)$/.exec(line);
    if (!m) {
      // tsc's explanation of the diagnostic above, indented.
      if (last && line.trim()) last.message += `\n    ${line.trim()}`;
      continue;
    }
    const name = path.basename(m[1]);
    if (!byFile.has(name)) byFile.set(name, []);
    last = { line: Number(m[2]), message: m[4] };
    byFile.get(name).push(last);
  }
  return { byFile, stdout: r.stdout, status: r.status };
}

// --- the tests -------------------------------------------------------------------------------------

const files = docFiles();
const all = files.flatMap((file) => extractBlocks(readFileSync(path.join(root, file), 'utf8')).map((b) => ({ ...b, file })));
const where = (b) => `${b.file}:${b.line}`;

test('docs: every code block has a language the checker knows and a valid directive', () => {
  const problems = [];
  for (const b of all) {
    try {
      const d = parseDirective(b.directive);
      if (d.skip) {
        console.log(`# ${where(b)}: not checked: ${d.skip}`);
        continue;
      }
      if (!b.lang) throw new Error('a block without a language: use ts, js, sh, json, jsonc or text');
      if (!TS_LANGS.has(b.lang) && !SH_LANGS.has(b.lang) && !['json', 'jsonc', 'text'].includes(b.lang)) throw new Error(`language "${b.lang}" is not checked`);
      if (d.preamble && !TS_LANGS.has(b.lang)) throw new Error('preamble= applies to ts/js blocks only');
      if (b.lang === 'jsonc' && !d.config) throw new Error('a jsonc block must be an MCP config example: add <!-- docs-test: config=FILE -->');
      if (d.file && !TS_LANGS.has(b.lang)) throw new Error('file= applies to ts/js blocks only');
      if (d.typegen === 'input' && b.lang !== 'json') throw new Error('typegen=input applies to json blocks only');
      if (d.typegen === 'output' && !TS_LANGS.has(b.lang)) throw new Error('typegen=output applies to ts blocks only');
    } catch (e) {
      problems.push(`${where(b)}: ${e.message}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(all.length > 10, `found the code blocks (${all.length})`);
});

test('docs: every ts/js block type-checks under --strict against index.d.ts (and a stale one would not)', () => {
  const modules = [];
  for (const [i, b] of all.entries()) {
    if (!TS_LANGS.has(b.lang)) continue;
    const d = parseDirective(b.directive);
    if (d.skip) continue;
    const header = [`// ${where(b)}, extracted by __test__/docs.test.mjs`, ...(d.preamble ?? []).flatMap((p) => PREAMBLES[p])];
    const slug = b.file.replace(/[^A-Za-z0-9]+/g, '-');
    const name = d.file ?? `${slug}-L${b.line}-${i}.mts`;
    if (modules.some((m) => m.name === name)) throw new Error(`${where(b)}: file=${name} is also another block's name`);
    modules.push({ name, source: `${header.join('\n')}\n${b.code}export {};\n`, offset: header.length, block: b });
  }
  // The canary: a block calling a method index.d.ts does not have. tsc must reject it, which also proves
  // the blocks are checked against our typings (an unresolved '@mastra/mcp' would fail every block).
  const canary = {
    name: 'canary-stale-block.mts',
    source: "import { MCPClient } from '@mastra/mcp';\ndeclare const mcp: MCPClient;\nawait mcp.listToolz();\nexport {};\n",
  };
  const { byFile, stdout } = typeCheck([...modules, canary]);
  const problems = [];
  for (const m of modules) {
    for (const d of byFile.get(m.name) ?? []) problems.push(`${m.block.file}:${m.block.line + d.line - 1 - m.offset}: ${d.message}`);
  }
  assert.deepEqual(problems, [], `stale code blocks:\n${problems.join('\n')}`);
  const canaryErrors = byFile.get(canary.name) ?? [];
  assert.ok(
    canaryErrors.some((d) => /listToolz/.test(d.message)),
    `tsc did not reject a call of a method index.d.ts lacks; its output:\n${stdout}`,
  );
  assert.ok(modules.length >= 5, `type-checked the ts/js blocks (${modules.length})`);
});

test('docs: every sh block names scripts, files, packages and CLI arguments that exist (and a stale one would not)', () => {
  const problems = [];
  let checked = 0;
  for (const b of all) {
    if (!SH_LANGS.has(b.lang) || parseDirective(b.directive).skip) continue;
    try {
      checkShell(b.code);
      checked++;
    } catch (e) {
      problems.push(`${where(b)}: ${e.message}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked >= 5, `checked the sh blocks (${checked})`);
  // The checker itself rejects stale commands.
  for (const stale of ['npm run no-such-script', 'node scripts/no-such-file.mjs', 'npx mastra-mcp cal example echo', 'npx mastra-mcp call example echo {bad', 'npm run bench -- --only no-such-scenario', 'make all']) {
    assert.throws(() => checkShell(stale), undefined, `rejects: ${stale}`);
  }
});

test('docs: every json/jsonc block parses, and MCP config examples pass our config-file parser', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'docs-test-'));
  const problems = [];
  let configs = 0;
  try {
    for (const [i, b] of all.entries()) {
      if (b.lang !== 'json' && b.lang !== 'jsonc') continue;
      const d = parseDirective(b.directive);
      if (d.skip) continue;
      try {
        let isConfig = Boolean(d.config);
        if (b.lang === 'json') {
          const value = JSON.parse(b.code);
          isConfig ||= value && typeof value === 'object' && ('mcpServers' in value || 'servers' in value);
        }
        if (isConfig) {
          await checkConfig(b.code, path.join(String(i), d.config ?? 'mcp.json'), dir);
          configs++;
        }
      } catch (e) {
        problems.push(`${where(b)}: ${e.message}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(problems, []);
  assert.ok(configs >= 2, `read the config examples (${configs})`);
});

test('docs: every sample generated file is exactly what generateToolTypes writes for the catalog above it', async () => {
  const problems = [];
  let checked = 0;
  for (const file of files) {
    let input;
    for (const b of all.filter((x) => x.file === file)) {
      const d = parseDirective(b.directive);
      if (d.skip) continue;
      if (d.typegen === 'input') input = b;
      if (d.typegen !== 'output') continue;
      if (!input) {
        problems.push(`${where(b)}: typegen=output without a typegen=input block above it`);
        continue;
      }
      const generated = await generateToolTypes(JSON.parse(input.code));
      if (generated !== b.code) {
        const a = generated.split('\n');
        const c = b.code.split('\n');
        const k = Math.max(a.length, c.length) === a.length ? a.findIndex((l, n) => l !== c[n]) : c.findIndex((l, n) => l !== a[n]);
        problems.push(`${where(b)}: differs from generateToolTypes(${where(input)}) from line ${b.line + k}:\n  page:      ${JSON.stringify(c[k])}\n  generated: ${JSON.stringify(a[k])}`);
      }
      checked++;
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked >= 1, `compared the sample generated files (${checked})`);
});

test('docs: every relative link resolves to a file and heading', () => {
  const problems = [];
  const pending = [];
  for (const file of [...files, 'bench/README.md']) {
    const r = checkLinks(file);
    problems.push(...r.problems);
    pending.push(...r.pending);
  }
  for (const p of pending) console.log(`# pending page (allowed by PENDING_PAGES): ${p}`);
  assert.deepEqual(problems, []);
});

test('docs: every repository path the docs name exists, and docs/architecture.md names every source file', () => {
  const problems = [];
  const top = /^(?:src|lib|scripts|bench|__test__|tests|npm|examples|bin|docs|\.github|\.ci)\/[\w.\/-]*$|^(?:index\.d\.ts|index\.js|index\.mjs|package\.json|Cargo\.toml|build\.rs)$/;
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8').replace(/^\s*(`{3,}|~{3,})[\s\S]*?^\s*\1\s*$/gm, '');
    for (const m of text.matchAll(/`([^`\n]+)`/g)) {
      const p = m[1].replace(/\/$/, '');
      if (top.test(m[1]) && !existsSync(path.join(root, p))) problems.push(`${file}: \`${m[1]}\` does not exist`);
    }
  }
  // A source file is covered when the page names it, or a folder it is in (`auth/`, `lib/cli/`), in backticks,
  // relative to the repository or to src/core/.
  const arch = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const named = new Set([...arch.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]));
  const walk = (dir) =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
  for (const f of [...walk('src'), ...walk('lib')]) {
    if (/\/(mod|tests)\.rs$/.test(f)) continue;
    const forms = [f, f.replace(/^src\/core\//, '')];
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/') + '/';
      if (!['src/', 'src/core/', 'src/node/', 'lib/'].includes(dir)) forms.push(dir, dir.replace(/^src\/core\//, ''));
    }
    if (!forms.some((n) => named.has(n))) problems.push(`docs/architecture.md does not name ${f} (nor a folder it is in)`);
  }
  assert.deepEqual(problems, []);
});

// The test table of docs/architecture.md ("Running the tests fast"): its files column names each suite as
// `<name>` (for `__test__/<name>.test.mjs`), notes in parentheses; every suite is named, and every name is a suite.
function testTableNames(arch) {
  const lines = arch.split('\n');
  const start = lines.findIndex((l) => /^\|\s*group\s*\|\s*files\s*\|/.test(l));
  assert.ok(start >= 0, 'docs/architecture.md has a test table (| group | files |)');
  const names = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    let files = line.split('|')[2] ?? '';
    // Notes in parentheses (which may nest) name things that are not suites.
    for (let prev; prev !== files; ) [prev, files] = [files, files.replace(/\([^()]*\)/g, '')];
    names.push(...[...files.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]));
  }
  return names;
}

test('docs: the test table of docs/architecture.md names every __test__/*.test.mjs file, and only those', () => {
  const named = testTableNames(readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
  const suites = readdirSync(path.join(root, '__test__'))
    .filter((f) => f.endsWith('.test.mjs'))
    .map((f) => f.slice(0, -'.test.mjs'.length));
  const problems = [
    ...suites.filter((s) => !named.includes(s)).map((s) => `the test table does not name __test__/${s}.test.mjs`),
    ...named.filter((n) => !suites.includes(n)).map((n) => `the test table names \`${n}\`, but there is no __test__/${n}.test.mjs`),
    ...named.filter((n, i) => named.indexOf(n) !== i).map((n) => `the test table names \`${n}\` twice`),
  ];
  assert.deepEqual(problems, []);
});

test('docs: README is one screen, names the two commands, and every docs/ page is one click from the index', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const lines = readme.trimEnd().split('\n').length;
  assert.ok(lines <= 60, `README.md is ${lines} lines; keep it to one screen (≤ 60) and move reference material to docs/`);
  // CI (.ci/run) runs the README's test command.
  assert.match(readme, /^npm ci && npm run demo\b/m);
  assert.match(readme, /^npm ci && npm test\b/m);
  const index = readFileSync(path.join(root, 'docs/README.md'), 'utf8');
  const linked = new Set(relativeLinks(index).map((l) => path.normalize(path.join('docs', l.target.split('#')[0]))));
  const pages = [...files.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md'), ...PENDING_PAGES];
  const missing = pages.filter((p) => !linked.has(path.normalize(p)));
  assert.deepEqual(missing, [], 'pages docs/README.md does not link');
  assert.match(readme, /\]\(docs\/README\.md\)/, 'README links the docs index');
});

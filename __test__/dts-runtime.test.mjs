// Typings and runtime agree: every function and class exported by index.d.ts exists in both
// entries (CommonJS and ESM), every declared method and getter of each class exists on its
// instances (and every method of the action objects its getters return), and the sync/async shape matches — a declared `Promise<…>` return ⇔ the call
// returns a thenable; anything else returns a plain value (or throws synchronously); a declared
// `T | Promise<T>` may do either. Each
// function and method is called with no arguments (safe: bad input rejects or throws), against a
// client whose only server exits at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import ts from 'typescript';
import * as esm from '../index.mjs';

const require = createRequire(import.meta.url);
const cjs = require('../index.js');
const source = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');
const file = ts.createSourceFile('index.d.ts', source, ts.ScriptTarget.Latest, true);

const hasModifier = (node, kind) => node.modifiers?.some((m) => m.kind === kind) ?? false;
/** true: declared `Promise<…>`; false: declared synchronous; 'either': a union with a Promise. */
const returnsPromise = (node) => {
  const type = node.type?.getText(file) ?? '';
  if (/^Promise\s*</.test(type)) return true;
  return /\bPromise\s*</.test(type) ? 'either' : false;
};
const merge = (a, b) => (a === undefined ? b : a === b ? a : 'either');

/** `{ functions: Map<name, async>, classes: Map<name, { methods: Map<name, async>, getters: Set }> }` */
function declaredSurface() {
  const functions = new Map();
  const classes = new Map();
  const consts = new Set();
  const interfaces = new Map();
  for (const st of file.statements) {
    if (!hasModifier(st, ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isInterfaceDeclaration(st)) {
      const methods = new Map();
      for (const m of st.members) {
        if (ts.isMethodSignature(m) && ts.isIdentifier(m.name)) methods.set(m.name.text, merge(methods.get(m.name.text), returnsPromise(m)));
      }
      interfaces.set(st.name.text, methods);
    } else if (ts.isFunctionDeclaration(st) && st.name) {
      functions.set(st.name.text, merge(functions.get(st.name.text), returnsPromise(st)));
    } else if (ts.isClassDeclaration(st) && st.name) {
      const methods = new Map();
      const getters = new Map(); // name -> declared type text
      for (const m of st.members) {
        if (hasModifier(m, ts.SyntaxKind.StaticKeyword) || hasModifier(m, ts.SyntaxKind.PrivateKeyword)) continue;
        if (ts.isMethodDeclaration(m) && m.name && ts.isIdentifier(m.name)) {
          methods.set(m.name.text, merge(methods.get(m.name.text), returnsPromise(m)));
        } else if ((ts.isGetAccessorDeclaration(m) || ts.isPropertyDeclaration(m)) && ts.isIdentifier(m.name)) {
          getters.set(m.name.text, m.type?.getText(file) ?? '');
        }
      }
      classes.set(st.name.text, { methods, getters });
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) consts.add(d.name.text);
    }
  }
  return { functions, classes, consts, interfaces };
}

const surface = declaredSurface();
const quitServer = () => ({ command: process.execPath, args: ['-e', 'process.exit(0)'] });
const toDispose = [];
after(async () => {
  for (const d of toDispose) await d().catch(() => {});
});

/** One instance per declared class, built as user code would. */
const factories = {
  MCPClient: (m, tag) => {
    const c = new m.MCPClient({ id: `dts-runtime-${tag}`, servers: { s: quitServer() } });
    toDispose.push(() => c.disconnect());
    return c;
  },
  InternalMastraMCPClient: (m) => {
    const c = new m.InternalMastraMCPClient({ name: 's', server: quitServer() });
    toDispose.push(() => c.disconnect());
    return c;
  },
  MCPClientServerProxy: (m, tag) => {
    const client = factories.MCPClient(m, `${tag}-proxy`);
    return new m.MCPClientServerProxy({ name: 's', id: 's' }, client, 's');
  },
  InMemoryOAuthStorage: (m) => new m.InMemoryOAuthStorage(),
  MCPOAuthClientProvider: (m) =>
    new m.MCPOAuthClientProvider({
      redirectUrl: 'http://127.0.0.1:9/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'dts-runtime' },
      onRedirectToAuthorization: () => {},
    }),
  UnauthorizedError: (m) => new m.UnauthorizedError('unauthorized'),
  // A store is made by createMCPStore (its database is opened on first use: nothing is created here).
  MCPStore: (m) => m.createMCPStore(`file:${path.join(os.tmpdir(), `dts-runtime-${process.pid}`, 'never-opened.db')}`),
  MCPStoreError: (m) => {
    try {
      m.createMCPStore('postgres://127.0.0.1/db');
    } catch (e) {
      return e;
    }
    throw new Error('createMCPStore accepted a network store without a secret');
  },
  // Every optional field set, so that each declared member can be checked.
  MCPConfigError: (m) =>
    new m.MCPConfigError({
      message: 'mcp.json:3:7: server "a": env.TOKEN: ${input:token} has no value',
      code: 'MISSING_INPUT',
      file: 'mcp.json',
      server: 'a',
      field: 'env.TOKEN',
      line: 3,
      column: 7,
      input: 'token',
      envVar: 'MCP_INPUT_TOKEN',
    }),
};

const isThenable = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';

/** Calls `fn` with no arguments; returns 'thenable', 'value' or 'threw'. */
function shapeOf(fn, self) {
  let result;
  try {
    result = fn.call(self);
  } catch {
    return 'threw';
  }
  if (isThenable(result)) {
    result.then(undefined, () => {});
    return 'thenable';
  }
  return 'value';
}

function findMember(obj, name) {
  for (let o = obj; o; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d) return d;
  }
  return undefined;
}

test('index.d.ts declares a surface to check', () => {
  assert.ok(surface.functions.size >= 15, `functions: ${[...surface.functions.keys()]}`);
  assert.ok(surface.classes.has('MCPClient') && surface.classes.has('InternalMastraMCPClient'));
  assert.deepEqual(Object.keys(factories).sort(), [...surface.classes.keys()].sort(), 'a factory for every declared class');
});

for (const [entry, m] of Object.entries({ cjs, esm })) {
  test(`${entry}: every declared constant, function and class exists`, () => {
    for (const name of surface.consts) assert.notEqual(m[name], undefined, `const ${name}`);
    for (const name of surface.functions.keys()) assert.equal(typeof m[name], 'function', `function ${name}`);
    for (const name of surface.classes.keys()) assert.equal(typeof m[name], 'function', `class ${name}`);
  });

  test(`${entry}: declared functions have the declared sync/async shape`, () => {
    for (const [name, isAsync] of surface.functions) {
      const fn = m[name];
      if (isAsync === 'either') continue;
      if (fn.constructor.name === 'AsyncFunction') {
        assert.ok(isAsync, `${name} is async at run time but declared synchronous`);
        continue;
      }
      const shape = shapeOf(fn, undefined);
      if (isAsync) assert.equal(shape, 'thenable', `${name} is declared to return a Promise`);
      else assert.notEqual(shape, 'thenable', `${name} is declared synchronous but returned a thenable`);
    }
  });

  test(`${entry}: declared class members exist with the declared sync/async shape`, async () => {
    let actionMethodsChecked = 0;
    for (const [cls, { methods, getters }] of surface.classes) {
      const instance = factories[cls](m, entry);
      assert.ok(instance instanceof m[cls], `${cls} instance`);
      for (const [g, type] of getters) {
        const d = findMember(instance, g);
        assert.ok(d && (d.get || 'value' in d), `${cls}#${g} exists`);
        // A getter typed as one of our interfaces of methods (resources, prompts, ...): each
        // declared method exists on the returned object with the declared shape.
        const methodsOfType = surface.interfaces.get(type);
        if (!methodsOfType || methodsOfType.size === 0) continue;
        const value = instance[g];
        for (const [name, isAsync] of methodsOfType) {
          actionMethodsChecked++;
          assert.equal(typeof value?.[name], 'function', `${cls}#${g}.${name} is a function`);
          if (isAsync === 'either') continue;
          if (value[name].constructor.name === 'AsyncFunction') {
            assert.ok(isAsync, `${cls}#${g}.${name} is async at run time but declared synchronous`);
            continue;
          }
          const shape = shapeOf(value[name], value);
          if (isAsync) assert.equal(shape, 'thenable', `${cls}#${g}.${name} is declared to return a Promise`);
          else assert.notEqual(shape, 'thenable', `${cls}#${g}.${name} is declared synchronous but returned a thenable`);
        }
      }
      for (const [name, isAsync] of methods) {
        const d = findMember(instance, name);
        assert.equal(typeof d?.value, 'function', `${cls}#${name} is a method`);
        if (isAsync === 'either') continue;
        if (d.value.constructor.name === 'AsyncFunction') {
          assert.ok(isAsync, `${cls}#${name} is async at run time but declared synchronous`);
          continue;
        }
        const shape = shapeOf(d.value, instance);
        if (isAsync) assert.equal(shape, 'thenable', `${cls}#${name} is declared to return a Promise`);
        else assert.notEqual(shape, 'thenable', `${cls}#${name} is declared synchronous but returned a thenable`);
      }
    }
    assert.ok(actionMethodsChecked >= 25, `the action objects were checked (${actionMethodsChecked} methods)`);
  });
}

// An IDE hover is most users' documentation: every exported declaration of index.d.ts, and every
// public member of its classes, carries a JSDoc comment whose first line says what it is (text,
// not a bare `@tag`).
/** Names in `sf` (top-level exports, and `Class#member`s) without such a comment. */
function undocumented(sf) {
  const summary = (node) => {
    const docs = ts.getJSDocCommentsAndTags(node).filter((d) => d.kind === ts.SyntaxKind.JSDoc);
    const text = ts.getTextOfJSDocComment(docs.at(-1)?.comment) ?? '';
    return text.split('\n')[0].trim();
  };
  const missing = [];
  for (const st of sf.statements) {
    if (!hasModifier(st, ts.SyntaxKind.ExportKeyword)) continue;
    const name = st.name?.text ?? st.declarationList?.declarations.map((d) => d.name.getText(sf)).join(',');
    if (!summary(st)) missing.push(name);
    if (!ts.isClassDeclaration(st)) continue;
    for (const m of st.members) {
      if (hasModifier(m, ts.SyntaxKind.PrivateKeyword) || m.name?.kind === ts.SyntaxKind.PrivateIdentifier) continue;
      if (!summary(m)) missing.push(`${name}#${m.name?.getText(sf) ?? 'constructor'}`);
    }
  }
  return missing;
}

test('index.d.ts: every export and every public class member has a one-line doc comment', () => {
  assert.deepEqual(undocumented(file), []);
  // The check itself catches a missing comment, a tag-only comment and an undocumented member.
  const canary = ts.createSourceFile(
    'canary.d.ts',
    [
      'export type A = 1;',
      '/** @internal */',
      'export type B = 2;',
      '/** Documented. */',
      'export declare class C {',
      '  /** Documented. */',
      '  constructor();',
      '  m(): void;',
      '  get g(): number;',
      '}',
      '/** Documented. */',
      'export declare const D: 1;',
    ].join('\n'),
    ts.ScriptTarget.Latest,
    true,
  );
  assert.deepEqual(undocumented(canary), ['A', 'B', 'C#m', 'C#g']);
});

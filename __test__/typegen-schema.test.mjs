// generateToolTypes (the package export) over the schema shapes servers write: the TypeScript it
// emits compiles under `tsc --strict` and means what the schema means (checked by a program of
// type assertions and @ts-expect-error cases against the generated file, and by the negative cases
// unmarked: one error each); what TypeScript cannot express becomes `unknown` with a comment;
// names that are not identifiers are quoted or converted; the output is deterministic.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { generateToolTypes } from '../index.mjs';

const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mastra-mcp-typegen-schema-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const obj = (properties, required = Object.keys(properties), extra = {}) => ({ type: 'object', properties, required, ...extra });
const def = (name, inputSchema, extra = {}) => ({ name, inputSchema, ...extra, server: { name: 'shapes', version: '1.0.0' } });

const shapes = {
  objects: def(
    'objects',
    obj(
      { name: { type: 'string', description: 'Who */ is it' }, age: { type: 'integer' }, 'first-name': { type: 'string' }, '2fa': { type: 'boolean' } },
      ['name', 'first-name'],
      { additionalProperties: false },
    ),
    { description: 'Objects: required and optional, names that are not identifiers. A */ in a description.' },
  ),
  literals: def('literals', obj({ color: { enum: ['red', 'green', 1, null] }, kind: { const: 'fixed' }, flag: { const: true }, point: { const: { x: 1 } } })),
  arrays: def(
    'arrays',
    obj({
      tags: { type: 'array', items: { type: 'string' } },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 },
      open: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' }, minItems: 1 },
      legacy: { type: 'array', items: [{ type: 'boolean' }, { type: 'string' }], additionalItems: false, minItems: 2 },
      short: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 1, maxItems: 2 },
      anything: { type: 'array' },
    }),
  ),
  combinators: def(
    'combinators',
    obj({
      id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      shape: {
        oneOf: [
          obj({ kind: { const: 'circle' }, r: { type: 'number' } }, undefined, { additionalProperties: false }),
          obj({ kind: { const: 'square' }, side: { type: 'number' } }, undefined, { additionalProperties: false }),
        ],
      },
      both: { allOf: [obj({ a: { type: 'string' } }), obj({ b: { type: 'number' } })] },
      maybe: { type: ['string', 'null'] },
      legacyNullable: { type: 'string', nullable: true },
    }),
  ),
  refs: def('refs', {
    type: 'object',
    $defs: { Node: obj({ value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }) },
    properties: { tree: { $ref: '#/$defs/Node' } },
    required: ['tree'],
  }),
  draft07: def('draft07', {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    definitions: { Item: obj({ sku: { type: 'string' } }) },
    properties: { items: { type: 'array', items: { $ref: '#/definitions/Item' } } },
    required: ['items'],
  }),
  self: def('self', obj({ name: { type: 'string' }, parent: { $ref: '#' } }, ['name'])),
  maps: def(
    'maps',
    obj(
      {
        scores: { type: 'object', additionalProperties: { type: 'number' } },
        closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        free: { type: 'object' },
        mixed: { type: 'object', properties: { known: { type: 'string' } }, required: ['known'], additionalProperties: { type: 'number' } },
        patterned: { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
        email: { type: 'string', format: 'email' },
      },
      ['scores', 'closed', 'free', 'mixed', 'patterned', 'email'],
    ),
  ),
  inexpressible: def('inexpressible', {
    type: 'object',
    $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } },
    properties: {
      notString: { not: { type: 'string' } },
      external: { $ref: 'https://example.com/schema.json' },
      dangling: { $ref: '#/$defs/Missing' },
      loop: { $ref: '#/$defs/A' },
      weird: { type: 'date' },
    },
    required: ['notString', 'external', 'dangling', 'loop', 'weird'],
  }),
  'no-output': def('no-output', obj({})),
  'with-output': def('with-output', obj({}), { outputSchema: obj({ ok: { type: 'boolean' }, note: { type: 'string' } }, ['ok']) }),
};
const catalog = {
  shapes,
  'my server': { 'do.thing': { ...def('do.thing', obj({ x: { type: 'number' } })), server: { name: 'my server' } } },
  calc: {
    get_sum: { ...def('get_sum', obj({ a: { type: 'number' } })), server: { name: 'calc', version: '0.1' } },
    'get-sum': { ...def('get-sum', obj({ b: { type: 'number' } })), server: { name: 'calc', version: '0.1' } },
  },
};

const CHECK = `import type * as T from './types.gen';
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
type Assert<X extends true> = X;
type In<K extends keyof T.MCPServers['shapes']['tools']> = T.MCPServers['shapes']['tools'][K]['input'];

export type Checks = [
  Assert<Equal<In<'objects'>, T.ShapesObjectsInput>>,
  Assert<Equal<T.ShapesObjectsInput, { name: string; age?: number; 'first-name': string; '2fa'?: boolean }>>,
  Assert<Equal<T.ShapesLiteralsInput, { color: 'red' | 'green' | 1 | null; kind: 'fixed'; flag: true; point: { x: 1 } }>>,
  Assert<Equal<T.ShapesArraysInput['tags'], string[]>>,
  Assert<Equal<T.ShapesArraysInput['pair'], [string, number]>>,
  Assert<Equal<T.ShapesArraysInput['open'], [string, ...number[]]>>,
  Assert<Equal<T.ShapesArraysInput['legacy'], [boolean, string]>>,
  Assert<Equal<T.ShapesArraysInput['short'], [string, number?]>>,
  Assert<Equal<T.ShapesArraysInput['anything'], unknown[]>>,
  Assert<Equal<T.ShapesCombinatorsInput['id'], string | number>>,
  Assert<Equal<T.ShapesCombinatorsInput['shape'], { kind: 'circle'; r: number } | { kind: 'square'; side: number }>>,
  Assert<Equal<T.ShapesCombinatorsInput['maybe'], string | null>>,
  Assert<Equal<T.ShapesCombinatorsInput['legacyNullable'], string | null>>,
  Assert<Equal<T.ShapesRefsInput['tree'], T.ShapesRefsNode>>,
  Assert<Equal<T.ShapesRefsNode['children'][number]['children'][number]['value'], number>>,
  Assert<Equal<T.ShapesDraft07Input['items'][number], T.ShapesDraft07Item>>,
  Assert<Equal<T.ShapesSelfInput['parent'], T.ShapesSelfInput | undefined>>,
  Assert<Equal<T.ShapesMapsInput['scores'], { [key: string]: number }>>,
  Assert<Equal<T.ShapesMapsInput['free'], { [key: string]: unknown }>>,
  Assert<Equal<T.ShapesMapsInput['mixed']['known'], string>>,
  Assert<Equal<T.ShapesMapsInput['mixed']['other'], string | number>>,
  Assert<Equal<T.ShapesMapsInput['patterned'], { [key: string]: string }>>,
  Assert<Equal<T.ShapesMapsInput['email'], string>>,
  Assert<Equal<T.ShapesInexpressibleInput, { notString: unknown; external: unknown; dangling: unknown; loop: unknown; weird: unknown }>>,
  Assert<Equal<T.ShapesNoOutputOutput, unknown>>,
  Assert<Equal<T.ShapesNoOutputInput, Record<string, never>>>,
  Assert<Equal<T.ShapesWithOutputOutput, { ok: boolean; note?: string }>>,
  Assert<Equal<T.MCPServers['my server']['tools']['do.thing']['input'], T.MyServerDoThingInput>>,
  Assert<Equal<T.CalcGetSumInput, { b: number }>>,
  Assert<Equal<T.CalcGetSumInput2, { a: number }>>,
  Assert<Equal<T.MCPToolName, 'calc_get-sum' | 'calc_get_sum' | 'my server_do.thing' | \`shapes_\${keyof typeof shapeNames}\`>>,
];
declare const shapeNames: Record<${Object.keys(shapes)
  .map((n) => JSON.stringify(n))
  .join(' | ')}, 1>;

export const values = {
  both: { a: 'x', b: 1 } satisfies T.ShapesCombinatorsInput['both'],
  tree: { value: 1, children: [{ value: 2, children: [] }] } satisfies T.ShapesRefsNode,
  closed: { a: 'x' } satisfies T.ShapesMapsInput['closed'],
  mixed: { known: 'k', extra: 3 } satisfies T.ShapesMapsInput['mixed'],
};

// @ts-expect-error a required property is missing
export const e1: T.ShapesObjectsInput = { name: 'x' };
// @ts-expect-error additionalProperties: false, and TypeScript's excess-property check
export const e2: T.ShapesObjectsInput = { name: 'x', 'first-name': 'y', nickname: 'z' };
// @ts-expect-error an enum admits only its values
export const e3: T.ShapesLiteralsInput['color'] = 'blue';
// @ts-expect-error a closed tuple has no third element
export const e4: T.ShapesArraysInput['pair'] = ['a', 1, 2];
// @ts-expect-error an allOf needs every part
export const e5: T.ShapesCombinatorsInput['both'] = { a: 'x' };
// @ts-expect-error a oneOf member is not mixed with another
export const e6: T.ShapesCombinatorsInput['shape'] = { kind: 'circle', side: 2 };
// @ts-expect-error recursion keeps its types all the way down
export const e7: T.ShapesRefsNode = { value: 1, children: [{ value: 'two', children: [] }] };
// @ts-expect-error typed additionalProperties
export const e8: T.ShapesMapsInput['scores'] = { a: 'high' };
// @ts-expect-error a tool with no properties takes none
export const e9: T.ShapesNoOutputInput = { anything: 1 };
`;

function tsc(files) {
  const compilerOptions = { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: [] };
  fs.writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  const r = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: tmp, encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.error, undefined, 'tsc ran');
  return r;
}

test('the schema shapes servers write compile under tsc --strict and mean what the schemas say', { timeout: 300_000 }, async () => {
  fs.writeFileSync(path.join(tmp, 'types.gen.ts'), await generateToolTypes(catalog));
  fs.writeFileSync(path.join(tmp, 'check.ts'), CHECK);
  const lines = CHECK.split('\n');
  const marked = lines.flatMap((l, i) => (/^\/\/ @ts-expect-error /.test(l) ? [i + 2] : []));
  fs.writeFileSync(path.join(tmp, 'negative.ts'), lines.map((l) => l.replace(/^\/\/ @ts-expect-error /, '// negative case: ')).join('\n'));

  const ok = tsc(['types.gen.ts', 'check.ts']);
  assert.equal(ok.stdout.trim(), '', 'no diagnostics');
  assert.equal(ok.status, 0);

  const bad = tsc(['types.gen.ts', 'negative.ts']);
  const errorLines = bad.stdout
    .split('\n')
    .map((l) => l.match(/^negative\.ts\((\d+),\d+\): error/))
    .filter(Boolean)
    .map((m) => Number(m[1]));
  assert.deepEqual(errorLines, marked, `one error per negative case:\n${bad.stdout}`);
});

test('what TypeScript cannot express is `unknown` with a comment saying why; names are quoted or converted', async () => {
  const source = await generateToolTypes(catalog);
  const inexpressible = source.slice(source.indexOf('export type ShapesInexpressibleInput'), source.indexOf('export type ShapesInexpressibleOutput'));
  assert.match(inexpressible, /notString: unknown \/\* `not` has no TypeScript form \*\/;/);
  assert.match(inexpressible, /external: unknown \/\* external \$ref "https:\/\/example\.com\/schema\.json" is not resolved \*\/;/);
  assert.match(inexpressible, /dangling: unknown \/\* \$ref "#\/\$defs\/Missing" does not resolve \*\/;/);
  assert.match(inexpressible, /weird: unknown \/\* unknown type "date" \*\/;/);
  assert.match(source, /export type ShapesInexpressibleA = unknown \/\* circular \$ref with no object or array in between/);
  assert.match(source, /  "first-name": string;\n/);
  assert.match(source, /  "2fa"\?: boolean;\n/);
  assert.match(source, /  "my server": \{\n    tools: \{\n      "do\.thing": \{ input: MyServerDoThingInput; output: MyServerDoThingOutput \};/);
  assert.match(source, /Who \*\\\/ is it/, 'a */ inside a description cannot end the comment');
  assert.match(source, /\/\*\* @format email \*\/\n  email: string;/);
  assert.match(source, /^\/\* eslint-disable \*\/\n\/\/ Generated by `mastra-mcp typegen`/);
  assert.match(source, /\/\/ - calc 0\.1 \(2 tools\)\n\/\/ - my server \(1 tool\)\n\/\/ - shapes 1\.0\.0 \(11 tools\)\n/);
});

test('the output is deterministic: same catalog, same bytes, whatever the order servers and tools came in', async () => {
  const reversed = Object.fromEntries(
    Object.keys(catalog)
      .reverse()
      .map((s) => [s, Object.fromEntries(Object.entries(catalog[s]).reverse())]),
  );
  const a = await generateToolTypes(catalog);
  assert.equal(await generateToolTypes(structuredClone(catalog)), a);
  assert.equal(await generateToolTypes(reversed), a);
  assert.ok(a.indexOf('CalcGetSumInput') < a.indexOf('MyServerDoThingInput'));
  assert.ok(a.indexOf('MyServerDoThingInput') < a.indexOf('ShapesArraysInput'));
});

test('options.banner replaces the banner; an empty catalog is a valid file; a catalog that is not one is refused', async () => {
  const custom = await generateToolTypes({}, { banner: '// my banner' });
  assert.equal(custom, '// my banner\n\n/**\n * Every server, its tools and their input and output types: the type argument of\n * `new MCPClient<MCPServers>({ servers })`.\n */\nexport interface MCPServers {}\n\n/** Namespaced tool names (`server_tool`), the keys of `listTools()`. */\nexport type MCPToolName = never;\n');
  await assert.rejects(generateToolTypes(), TypeError);
  await assert.rejects(generateToolTypes([]), TypeError);
  await assert.rejects(generateToolTypes({ s: { t: null } }), /catalog\["s"\]\["t"\] must be a tool definition/);
});

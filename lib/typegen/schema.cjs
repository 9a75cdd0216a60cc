'use strict';
// JSON Schema -> TypeScript type text, for schemas as MCP servers write them (draft-07 from zod,
// 2020-12 from Pydantic, hand-written ones). Only `lib/typegen/` loads this file: MCPClient never does.
//
// The TypeScript a schema compiles to accepts at least every value the schema accepts (it may accept
// more: `pattern`, `minimum`, `not`, ... have no TypeScript form and are left out). What TypeScript
// cannot express becomes `unknown /* why */`, never a failure.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 64;

/** A property name as TypeScript source: bare when it is an identifier, else a quoted string. */
function propertyKey(name) {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A name as a PascalCase identifier part: split on what is not a letter or digit; deterministic. */
function pascalCase(name) {
  const text = String(name);
  let out = text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
  // Nothing ASCII in it: name it by its code points so that different names stay different.
  if (!out) out = `U${[...text].map((c) => c.codePointAt(0).toString(16)).join('_')}`;
  return /^[0-9]/.test(out) ? `_${out}` : out;
}

/** Text safe inside a block comment. */
function commentSafe(text) {
  return String(text).replace(/\*\//g, '*\\/');
}

/** A JSDoc block (or '' when there is nothing to say), each line prefixed with `indent`. */
function docComment(lines, indent) {
  const body = lines
    .flatMap((l) => commentSafe(l).replace(/\r\n?/g, '\n').split('\n'))
    .map((l) => l.replace(/\s+$/, ''));
  while (body.length && body[body.length - 1] === '') body.pop();
  while (body.length && body[0] === '') body.shift();
  if (!body.length) return '';
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join('\n')}\n${indent} */\n`;
}

/** What a property's or a type's schema says about itself, as doc lines. */
function schemaDocLines(schema) {
  if (!isObject(schema)) return [];
  const lines = [];
  if (typeof schema.description === 'string' && schema.description.trim()) lines.push(schema.description.trim());
  if (typeof schema.format === 'string') lines.push(`@format ${schema.format}`);
  if (schema.default !== undefined) lines.push(`@default ${oneLineJson(schema.default)}`);
  if (schema.deprecated === true) lines.push('@deprecated');
  return lines;
}

function oneLineJson(value) {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// A compiled type: its text and how tightly it binds ('atom' | 'intersection' | 'union').
const atom = (text) => ({ text, prec: 'atom' });
const UNKNOWN = atom('unknown');
const NEVER = atom('never');
const isUnknown = (t) => t.prec === 'atom' && /^unknown(\s|$)/.test(t.text);

function literal(value, indent) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'number';
    case 'boolean':
      return String(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map((v) => literal(v, indent)).join(', ')}]`;
      {
        const keys = Object.keys(value);
        if (!keys.length) return 'Record<string, never>';
        return `{ ${keys.map((k) => `${propertyKey(k)}: ${literal(value[k], indent)}`).join('; ')} }`;
      }
    default:
      return 'unknown';
  }
}

function union(members) {
  const seen = new Set();
  const list = [];
  for (const m of members) {
    if (isUnknown(m)) return m; // unknown absorbs the rest (and keeps its comment)
    if (m.text === 'never') continue;
    if (seen.has(m.text)) continue;
    seen.add(m.text);
    list.push(m);
  }
  if (!list.length) return NEVER;
  if (list.length === 1) return list[0];
  return { text: list.map((m) => m.text).join(' | '), prec: 'union' };
}

function intersection(members) {
  const seen = new Set();
  const list = [];
  let widened;
  for (const m of members) {
    if (isUnknown(m)) {
      widened ??= m;
      continue;
    }
    if (m.text === 'never') return NEVER;
    if (seen.has(m.text)) continue;
    seen.add(m.text);
    list.push(m);
  }
  if (!list.length) return widened ?? UNKNOWN;
  if (list.length === 1) return list[0];
  return { text: list.map((m) => (m.prec === 'union' ? `(${m.text})` : m.text)).join(' & '), prec: 'intersection' };
}

const arrayOf = (t) => atom(t.prec === 'atom' && !/\/\*/.test(t.text) ? `${t.text}[]` : `Array<${t.text}>`);

/**
 * Compiles one root schema (a tool's input or output schema) into declarations. `$ref`s into the
 * root (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer) become named declarations, so
 * recursion is expressed by name. `names.take(wanted)` hands out unique identifiers.
 */
class RootCompiler {
  constructor({ root, rootName, baseName, names, where, warnings }) {
    this.root = root;
    this.rootName = rootName;
    this.baseName = baseName;
    this.names = names;
    this.where = where;
    this.warnings = warnings;
    this.refNames = new Map([['', rootName]]); // JSON pointer -> declared name
    this.queue = [];
    this.unguarded = new Map(); // declared name -> names it references outside any object/array
  }

  widen(why) {
    this.warnings.push(`${this.where}: ${why}`);
    return atom(`unknown /* ${commentSafe(why)} */`);
  }

  /** @returns {{ name, doc, type }[]} the root first, then every referenced location. */
  compileAll(rootDoc) {
    const decls = [this.declare(this.rootName, this.root, rootDoc)];
    while (this.queue.length) {
      const { name, pointer, target } = this.queue.shift();
      decls.push(this.declare(name, target, schemaDocLines(target).concat(pointer ? [`(\`#${pointer}\` of ${this.where})`] : [])));
    }
    // A cycle of names none of which sits inside an object or array (`type A = B; type B = A`)
    // is not a legal TypeScript alias: those declarations widen to unknown.
    const cyclic = this.cyclicNames();
    for (const d of decls) {
      if (cyclic.has(d.name)) d.type = this.widen(`circular $ref with no object or array in between (${d.name})`);
    }
    return decls.map((d) => ({ name: d.name, doc: d.doc, type: d.type.text }));
  }

  declare(name, schema, doc) {
    this.current = new Set();
    this.unguarded.set(name, this.current);
    const type = this.compile(schema, '', 0, false);
    return { name, doc, type };
  }

  cyclicNames() {
    const cyclic = new Set();
    for (const start of this.unguarded.keys()) {
      const stack = [...(this.unguarded.get(start) ?? [])];
      const seen = new Set();
      while (stack.length) {
        const n = stack.pop();
        if (n === start) {
          cyclic.add(start);
          break;
        }
        if (seen.has(n)) continue;
        seen.add(n);
        stack.push(...(this.unguarded.get(n) ?? []));
      }
    }
    return cyclic;
  }

  ref(ref) {
    if (typeof ref !== 'string') return this.widen('$ref is not a string');
    if (!ref.startsWith('#')) return this.widen(`external $ref ${JSON.stringify(ref)} is not resolved`);
    let pointer;
    try {
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return this.widen(`$ref ${JSON.stringify(ref)} is not a valid URI fragment`);
    }
    if (pointer !== '' && !pointer.startsWith('/')) return this.widen(`$ref ${JSON.stringify(ref)} names an anchor, which is not resolved`);
    let name = this.refNames.get(pointer);
    if (!name) {
      const segments = pointer
        .split('/')
        .slice(1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      let target = this.root;
      for (const s of segments) {
        target = isObject(target) || Array.isArray(target) ? (Object.hasOwn(target, s) ? target[s] : undefined) : undefined;
        if (target === undefined) return this.widen(`$ref ${JSON.stringify(ref)} does not resolve`);
      }
      const isDef = segments.length === 2 && (segments[0] === '$defs' || segments[0] === 'definitions');
      const wanted = this.baseName + (isDef ? pascalCase(segments[1]) : segments.map(pascalCase).join(''));
      name = this.names.take(wanted);
      this.refNames.set(pointer, name);
      this.queue.push({ name, pointer: isDef ? '' : pointer, target });
    }
    return atom(name);
  }

  /**
   * @param guarded true inside an object property or array element (where a name may refer back).
   */
  compile(schema, indent, depth, guarded) {
    if (schema === true) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isObject(schema)) return this.widen('not a JSON Schema (neither an object nor a boolean)');
    if (depth > MAX_DEPTH) return this.widen(`nested deeper than ${MAX_DEPTH} levels`);
    const d = depth + 1;
    const parts = [];

    if (schema.$ref !== undefined) {
      const r = this.ref(schema.$ref);
      if (!guarded && r.prec === 'atom' && !isUnknown(r)) this.current.add(r.text);
      parts.push(r);
    }
    if (schema.$dynamicRef !== undefined) parts.push(this.widen('$dynamicRef is not resolved'));

    if (schema.const !== undefined) {
      parts.push(atom(literal(schema.const, indent)));
    } else if (Array.isArray(schema.enum)) {
      parts.push(schema.enum.length ? union(schema.enum.map((v) => atom(literal(v, indent)))) : NEVER);
    } else {
      const base = this.typed(schema, indent, d, guarded);
      if (base) parts.push(base);
    }

    if (Array.isArray(schema.allOf)) {
      for (const s of schema.allOf) parts.push(this.compile(s, indent, d, guarded));
    }
    for (const key of ['anyOf', 'oneOf']) {
      if (Array.isArray(schema[key])) parts.push(union(schema[key].map((s) => this.compile(s, indent, d, guarded))));
    }
    if (!parts.length) {
      if (schema.not !== undefined && Object.keys(schema).every((k) => k === 'not' || ANNOTATIONS.has(k))) {
        return this.widen('`not` has no TypeScript form');
      }
      return UNKNOWN;
    }
    let type = intersection(parts);
    if (schema.nullable === true && type.text !== 'unknown') type = union([type, atom('null')]);
    return type;
  }

  /** The part of a schema its `type` (given or implied by its keywords) describes; undefined if none. */
  typed(schema, indent, depth, guarded) {
    let types = schema.type;
    if (types === undefined) {
      if (OBJECT_KEYWORDS.some((k) => schema[k] !== undefined)) types = 'object';
      else if (ARRAY_KEYWORDS.some((k) => schema[k] !== undefined)) types = 'array';
      else return undefined;
    }
    const list = Array.isArray(types) ? types : [types];
    if (!list.length) return this.widen('`type` is an empty array');
    return union(
      list.map((t) => {
        switch (t) {
          case 'string':
            return atom('string');
          case 'number':
          case 'integer':
            return atom('number');
          case 'boolean':
            return atom('boolean');
          case 'null':
            return atom('null');
          case 'object':
            return this.object(schema, indent, depth);
          case 'array':
            return this.array(schema, indent, depth);
          default:
            return this.widen(`unknown type ${JSON.stringify(t)}`);
        }
      }),
    );
  }

  object(schema, indent, depth) {
    const inner = `${indent}  `;
    const props = isObject(schema.properties) ? schema.properties : undefined;
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
    const lines = [];
    const memberTypes = [];
    let anyOptional = false;
    for (const key of Object.keys(props ?? {})) {
      const t = this.compile(props[key], inner, depth, true);
      const optional = !required.has(key);
      anyOptional ||= optional;
      memberTypes.push(t);
      lines.push(`${docComment(schemaDocLines(props[key]), inner)}${inner}${propertyKey(key)}${optional ? '?' : ''}: ${t.text};`);
    }
    for (const key of required) {
      if (props && Object.hasOwn(props, key)) continue;
      memberTypes.push(UNKNOWN);
      lines.push(`${inner}${propertyKey(key)}: unknown;`);
    }
    // Other keys: typed by additionalProperties / patternProperties; free when the schema says
    // nothing about properties at all; none when it lists properties (TypeScript's excess-property
    // check then catches a misspelt key, which is what a caller wants from a tool's input type).
    const extra = [];
    const ap = schema.additionalProperties;
    if (ap !== undefined && ap !== false) extra.push(this.compile(ap, inner, depth, true));
    if (isObject(schema.patternProperties)) {
      for (const p of Object.keys(schema.patternProperties)) extra.push(this.compile(schema.patternProperties[p], inner, depth, true));
    }
    const lists = props !== undefined || required.size > 0;
    if (!extra.length && !lists && ap === undefined) extra.push(UNKNOWN);
    if (extra.length) {
      // An index signature must admit every listed property's type too.
      let sig = union(extra);
      if (!isUnknown(sig) && memberTypes.length) sig = union([sig, ...memberTypes, ...(anyOptional ? [atom('undefined')] : [])]);
      const patterns = isObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
      const note = patterns.length ? docComment([`Keys matching ${patterns.map((p) => `/${p}/`).join(', ')}`], inner) : '';
      lines.push(`${note}${inner}[key: string]: ${sig.text};`);
    }
    if (!lines.length) return atom('Record<string, never>');
    return atom(`{\n${lines.join('\n')}\n${indent}}`);
  }

  array(schema, indent, depth) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    if (!prefix) {
      if (schema.items === undefined) return atom('unknown[]');
      return arrayOf(this.compile(schema.items, indent, depth, true));
    }
    // A tuple: 2020-12 `prefixItems` (+ `items` for the rest) or draft-07 `items: [...]`
    // (+ `additionalItems`). Elements past `minItems` may be missing.
    const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
    const min = Number.isInteger(schema.minItems) ? schema.minItems : 0;
    const max = Number.isInteger(schema.maxItems) ? schema.maxItems : Infinity;
    const elems = prefix.slice(0, Math.min(prefix.length, max)).map((s, i) => {
      const t = this.compile(s, indent, depth, true);
      return `${t.text}${i >= min ? '?' : ''}`;
    });
    if (max > prefix.length && rest !== false) {
      const r = rest === undefined ? UNKNOWN : this.compile(rest, indent, depth, true);
      if (r.text !== 'never') elems.push(`...${arrayOf(r).text}`);
    }
    return atom(`[${elems.join(', ')}]`);
  }
}

const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties', 'required'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems'];

module.exports = { RootCompiler, pascalCase, propertyKey, docComment, commentSafe, schemaDocLines };

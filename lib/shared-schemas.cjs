'use strict';
// What Mastra builds from a tool's JSON Schema (a standard-schema wrapper whose Ajv validator is
// compiled on its first use), made once per process for each exact schema text and shared by
// every client's tools (SPEC 14.1): a new per-user client validates its first call with a
// validator compiled long ago. The core keys each schema by its text (`inputSchemaKey`,
// `outputSchemaKey` of a tool entry); a tool without a key gets its own wrapper.
//
// The shared wrapper holds the schema object of the first client that saw it (copying and
// freezing every schema cost a 2 000-tool catalog 15% more time and 30% more memory); that
// client's definitions (`listToolDefinitions()`) hand out copies, so no client's code reaches
// the shared object but through a tool's `inputSchema.getSchema()`, which is not to be mutated.
// An entry lives as long as some tool holds it (its `inputSchema`, or its execute's output
// validators): once every client that saw a schema is gone, the entry goes too.

/** key → WeakRef of an entry: an input schema wrapper, or `{ validator, permissive }` */
const entries = new Map();
const collected = new FinalizationRegistry((key) => {
  const ref = entries.get(key);
  if (ref && ref.deref() === undefined) entries.delete(key);
});

/** The shared entry for `key`, made by `make(schema)` on first use. */
function entryFor(key, schema, make) {
  const live = entries.get(key)?.deref();
  if (live) return live;
  const entry = make(schema);
  entries.set(key, new WeakRef(entry));
  collected.register(entry, key);
  return entry;
}

/**
 * The input schema handed to `createTool`: a shared standard-schema wrapper when the schema
 * has a key and core's `toStandardSchema` is at hand, else the JSON Schema itself.
 */
function inputSchemaFor(coreTools, jsonSchema, key) {
  if (!key || !coreTools.toStandardSchema || !jsonSchema || typeof jsonSchema !== 'object') return jsonSchema;
  return entryFor(`in:${key}`, jsonSchema, (schema) => coreTools.toStandardSchema(schema));
}

/**
 * For an output schema: the validator of structured results, and the schema handed to Mastra,
 * which documents the shape but accepts anything (execute returns the whole CallToolResult when
 * there is no structured content, so validation happens on the structured value only).
 */
function outputSchemasFor(coreTools, jsonSchema, key) {
  if (!jsonSchema || !coreTools.toStandardSchema) return { validator: undefined, permissive: jsonSchema };
  const make = (schema) => {
    const validator = coreTools.toStandardSchema(schema);
    return { validator, permissive: { '~standard': { ...validator['~standard'], validate: (value) => ({ value }) } } };
  };
  if (!key || typeof jsonSchema !== 'object') return make(jsonSchema);
  return entryFor(`out:${key}`, jsonSchema, make);
}

/**
 * A server's described tool list, parsed once per process for each exact text (`toolsKey` of a
 * listing, the core's key of the text it holds once): every per-user client of a server lists
 * the same tools, and each keeps the shared, read-only entries instead of a parse of its own.
 * `parsed` is this client's parse, used (and then shared) when no client holds the text.
 */
function sharedToolList(key, parsed) {
  if (!key || !Array.isArray(parsed)) return parsed;
  return entryFor(`list:${key}`, parsed, (list) => list);
}

/** The shared tool list for `key` while some client holds it, else `undefined`. */
function heldToolList(key) {
  return key ? entries.get(`list:${key}`)?.deref() : undefined;
}

/** How many shared schema entries are alive (for tests). */
function sharedSchemaCount() {
  let n = 0;
  for (const ref of entries.values()) if (ref.deref() !== undefined) n++;
  return n;
}

module.exports = { inputSchemaFor, outputSchemasFor, sharedToolList, heldToolList, sharedSchemaCount };

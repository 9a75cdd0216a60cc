'use strict';
// Tools set aside for a malformed schema. The core checks each tool's input and output schema
// against the meta-schema of its dialect (src/core/tool_schema.rs, once per distinct schema text)
// and marks a described tool whose schema is not valid with `schemaProblem: { schema, pointer,
// message }`. Handed to a model provider, such a tool would fail the whole request (every tool of
// every server lost for the turn), so the face leaves it out of the tool listings with one
// warning per client and tool definition, and refuses to rebuild it from a cached definition.

const SCHEMA_INVALID = 'MCP_TOOL_SCHEMA_INVALID';
const PROBLEM = Symbol('mastra-mcp-native.schemaProblem');

/** The sentence naming the server, the tool and what is wrong, with the JSON pointer. */
function describeProblem(server, toolName, problem) {
  const where = problem.pointer === '' ? '/' : problem.pointer;
  return `Tool "${toolName}" of MCP server "${server}" is set aside: its ${problem.schema} is not a valid JSON Schema (at ${where}: ${problem.message})`;
}

/** The details of a log entry or error for a set-aside tool. */
function problemDetails(server, toolName, problem) {
  return { serverName: server, toolName, schema: problem.schema, pointer: problem.pointer, reason: problem.message };
}

/** Remembers which set-aside tools one client has warned about, so each is logged once. */
class SetAsideTools {
  #warned = new Set();

  /**
   * Logs the warning for a set-aside tool unless this client already did for the same definition.
   * `log(level, message, details)` is the server's logger path.
   */
  warnOnce(server, toolName, problem, log) {
    const key = [server, toolName, problem.schema, problem.pointer, problem.message].join('\u0000');
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    log('warning', describeProblem(server, toolName, problem), problemDetails(server, toolName, problem));
  }
}

/** The error `toolFromDefinition` rejects with for a definition whose schema is malformed. */
function schemaInvalidError(deps, server, toolName, problem) {
  const { MastraError, ErrorDomain, ErrorCategory } = deps;
  const error = new MastraError({
    id: SCHEMA_INVALID,
    domain: ErrorDomain.MCP,
    category: ErrorCategory.THIRD_PARTY,
    text: describeProblem(server, toolName, problem),
    details: problemDetails(server, toolName, problem),
  });
  Object.defineProperty(error, PROBLEM, { value: { toolName, problem } });
  return error;
}

/** The tool name and problem a `schemaInvalidError` was made for. */
function problemOf(error) {
  return error[PROBLEM];
}

/** Whether an error is the one `schemaInvalidError` makes. */
function isSchemaInvalid(error) {
  return error?.id === SCHEMA_INVALID && error[PROBLEM] !== undefined;
}

module.exports = { SetAsideTools, schemaInvalidError, isSchemaInvalid, problemOf, SCHEMA_INVALID };

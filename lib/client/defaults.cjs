'use strict';
// Each default and shared rule of the face, once. The core's defaults and its vocabulary come
// from the binding (src/core/operations.rs: `face_defaults`, `face_methods`): the face shows them
// (`defaultTimeout`, the span names) and repeats none of them.
const native = require('../native.cjs');

const CORE_DEFAULTS = Object.freeze(native.defaults());

/** A request's timeout when neither the server's nor the client's `timeout` is given (ms). */
const DEFAULT_TIMEOUT_MS = CORE_DEFAULTS.requestTimeoutMs;

/** What an aborted call reports when its signal gives no reason. */
const DEFAULT_ABORT_REASON = CORE_DEFAULTS.abortReason;

/**
 * The MCP method each operation sends, by the face's name of it (`callTool`, `listTools`,
 * `readResource`, `getPrompt`, and the `listAll` kinds `resources`, `resourceTemplates`,
 * `prompts`): the spans' `mcp.method.name`.
 */
const METHODS = Object.freeze(native.methods());

/** `instructionsMaxLength` when a server definition does not give one. */
const DEFAULT_INSTRUCTIONS_MAX_LENGTH = 512;

/**
 * The `allowedHosts` / redirect refusals carry `@mastra/mcp`'s own error ids (`MCP_CLIENT_…`) as
 * their code: they surface as user `MastraError`s under that id.
 */
function isPolicyCode(code) {
  return typeof code === 'string' && code.startsWith('MCP_CLIENT_');
}

module.exports = { DEFAULT_TIMEOUT_MS, DEFAULT_ABORT_REASON, DEFAULT_INSTRUCTIONS_MAX_LENGTH, METHODS, isPolicyCode };

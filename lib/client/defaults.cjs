'use strict';
// Each default and shared rule of the face, once. The core has its own (src/core/config.rs);
// these are the values the face shows (`defaultTimeout`) or needs before the core is asked.

/** A request's timeout when neither the server's nor the client's `timeout` is given (ms). */
const DEFAULT_TIMEOUT_MS = 60000;

/** `instructionsMaxLength` when a server definition does not give one. */
const DEFAULT_INSTRUCTIONS_MAX_LENGTH = 512;

/**
 * The `allowedHosts` / redirect refusals carry `@mastra/mcp`'s own error ids (`MCP_CLIENT_…`) as
 * their code: they surface as user `MastraError`s under that id.
 */
function isPolicyCode(code) {
  return typeof code === 'string' && code.startsWith('MCP_CLIENT_');
}

module.exports = { DEFAULT_TIMEOUT_MS, DEFAULT_INSTRUCTIONS_MAX_LENGTH, isPolicyCode };

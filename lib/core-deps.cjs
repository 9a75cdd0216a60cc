'use strict';
// The pieces of @mastra/core the face adapts to, with stand-ins when the optional peer is not
// installed (tools are then plain objects of the same shape). Each entry (index.js / index.mjs)
// loads core through its own module system, so tools are `instanceof` the app's own `Tool`.

// Why @mastra/core could not be loaded (set by withFallbacks); said once per process through the logger.
let missingCore;
let missingCoreSaid = false;

class FallbackMastraBase {
  constructor({ component, name } = {}) {
    this.component = component ?? 'LLM';
    this.name = name;
    this.logger = fallbackLogger();
    if (missingCore && !missingCoreSaid) {
      missingCoreSaid = true;
      this.logger.warn(
        `mastra-mcp-native: @mastra/core could not be loaded (${missingCore}), so tools are plain objects, not Mastra Tool instances. ` +
          'Install @mastra/core next to mastra-mcp-native; with `mastra build` and a bundler.externals list, list @mastra/core ' +
          "there too: externals: ['@mastra/mcp', '@mastra/core'].",
      );
    }
  }
  __setLogger(logger) {
    this.logger = logger;
  }
}

function fallbackLogger() {
  const noop = () => {};
  return {
    debug: noop,
    info: noop,
    warn: (...args) => console.warn(...args),
    error: (...args) => console.error(...args),
    trackException: noop,
  };
}

class FallbackMastraError extends Error {
  constructor({ id, domain, category, text, details }, cause) {
    super(text ?? cause?.message, cause ? { cause } : undefined);
    this.name = 'MastraError';
    this.id = id;
    this.domain = domain;
    this.category = category;
    this.details = details ?? {};
  }
  toJSON() {
    return { message: this.message, code: this.id, category: this.category, domain: this.domain, details: this.details };
  }
}

const FallbackErrorDomain = { MCP: 'MCP' };
const FallbackErrorCategory = { USER: 'USER', THIRD_PARTY: 'THIRD_PARTY', SYSTEM: 'SYSTEM' };

function fallbackCreateTool(opts) {
  return { ...opts };
}

class FallbackMCPServerBase {
  constructor({ name, id, version }) {
    this.name = name;
    this.id = id;
    this.version = version;
  }
}

/** Fills the holes of a partially loaded core with stand-ins. */
function withFallbacks(core = {}) {
  if (!core.MastraBase) missingCore = String(core.coreError?.message ?? 'not installed').split('\n')[0];
  return {
    MastraBase: core.MastraBase ?? FallbackMastraBase,
    MastraError: core.MastraError ?? FallbackMastraError,
    ErrorDomain: core.ErrorDomain ?? FallbackErrorDomain,
    ErrorCategory: core.ErrorCategory ?? FallbackErrorCategory,
    MCPServerBase: core.MCPServerBase ?? FallbackMCPServerBase,
    // Loaded on first use: the tools module is the heavy part of core.
    loadTools:
      core.loadTools ??
      (async () => ({ createTool: fallbackCreateTool, validateToolOutput: undefined })),
    hasCore: Boolean(core.MastraBase),
  };
}

module.exports = { withFallbacks };

'use strict';
// CommonJS entry: loads @mastra/core through require, so tools are instances of the CommonJS
// copy of core's classes that a CommonJS app uses.
const { dirname, join } = require('node:path');
const { createFace } = require('./lib/face.cjs');
const toolsChunk = require('./lib/core-tools-chunk.cjs');

let coreError;
function tryRequire(id) {
  try {
    return require(id);
  } catch (e) {
    if (e && (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED')) {
      coreError ??= e;
      return undefined;
    }
    throw e;
  }
}

/** `@mastra/core/tools`'s `Tool` chunk alone when it can be found (lib/core-tools-chunk.cjs), else the entry. */
function toolsModule() {
  try {
    if (toolsChunk.runsFromPackage(__dirname)) {
      const entry = require.resolve('@mastra/core/tools');
      const chunk = toolsChunk.chunkFor(entry, toolsChunk.cjsChunkOf);
      const tools = chunk && toolsChunk.bindingsOf(require(join(dirname(entry), chunk.path)), chunk.names);
      if (tools) return tools;
    }
  } catch {
    // the whole entry below
  }
  return require('@mastra/core/tools');
}

const base = tryRequire('@mastra/core/base');
const error = tryRequire('@mastra/core/error');
const mcp = tryRequire('@mastra/core/mcp');

module.exports = createFace({
  MastraBase: base?.MastraBase,
  MastraError: error?.MastraError,
  ErrorDomain: error?.ErrorDomain,
  ErrorCategory: error?.ErrorCategory,
  MCPServerBase: mcp?.MCPServerBase,
  coreError: base ? undefined : coreError,
  loadTools: base
    ? async () => {
        const tools = toolsModule();
        const schema = tryRequire('@mastra/core/schema');
        return { createTool: tools.createTool, validateToolOutput: tools.validateToolOutput, toStandardSchema: schema?.toStandardSchema };
      }
    : undefined,
});

'use strict';
// The hidden channels on structured tool results: MCP `content` and result `_meta`.

const MCP_CALL_TOOL_CONTENT = Symbol.for('mastra.mcp.callToolContent');
const MCP_CALL_TOOL_META = Symbol.for('mastra.mcp.callToolMeta');

function attachMcpCallToolContent(value, content, meta) {
  if (value !== null && typeof value === 'object') {
    Object.defineProperty(value, MCP_CALL_TOOL_CONTENT, { value: content, enumerable: false, configurable: true });
    if (meta !== undefined && meta !== null) {
      Object.defineProperty(value, MCP_CALL_TOOL_META, { value: meta, enumerable: false, configurable: true });
    }
  }
  return value;
}

function getMcpCallToolContent(output) {
  return output !== null && typeof output === 'object' ? output[MCP_CALL_TOOL_CONTENT] : undefined;
}

function getMcpCallToolMeta(output) {
  return output !== null && typeof output === 'object' ? output[MCP_CALL_TOOL_META] : undefined;
}

function textOfContent(content) {
  if (!Array.isArray(content)) return undefined;
  const text = content
    .filter((p) => p && typeof p === 'object' && p.type === 'text')
    .map((p) => p.text)
    .join('\n')
    .trim();
  return text || undefined;
}

/** `toModelOutput` for tools with an output schema: the text blocks, else the JSON value. */
function structuredToModelOutput(output) {
  const text = textOfContent(getMcpCallToolContent(output));
  return text !== undefined ? { type: 'text', value: text } : { type: 'json', value: output };
}

module.exports = {
  MCP_CALL_TOOL_CONTENT,
  MCP_CALL_TOOL_META,
  attachMcpCallToolContent,
  getMcpCallToolContent,
  getMcpCallToolMeta,
  structuredToModelOutput,
};

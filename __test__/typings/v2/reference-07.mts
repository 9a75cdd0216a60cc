// Example 7 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { Agent } from '@mastra/core/agent'
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare const model: `${string}/${string}`
// ---- example ----
new Agent({ id: 'agent', name: 'agent', instructions: 'Help.', model: 'openai/gpt-5' /* elision filled */, tools: await mcp.listTools() })
export {}

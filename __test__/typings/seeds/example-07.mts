// Example 7 of the MCPClient reference page (seeds/000_0041ca038269d00d.txt), extracted by
// scripts/extract-seed-examples.py: imports and declarations above the marker, the example below.
import { Agent } from '@mastra/core/agent'
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare const model: `${string}/${string}`
// ---- example ----
new Agent({ id: 'agent', name: 'agent', instructions: 'Help.', model: 'openai/gpt-5' /* elision filled */, tools: await mcp.listTools() })
export {}

// Example 9 of the MCPClient reference page (seeds/000_0041ca038269d00d.txt), extracted by
// scripts/extract-seed-examples.py: imports and declarations above the marker, the example below.
import { Agent } from '@mastra/core/agent'
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare const agent: Agent
declare const prompt: string
// ---- example ----
const res = await agent.stream(prompt, {
  toolsets: await mcp.listToolsets(),
})
export {}

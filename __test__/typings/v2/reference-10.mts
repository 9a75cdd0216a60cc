// Example 10 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { Agent } from '@mastra/core/agent'
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare const agent: Agent
declare const prompt: string
// ---- example ----
const { toolsets, errors, errorDetails, durations } = await mcp.listToolsetsWithErrors({
  perServerTimeoutMs: 3_000,
})

const res = await agent.stream(prompt, { toolsets })
console.log(errors, errorDetails, durations)
export {}

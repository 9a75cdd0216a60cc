// Example 26 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcpClient: MCPClient
// ---- example ----
const { resources, errors, errorDetails, durations } = await mcpClient.resources.listWithErrors({
  perServerTimeoutMs: 3_000,
})

console.log(resources, errors, errorDetails, durations)
export {}

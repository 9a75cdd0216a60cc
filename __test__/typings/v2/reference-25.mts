// Example 25 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcpClient: MCPClient
// ---- example ----
const resourcesByServer = await mcpClient.resources.list()
for (const serverName in resourcesByServer) {
  console.log(`Resources from ${serverName}:`, resourcesByServer[serverName])
}
export {}

// Example 11 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare const cache: { get(key: string): Promise<string>; set(key: string, value: string): Promise<unknown> }
// ---- example ----
const definitions = await mcp.listToolDefinitions()

await cache.set('mcp-tools', JSON.stringify(definitions))
export {}

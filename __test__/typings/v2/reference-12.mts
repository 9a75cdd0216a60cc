// Example 12 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare const cache: { get(key: string): Promise<string>; set(key: string, value: string): Promise<unknown> }
// ---- example ----
const { definitions, errors, errorDetails, durations } = await mcp.listToolDefinitionsWithErrors({
  perServerTimeoutMs: 3_000,
})

if (Object.keys(errors).length === 0) {
  await cache.set('mcp-tools', JSON.stringify(definitions))
}

console.log(errorDetails, durations)
export {}

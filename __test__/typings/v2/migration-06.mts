// Example 6 of @mastra/mcp 2.0's reference-migrations-mcp-v2.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare function refresh(uri: string): void
// ---- example ----
await mcp.resources.onUpdated('weather', ({ uri }) => refresh(uri))
await mcp.resources.subscribe('weather', 'weather://forecast')
// later
await mcp.resources.unsubscribe('weather', 'weather://forecast')
export {}

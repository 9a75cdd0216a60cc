// Example 11 of the MCPClient reference page (seeds/000_0041ca038269d00d.txt), extracted by
// scripts/extract-seed-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcp: MCPClient
declare const db: { query(sql: string, params: unknown[]): Promise<any[]> }
// ---- example ----
await mcp.listTools()

const instructionsByServer = mcp.getServerInstructions()
console.log(instructionsByServer.db)
export {}

// Example 4 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { Agent } from '@mastra/core/agent'
import { MCPClient } from '@mastra/mcp'
declare const model: `${string}/${string}`
declare const db: { query(sql: string, params: unknown[]): Promise<any[]> }
// ---- example ----
const mcp = new MCPClient({
  servers: {
    db: {
      url: new URL('http://localhost:3000/mcp'),
      forwardInstructions: true,
      instructionsMaxLength: 512,
    },
  },
})

const agent = new Agent({
  id: 'db-agent',
  name: 'DB Agent',
  instructions: 'Help with database changes.',
  model,
  tools: await mcp.listTools(),
})
export {}

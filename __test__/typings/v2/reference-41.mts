// Example 41 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcpClient: MCPClient
// ---- example ----
mcpClient.elicitation.onRequest('serverName', async request => {
  console.log(`Server requests: ${request.message}`)

  // Example: Simple user input collection
  if (request.requestedSchema.properties.name) {
    // Simulate user accepting and providing data
    return {
      action: 'accept',
      content: {
        name: 'Alice Smith',
        email: 'alice@example.com',
      },
    }
  }

  // Simulate user declining the request
  return { action: 'decline' }
})
export {}

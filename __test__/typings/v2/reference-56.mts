// Example 56 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare function collectUserInput(schema: unknown): Promise<Record<string, string>>
// ---- example ----

const mcpClient = new MCPClient({
  servers: {
    interactiveServer: {
      url: new URL('http://localhost:3000/mcp'),
    },
  },
})

// Set up elicitation handler
mcpClient.elicitation.onRequest('interactiveServer', async request => {
  // Handle the server's request for user input
  console.log(`Server needs: ${request.message}`)

  // Your logic to collect user input
  const userData = await collectUserInput(request.requestedSchema)

  return {
    action: 'accept',
    content: userData,
  }
})
export {}

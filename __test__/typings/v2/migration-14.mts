// Example 14 of @mastra/mcp 2.0's reference-migrations-mcp-v2.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
// ---- example ----
const mcp = new MCPClient({ /* fragment wrapped */
servers: {
    weather: {
      url: new URL('http://localhost:4111/api/mcp/weather/mcp'),
    },
  },
})
export {}

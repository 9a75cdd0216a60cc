// Example 8 of @mastra/mcp 2.0's reference-migrations-mcp-v2.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
// ---- example ----
const mcp = new MCPClient({ /* fragment wrapped */
servers: {
    thirdParty: {
      url: new URL('https://example.com/mcp'),
      protocolVersion: 'legacy', // optional: skip the probe for a server known not to have upgraded
    },
  },
})
export {}

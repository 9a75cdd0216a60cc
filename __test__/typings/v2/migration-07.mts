// Example 7 of @mastra/mcp 2.0's reference-migrations-mcp-v2.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare function askUser(...args: unknown[]): Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, string> }>
// ---- example ----
const mcp = new MCPClient({
    servers: {
      booking: {
        url: new URL('http://localhost:4111/api/mcp/booking/mcp'),
        inputRequests: async ({ key, params }) => askUser(key, params),
      },
    },
  });
export {}

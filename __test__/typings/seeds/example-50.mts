// Example 50 of the MCPClient reference page (seeds/000_0041ca038269d00d.txt), extracted by
// scripts/extract-seed-examples.py: imports and declarations above the marker, the example below.
import type { ElicitationHandler } from '@mastra/mcp'
// ---- example ----
export const handler: ElicitationHandler = async () => {
  return { action: 'decline' }
}
export {}

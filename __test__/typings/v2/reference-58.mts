// Example 58 of @mastra/mcp 2.0's reference-tools-mcp-client.md, extracted by
// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.
import type { ElicitationHandler } from '@mastra/mcp'
// ---- example ----
export const handler: ElicitationHandler = async () => {
  return { action: 'decline' }
}
export {}

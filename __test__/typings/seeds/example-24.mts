// Example 24 of the MCPClient reference page (seeds/000_0041ca038269d00d.txt), extracted by
// scripts/extract-seed-examples.py: imports and declarations above the marker, the example below.
import { MCPClient } from '@mastra/mcp'
declare const mcpClient: MCPClient
// ---- example ----
const content = await mcpClient.resources.read('myWeatherServer', 'weather://current')
console.log('Current weather:', content.contents[0].text)
export {}

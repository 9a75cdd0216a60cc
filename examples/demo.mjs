// The main job: connect the bundled example server (server-everything over stdio), list its
// tools, call one, print the result.
import { createRequire } from 'node:module';
import { MCPClient } from '../index.mjs';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const mcp = new MCPClient({
  servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
});

try {
  const tools = await mcp.listTools();
  console.log(`Tools (${Object.keys(tools).length}):`);
  for (const [id, tool] of Object.entries(tools)) console.log(`  ${id} — ${tool.description.split('\n')[0]}`);
  const message = process.argv[2] ?? 'Hello from mastra-mcp-native';
  const result = await tools.everything_echo.execute({ message }, {});
  console.log('\neverything_echo →', result.content.map((c) => c.text).join('\n'));
  const sum = await tools['everything_get-sum'].execute({ a: 2, b: 40 }, {});
  console.log('everything_get-sum →', sum.content.map((c) => c.text).join('\n'));
} finally {
  await mcp.disconnect();
}

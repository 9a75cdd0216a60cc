// Type-checks the config-file API as user code calls it (fromConfig and parseMCPConfig are
// synchronous; fromConfigFile and readMCPConfigFile return promises).
import {
  MCPClient,
  MCPConfigError,
  parseMCPConfig,
  readMCPConfigFile,
  type MCPConfig,
  type MCPConfigFormat,
  type MCPServerSessionInfo,
} from '../../index.js';

export async function configFiles(): Promise<void> {
  const fromFile: MCPClient = await MCPClient.fromConfigFile('.vscode/mcp.json', {
    inputs: { 'api-key': 'k' },
    timeout: 30_000,
    defaults: { timeout: 10_000 },
    servers: { github: { requireToolApproval: true, requestInit: { headers: { 'X-Extra': '1' } } } },
  });
  const fromObject: MCPClient = MCPClient.fromConfig({ mcpServers: { fs: { command: 'npx', args: ['-y', 'server'] } } }, { id: 'fs' });
  const format: MCPConfigFormat = 'claude-code';
  const parsed: MCPConfig = parseMCPConfig({ mcpServers: {} }, { format, env: process.env });
  const read: MCPConfig = await readMCPConfigFile(new URL('file:///tmp/mcp.json'));
  const transport: 'stdio' | 'http' | 'sse' | undefined = read.transports.fs;
  const info: MCPServerSessionInfo = await fromFile.getServerSessionInfo('fs');
  const version: string = info.protocolVersion;
  try {
    parseMCPConfig({});
  } catch (e) {
    if (e instanceof MCPConfigError) {
      const where: string = `${e.file} ${e.server ?? ''} ${e.field ?? ''} ${e.reason}`;
      void where;
    }
  }
  void [fromObject, parsed, transport, version];
}

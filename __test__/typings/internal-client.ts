// InternalMastraMCPClient as @mastra/mcp's own tests and advanced users drive it.
import { InternalMastraMCPClient } from '../../index.js';
import type { InternalMastraMCPClientOptions, Root, SerializableMCPToolDefinition } from '../../index.js';

async function internal() {
  const options: InternalMastraMCPClientOptions = {
    name: 'weather',
    version: '1.0.0',
    server: { command: 'node', args: ['server.js'], roots: [{ uri: 'file:///tmp', name: 'tmp' }] },
    capabilities: { elicitation: {} },
    timeout: 30_000,
  };
  const client = new InternalMastraMCPClient(options);
  client.setElicitationRequestHandler(async (request) => {
    const fields = Object.keys(request.requestedSchema.properties);
    return { action: 'accept', content: { [fields[0] ?? 'name']: 'x' } };
  });
  client.setProgressNotificationHandler((p) => console.log(p.progress, p.total));
  client.setToolListChangedNotificationHandler(() => {});
  client.setResourceUpdatedNotificationHandler((params) => console.log(params.uri));
  const connected: boolean = await client.connect();
  const instructions: string | undefined = client.instructions;
  const roots: Root[] = client.roots;
  await client.setRoots([...roots, { uri: 'file:///home' }]);
  await client.sendRootsListChanged();
  const { resources } = await client.listResources();
  const read = await client.readResource(resources[0]!.uri);
  console.log(read.contents[0]?.text, connected, instructions, client.sessionId, client.stderr, client.authState);
  const { prompts } = await client.listPrompts();
  const prompt = await client.getPrompt({ name: prompts[0]!.name, args: { a: 1 } });
  console.log(prompt.messages.length, (await client.resources.list()).length, (await client.prompts.list()).length);
  client.elicitation.onRequest(async () => ({ action: 'decline' }));
  client.progress.onUpdate(() => {});
  const defs: Record<string, SerializableMCPToolDefinition> = await client.toolDefinitions();
  const tool = client.toolFromDefinition({ definition: defs.echo! });
  const tools = await client.tools();
  console.log(tool.id, Object.keys(tools), client.forwardInstructions, client.instructionsMaxLength);
  await client.forceReconnect();
  await client.finishAuth('code');
  await client.disconnect();
}
void internal;

// @mastra/mcp 2.0's client names and shapes (its dist/client/*.d.ts, dist/shared/*.d.ts), written as a 2.0
// project uses them; compiled under --strict against our index.d.ts next to 1.18 code (usage.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  MCPClient,
  InternalMastraMCPClient,
  MCPOAuthClientProvider,
  createSimpleTokenProvider,
  createOAuthCallbackServer,
  traceContextFromMeta,
  traceContextToMeta,
  MCP_CLIENT_PROTOCOL_VERSION,
} from '@mastra/mcp';
import type {
  MCPClientProtocolVersion,
  MCPInputRequest,
  MCPInputRequestHandler,
  MCPClientCapabilities,
  MCPClientMetadata,
  MCPTraceContext,
  InputRequiredResult,
  ElicitResult,
  OAuthCallbackResult,
  StoredOAuthTokens,
} from '@mastra/mcp';

const revision: '2026-07-28' = MCP_CLIENT_PROTOCOL_VERSION;
const pinned: MCPClientProtocolVersion = 'legacy';
const caps: MCPClientCapabilities = { elicitation: { form: {}, url: {} } };
const carrier = new AsyncLocalStorage<MCPTraceContext>();

const answer: MCPInputRequestHandler = async ({ key, params, signal }: MCPInputRequest): Promise<ElicitResult> => {
  if (signal.aborted) return { action: 'cancel' };
  if (params.mode === 'url') return { action: 'decline' };
  return { action: 'accept', content: { [key]: params.message } };
};

export const mcp = new MCPClient({
  servers: {
    booking: {
      url: new URL('http://localhost:4111/api/mcp/booking/mcp'),
      protocolVersion: pinned,
      capabilities: caps,
      inputRequests: answer,
      traceContext: () => carrier.getStore(),
      enableServerLogs: true,
      serverLogLevel: 'warning',
    },
    local: {
      command: 'node',
      args: ['server.js'],
      protocolVersion: revision,
      inputRequests: async ({ params }) => ({ action: 'accept', content: { ok: params.message.length > 0 } }),
      traceContext: () => undefined,
    },
  },
});

const meta: Record<string, string> = traceContextToMeta({ traceparent: '00-a-b-01', baggage: 'k=v' });
const back: MCPTraceContext | undefined = traceContextFromMeta(meta);
export const traceparent: string | undefined = back?.traceparent;

export const pending: InputRequiredResult = {
  resultType: 'input_required',
  inputRequests: { input: { method: 'elicitation/create', params: { message: 'Address?' } } },
  requestState: 'opaque',
};

export async function internal(): Promise<string | undefined> {
  const client = new InternalMastraMCPClient({ name: 'booking', server: { url: new URL('http://localhost:4111/mcp') } });
  await client.connect();
  await client.finishAuth('code', 'https://auth.example.com');
  return client.negotiatedProtocolVersion;
}

export async function oauth(): Promise<void> {
  const metadata: MCPClientMetadata = {
    client_id: 'https://my-app.example.com/oauth/client-metadata.json',
    client_name: 'My Agent',
    redirect_uris: ['http://localhost:3000/oauth/callback'],
  };
  const provider = new MCPOAuthClientProvider({
    redirectUrl: 'http://localhost:3000/oauth/callback',
    clientMetadataUrl: 'https://my-app.example.com/oauth/client-metadata.json',
    clientMetadata: metadata,
  });
  const url: string | undefined = provider.clientMetadataUrl;
  const ctx = { issuer: 'https://auth.example.com' };
  const tokens: StoredOAuthTokens | undefined = await provider.tokens(ctx);
  if (tokens) await provider.saveTokens(tokens, ctx);
  const state = await provider.discoveryState();
  if (state) await provider.saveDiscoveryState(state);
  await provider.invalidateCredentials('discovery');
  provider.applyResolvedRedirectUrl('http://127.0.0.1:3001/oauth/callback');
  const info = await provider.clientInformation();
  void [url, info?.client_id];

  const simple = createSimpleTokenProvider('token', {
    redirectUrl: 'http://localhost:3000/callback',
    clientMetadata: { redirect_uris: ['http://localhost:3000/callback'], client_name: 'Test Client' },
    clientInformation: { client_id: 'test-client' },
  });
  void simple;

  const callback = await createOAuthCallbackServer({ redirectUrl: 'http://127.0.0.1:3000/callback', state: 's' });
  const result: OAuthCallbackResult = await callback.waitForCode();
  const iss: string | undefined = result.iss;
  await internal().catch(() => iss);
}

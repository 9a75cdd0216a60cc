// OpenTelemetry with OAuth (docs/observability.md): an access token renewed under a request is a
// span event on that request's span. A real authorization server (oidc-provider) and a protected
// MCP server; a headless consent step stands in for the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from './fixtures/helpers.mjs';
import { trace, context } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MCPClient, MCPOAuthClientProvider, InMemoryOAuthStorage } from '../index.mjs';
import { startAuthorizationServer } from './fixtures/oauth/authorization-server.mjs';
import { startProtectedMcpServer } from './fixtures/oauth/protected-mcp-server.mjs';
import { completeAuthorization } from './fixtures/oauth/consent.mjs';
import { publicClientMetadata } from './fixtures/oauth/testbed.mjs';

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let as;
let mcp;
const clients = [];
before(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  as = await startAuthorizationServer({ accessTokenTTL: 3600 });
  mcp = await startProtectedMcpServer({ authorizationServer: as });
});
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect()));
  await mcp?.close();
  await as?.close();
  await tracerProvider.shutdown();
});

test('an access token renewed before a request went out is an event on that request\'s span', async () => {
  const storage = new InMemoryOAuthStorage();
  const redirectUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  const provider = new MCPOAuthClientProvider({
    redirectUrl,
    clientMetadata: publicClientMetadata('mastra-mcp-native tests', redirectUrl),
    storage,
    onRedirectToAuthorization: (url) => void completeAuthorization(url.href, { deliver: true }).catch(() => {}),
  });
  const c = new MCPClient({ id: 'otel-oauth', servers: { p: { url: mcp.url, authProvider: provider } } });
  clients.push(c);
  await c.authenticate('p', { timeoutMs: 20000 });
  const tools = await c.listTools();
  assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');

  // The stored token says it arrived an hour and a minute ago: it has expired.
  const raw = storage.get('tokens');
  const tokens = typeof raw === 'string' ? JSON.parse(raw) : raw;
  assert.equal(typeof tokens.obtained_at, 'number', JSON.stringify(Object.keys(tokens)));
  const aged = { ...tokens, obtained_at: tokens.obtained_at - 3660 };
  storage.set('tokens', typeof raw === 'string' ? JSON.stringify(aged) : aged);

  exporter.reset();
  const refreshesBefore = as.requests.filter((r) => r.path.startsWith('/token') && r.body.includes('grant_type=refresh_token')).length;
  await trace.getTracer('test').startActiveSpan('agent step', async (parent) => {
    assert.equal((await tools.p_whoami.execute({}, {})).sub, 'alice');
    parent.end();
  });
  const refreshes = as.requests.filter((r) => r.path.startsWith('/token') && r.body.includes('grant_type=refresh_token')).length;
  assert.equal(refreshes, refreshesBefore + 1, 'the token was refreshed');
  const span = exporter.getFinishedSpans().find((s) => s.name === 'tools/call whoami');
  assert.ok(span.events.some((e) => e.name === 'mcp.client.oauth.refresh'), JSON.stringify(span.events));
});

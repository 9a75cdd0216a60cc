'use strict';
// Auth of one client (a `Host`): the browser OAuth flow of a server (`authenticate`, concurrent
// calls joining one flow), its cancellation, the server's auth state; and the lifecycle hook that
// lets every flow settle once a disconnect has ended them. A flow's id comes from the one id
// allocator (`ids.cjs`), as tool calls' do: they share the native client's pending table.
const { fromNative } = require('../errors.cjs');
const { MCPOAuthClientProvider } = require('../oauth/oauth.cjs');
const { mastraError } = require('./outcomes.cjs');
const ids = require('./ids.cjs');

/** `'needs-auth'` after an authorization rejection, `'authorized'` once accepted. */
function authState(host, serverName) {
  if (!Object.prototype.hasOwnProperty.call(host.servers, serverName)) return undefined;
  return host.native.authState(serverName) ?? undefined;
}

function authenticate(host, serverName, options = {}) {
  // A disconnect in flight ends every flow first; then a new one starts.
  if (host.disconnecting) return host.disconnecting.catch(() => {}).then(() => authenticate(host, serverName, options));
  const pending = host.authFlows.get(serverName);
  if (pending) return pending.promise.then(() => undefined);
  const flowId = ids.allocate();
  const promise = (async () => {
    host.requireServer(serverName);
    if (!(host.servers[serverName].authProvider instanceof MCPOAuthClientProvider)) {
      throw new Error(`Cannot authenticate MCP server ${serverName}: it is not configured with an MCPOAuthClientProvider.`);
    }
    host.toolCache.delete(serverName);
    try {
      await host.native.authenticate(serverName, options.timeoutMs, flowId);
    } catch (e) {
      const err = fromNative(e);
      if (err.nativeCode === 'CONNECT_FAILED' || err.nativeCode === 'AUTH_FAILED' || err.nativeCode === 'REQUEST_TIMEOUT') {
        throw mastraError(host, 'MCP_CLIENT_CONNECT_FAILED', err, { name: serverName });
      }
      throw err;
    }
  })().finally(() => {
    host.authFlows.delete(serverName);
    ids.release(flowId);
  });
  host.authFlows.set(serverName, { promise, flowId });
  return promise;
}

/** Aborts a pending `authenticate()`; `false` when none is pending. */
async function cancelAuthentication(host, serverName) {
  const pending = host.authFlows.get(serverName);
  if (!pending) return false;
  host.native.cancel(pending.flowId, 'cancelled');
  await pending.promise.catch(() => {});
  return true;
}

/** Lifecycle hook: the native disconnect cancelled every auth flow; they settle before it resolves. */
function disconnected(host) {
  return Promise.allSettled([...host.authFlows.values()].map((f) => f.promise));
}

module.exports = { authState, authenticate, cancelAuthentication, disconnected };

'use strict';
// The lifecycle of one client (a `Host`) both client classes share: disconnecting (the native
// client, then every feature's hook), and the per-server facts read synchronously.
const { flowsSettled } = require('./auth.cjs');

/** Disconnects every server; concurrent calls share one. `before()` runs first (the instance cache). */
function disconnect(host, before) {
  if (host.disconnecting) return host.disconnecting;
  host.disconnecting = (async () => {
    try {
      before?.();
      await host.native.disconnect();
      await flowsSettled(host);
      host.toolCache.clear();
    } finally {
      host.disconnecting = undefined;
    }
  })();
  return host.disconnecting;
}

/** A native `{ server: value | null }` map with `undefined` for null. */
function byServer(map) {
  const out = {};
  for (const [k, v] of Object.entries(map)) out[k] = v ?? undefined;
  return out;
}

module.exports = { disconnect, byServer };

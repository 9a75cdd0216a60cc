'use strict';
// The lifecycle of one client (a `Host`) both client classes share: disconnecting runs the native
// client's, then each feature's `disconnected` hook in order; and the per-server facts read
// synchronously.
const auth = require('./auth.cjs');
const toolsets = require('./toolsets.cjs');

/** The features with a `disconnected(host)` hook, in the order they run. */
const ON_DISCONNECTED = [auth.disconnected, toolsets.disconnected];

/** Disconnects every server; concurrent calls share one. `before()` runs first (the instance cache). */
function disconnect(host, before) {
  if (host.disconnecting) return host.disconnecting;
  host.disconnecting = (async () => {
    try {
      before?.();
      await host.native.disconnect();
      for (const hook of ON_DISCONNECTED) await hook(host);
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

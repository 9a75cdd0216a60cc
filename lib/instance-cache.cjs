'use strict';
// The module-global registry of MCPClient instances and the duplicate-configuration guard.

const instances = new Map();

const DUPLICATE_MESSAGE = `MCPClient was initialized multiple times with the same configuration options.

This error is intended to prevent memory leaks.

To fix this you have three different options:
1. If you need multiple MCPClient class instances with identical server configurations, set an id when configuring: new MCPClient({ id: "my-unique-id" })
2. Call "await client.disconnect()" after you're done using the client and before you recreate another instance with the same options. If the identical MCPClient instance is already closed at the time of re-creating it, you will not see this error.
3. If you only need one instance of MCPClient in your app, refactor your code so it's only created one time (ex. move it out of a loop into a higher scope code block)
`;

function idForServers(servers) {
  // node:crypto loads on first use (a client with an `id` never needs it).
  return require('node:crypto')
    .createHash('sha256')
    .update('MCPClient' + JSON.stringify(servers).normalize('NFKC'))
    .digest('hex');
}

/** Deep equality as fast-deep-equal: functions by reference, URLs/RegExps by string. */
function deepEqual(a, b) {
  if (a === b) return true;
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return a !== a && b !== b;
  if (a.constructor !== b.constructor) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (a instanceof URL || a instanceof RegExp) return String(a) === String(b);
  if (a instanceof Date) return a.getTime() === b.getTime();
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

module.exports = { instances, DUPLICATE_MESSAGE, idForServers, deepEqual };

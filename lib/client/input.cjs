'use strict';
// Input rounds of one client (a `Host`): a server's request for input (a pushed
// `elicitation/create`, a key of an `input_required` result, or a task's input request). The rule:
// a handler registered with `elicitation.onRequest` answers it (called with the params, as in
// 1.18); otherwise the server definition's `inputRequests` (called with `{ key, params, signal }`,
// as in 2.0). The core bounds the wait (`src/core/asking.rs`): when it runs out, or the request is
// no longer wanted, its `inputAborted` event aborts the signal (`events.cjs`).
const { handlerOf } = require('./events.cjs');

async function onInputRequest(host, { server, key, id, params }) {
  const registered = handlerOf(host, 'elicitation', server);
  if (registered) return await registered(params);
  const inputRequests = host.servers[server]?.inputRequests;
  if (typeof inputRequests !== 'function') throw new Error(`No elicitation handler is registered for server ${server}`);
  const controller = new AbortController();
  host.inputAborts.set(id, controller);
  try {
    const aborted = new Promise((_, reject) => {
      // A plain Error: the core reads its message (a DOMException crosses as "JavaScript Error").
      controller.signal.addEventListener('abort', () => reject(new Error(controller.signal.reason?.message ?? 'The input request was aborted')), {
        once: true,
      });
    });
    aborted.catch(() => {});
    return await Promise.race([inputRequests({ key, params, signal: controller.signal }), aborted]);
  } finally {
    host.inputAborts.delete(id);
  }
}

module.exports = { onInputRequest };

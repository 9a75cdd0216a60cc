'use strict';
// Input rounds of one client (a `Host`): a server's request for input (a pushed
// `elicitation/create`, a key of an `input_required` result, or a task's input request). The rule:
// a handler registered with `elicitation.onRequest` answers it (called with the params, as in
// 1.18); otherwise the server definition's `inputRequests` (called with `{ key, params, signal }`,
// as in 2.0), within the request's timeout.
const { handlerOf } = require('./events.cjs');

/** A `TimeoutError` DOMException (what `AbortSignal.timeout()` aborts with). */
function timeoutReason(message) {
  return new DOMException(message, 'TimeoutError');
}

async function onInputRequest(host, { server, key, id, params }) {
  const registered = handlerOf(host, 'elicitation', server);
  if (registered) return await registered(params);
  const inputRequests = host.servers[server]?.inputRequests;
  if (typeof inputRequests !== 'function') throw new Error(`No elicitation handler is registered for server ${server}`);
  const controller = new AbortController();
  host.inputAborts.set(id, controller);
  const timeoutMs = host.servers[server]?.timeout ?? host.defaultTimeout;
  // The call's timeout bounds the wait for the answer: the signal aborts and the call fails.
  const timer =
    Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs < 2 ** 31
      ? setTimeout(
          () => controller.abort(timeoutReason(`Input request '${key}' from server ${server} timed out after ${timeoutMs}ms`)),
          timeoutMs,
        )
      : undefined;
  timer?.unref?.();
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
    clearTimeout(timer);
    host.inputAborts.delete(id);
  }
}

module.exports = { onInputRequest };

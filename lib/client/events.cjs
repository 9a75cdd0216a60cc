'use strict';
// Events and logging of one client (a `Host`): the user's handlers by kind and server, the routing
// of what the core sends up (notifications, diagnostics, server logs, ended sessions), and the log
// line of a server to its `logger`/`log` handler or the Mastra logger.
const { nativeCall } = require('../errors.cjs');
const telemetry = require('../telemetry.cjs');

const LOG_LEVEL_METHOD = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

function handlerOf(host, kind, server) {
  return host.handlers.get(`${kind}\u0000${server}`);
}

/**
 * Registers a handler (the last one wins; they survive reconnects). The core decides what its kind
 * asks for (`src/core/user_handlers.rs`): a list-changed handler's promise settles once a live
 * 2026-07-28 session's subscriptions/listen asks for the list too; other kinds settle at once.
 */
function setHandler(host, kind, server, handler) {
  host.handlers.set(`${kind}\u0000${server}`, handler);
  return nativeCall(host.native.handlerRegistered(server, kind));
}

function safely(host, fn, server, what) {
  try {
    const r = fn();
    if (r && typeof r.then === 'function') r.then(undefined, (e) => logHandlerError(host, server, what, e));
  } catch (e) {
    logHandlerError(host, server, what, e);
  }
}

function logHandlerError(host, server, what, e) {
  host.owner.logger?.error?.(`[${server}] ${what} handler threw: ${e?.message ?? e}`);
}

/** An `AbortError` DOMException (what `signal.reason` is after a plain abort). */
function abortReason(message) {
  return new DOMException(message, 'AbortError');
}

function onEvent(host, { server, kind, payload }) {
  switch (kind) {
    case 'diagnostic':
      return log(host, server, payload.level, payload.message);
    case 'sessionEnded':
      return telemetry.endSession(host.telemetry, host.servers[server], payload);
    case 'inputAborted':
      // `timedOut`: the core's bound on the wait ran out (its reason), else the request is no longer wanted.
      return host.inputAborts
        .get(payload.id)
        ?.abort(
          payload.timedOut
            ? new DOMException(payload.timedOut, 'TimeoutError')
            : abortReason('The input request is no longer wanted (the call was aborted or the client disconnected)'),
        );
    case 'serverLog': {
      const { level, ...details } = payload;
      return log(host, server, level, '[MCP SERVER LOG]', details, null);
    }
    case 'progress':
    case 'resourceUpdated': {
      const h = handlerOf(host, kind, server);
      if (h) safely(host, () => h(payload), server, kind);
      return;
    }
    default: {
      const h = handlerOf(host, kind, server);
      if (h) safely(host, () => h(), server, kind);
    }
  }
}

/** Logs a line for a server: to its `logger`/`log` handler and to the Mastra logger. */
function log(host, server, level, message, details, requestContext) {
  const def = host.servers[server] ?? {};
  const handler = typeof def.logger === 'function' ? def.logger : typeof def.log === 'function' ? def.log : undefined;
  const text = `[${server}] ${message}`;
  const method = LOG_LEVEL_METHOD[level] ?? 'info';
  if (handler) {
    safely(
      host,
      () =>
        handler({
          level,
          message: text,
          timestamp: new Date(),
          serverName: server,
          details,
          requestContext: requestContext ?? null,
        }),
      server,
      'logger',
    );
  } else {
    host.owner.logger?.[method]?.(text, details);
  }
}

module.exports = { handlerOf, setHandler, onEvent, log };

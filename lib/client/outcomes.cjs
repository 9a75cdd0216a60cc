'use strict';
// Outcomes and error shaping of one client (a `Host`): core errors as `MastraError`s with the
// anchor's ids, one server's failure in a fan-out, and the fold of per-server outcomes into the
// `*WithErrors` shapes.
const { fromNative, nativeCall, errorDetailsOf, toPlainError } = require('../errors.cjs');
const { UnauthorizedError } = require('../oauth/oauth.cjs');
const { isPolicyCode } = require('./defaults.cjs');

function mastraError(host, id, err, details, category) {
  const { MastraError, ErrorDomain, ErrorCategory } = host.kit.deps;
  if (err instanceof MastraError) return err;
  return new MastraError({ id, domain: ErrorDomain.MCP, category: category ?? ErrorCategory.THIRD_PARTY, text: err?.message ?? String(err), details }, err);
}

/** The user-facing error for one server's failure in a fan-out. */
function serverFailure(host, server, nativeError, listErrorId) {
  const { MastraError, ErrorDomain, ErrorCategory } = host.kit.deps;
  const base = nativeError.code === 'UNAUTHORIZED' ? new UnauthorizedError(nativeError.message) : toPlainError(nativeError);
  if (isPolicyCode(nativeError.code)) {
    // allowedHosts / redirect policy: the anchor's ids, a user error, never retried.
    return new MastraError(
      { id: nativeError.code, domain: ErrorDomain.MCP, category: ErrorCategory.USER, text: nativeError.message, details: { name: server } },
      base,
    );
  }
  if (nativeError.duringConnect) {
    return new MastraError(
      {
        id: 'MCP_CLIENT_CONNECT_FAILED',
        domain: ErrorDomain.MCP,
        category: nativeError.code === 'INVALID_CONFIG' ? ErrorCategory.USER : ErrorCategory.THIRD_PARTY,
        text: `Failed to connect to MCP server ${server}: ${nativeError.detail ?? nativeError.message}`,
        details: { name: server },
      },
      base,
    );
  }
  return new MastraError(
    { id: listErrorId, domain: ErrorDomain.MCP, category: ErrorCategory.THIRD_PARTY, text: nativeError.message, details: { serverName: server } },
    base,
  );
}

/** Folds native fan-out outcomes into `{ [key], errors, errorDetails, durations? }`. */
function fold(host, outcomes, key, listErrorId, options, onValue) {
  const out = { [key]: {}, errors: {}, errorDetails: {} };
  if (options) out.durations = {};
  for (const o of outcomes) {
    if (options) out.durations[o.server] = o.durationMs;
    if (o.ok) {
      out[key][o.server] = onValue(o.server, o.value);
    } else {
      const err = serverFailure(host, o.server, o.error, listErrorId);
      const details = errorDetailsOf(err, err.message);
      out.errors[o.server] = details.message;
      out.errorDetails[o.server] = details;
      host.owner.logger?.error?.(`Failed to list ${key} from server ${o.server}: ${err.message}`);
    }
  }
  return out;
}

/** Runs one request of the API, its failure as a `MastraError` of `errorId`. */
async function run(host, errorId, details, fn) {
  try {
    if (details.serverName !== undefined) host.requireServer(details.serverName);
    return await fn();
  } catch (e) {
    throw mastraError(host, errorId, fromNative(e), details);
  }
}

/** Connects a server for the `on*` helpers, wrapping failures in the API's error id. */
async function connectFor(host, server, errorId, details) {
  try {
    host.requireServer(server);
    await nativeCall(host.native.connect(server));
  } catch (e) {
    throw mastraError(host, errorId, e, details);
  }
}

module.exports = { mastraError, serverFailure, fold, run, connectFor };

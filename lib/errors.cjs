'use strict';
// Turns errors from the native core (JSON in the message) into the errors Mastra users see.

/** Decodes a native error; returns null for errors that did not come from the core. */
function decodeNativeError(err) {
  const text = err && typeof err.message === 'string' ? err.message : '';
  if (!text.startsWith('{"')) return null;
  try {
    const data = JSON.parse(text);
    return data && typeof data.code === 'string' ? data : null;
  } catch {
    return null;
  }
}

/**
 * The plain error for a decoded core error, shaped like the MCP SDK's: `code` is the JSON-RPC
 * code for server errors and a string code (e.g. `REQUEST_TIMEOUT`) otherwise.
 */
function toPlainError(data) {
  const err = new Error(data.message);
  err.name = data.code === 'RPC_ERROR' ? 'ProtocolError' : data.code === 'UNKNOWN_SERVER' ? 'Error' : 'SdkError';
  err.code = data.code === 'RPC_ERROR' ? data.rpcCode : data.code;
  if (data.rpcData !== null && data.rpcData !== undefined) err.data = data.rpcData;
  if (typeof data.httpStatus === 'number') err.status = data.httpStatus;
  err.serverName = data.server;
  return err;
}

/** Any error thrown by a native call, made user-facing. Non-core errors pass through. */
function fromNative(err) {
  const data = decodeNativeError(err);
  return data ? Object.assign(toPlainError(data), { nativeCode: data.code, duringConnect: data.duringConnect }) : err;
}

/** Wraps a native promise so rejections come out as user-facing errors. */
async function nativeCall(promise) {
  try {
    return await promise;
  } catch (err) {
    throw fromNative(err);
  }
}

/**
 * `errorDetails` entry: walks the cause chain (bounded, cycle-safe) for the first HTTP status
 * and the deepest code, as `@mastra/mcp` does — but also reading MastraError's `id`.
 */
function errorDetailsOf(err, message) {
  let httpStatus;
  let code;
  const seen = new Set();
  let cur = err;
  for (let depth = 0; cur && typeof cur === 'object' && depth < 8 && !seen.has(cur); depth++) {
    seen.add(cur);
    for (const s of [cur.status, cur.statusCode, cur.data?.status, cur.data?.statusCode]) {
      if (httpStatus === undefined && Number.isInteger(s) && s >= 100 && s <= 599) httpStatus = s;
    }
    for (const c of [cur.code, cur.data?.code, cur.id]) {
      if (typeof c === 'string' || typeof c === 'number') {
        code = c;
        break;
      }
    }
    cur = cur.cause;
  }
  const out = { message: httpStatus !== undefined ? `${message} (HTTP ${httpStatus})` : message };
  if (httpStatus !== undefined) out.httpStatus = httpStatus;
  if (code !== undefined) out.code = code;
  return out;
}

module.exports = { decodeNativeError, toPlainError, fromNative, nativeCall, errorDetailsOf };

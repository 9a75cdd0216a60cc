'use strict';
// The MCP SDK's OAuth error classes, as its functions throw them. Instances carry the SDK's
// error brands, so `err instanceof OAuthError` also holds for the SDK's own classes.

const BRANDS = Symbol.for('mcp.sdk.errorBrands');

function stamp(instance, ...brands) {
  Object.defineProperty(instance, BRANDS, { value: new Set(brands), enumerable: false, configurable: true });
}

class OAuthError extends Error {
  constructor(code, message, errorUri) {
    super(message);
    this.code = code;
    this.errorUri = errorUri;
    this.name = 'OAuthError';
    stamp(this, 'mcp.OAuthError');
  }

  toResponseObject() {
    const response = { error: this.code, error_description: this.message };
    if (this.errorUri) response.error_uri = this.errorUri;
    return response;
  }

  static fromResponse(response) {
    return new OAuthError(response.error, response.error_description ?? response.error, response.error_uri);
  }
}

class OAuthClientFlowError extends Error {
  constructor(message, brand) {
    super(message);
    this.name = new.target.name;
    stamp(this, 'mcp.OAuthClientFlowError', brand);
  }
}

class IssuerMismatchError extends OAuthClientFlowError {
  constructor(message, { kind, expected, received }) {
    super(message, 'mcp.IssuerMismatchError');
    this.kind = kind;
    this.expected = expected;
    this.received = received;
  }
}

class RegistrationRejectedError extends OAuthClientFlowError {
  constructor(message, { status, body, submittedMetadata }) {
    super(message, 'mcp.RegistrationRejectedError');
    this.status = status;
    this.body = body;
    this.submittedMetadata = submittedMetadata;
  }
}

class InsecureTokenEndpointError extends OAuthClientFlowError {
  constructor(message, { tokenEndpoint }) {
    super(message, 'mcp.InsecureTokenEndpointError');
    this.tokenEndpoint = tokenEndpoint;
  }
}

class AuthorizationServerMismatchError extends OAuthClientFlowError {
  constructor(message, { recordedIssuer, currentIssuer }) {
    super(message, 'mcp.AuthorizationServerMismatchError');
    this.recordedIssuer = recordedIssuer;
    this.currentIssuer = currentIssuer;
  }
}

/** The error a step's JSON description stands for. */
function fromStepError(data) {
  switch (data.kind) {
    case 'OAuthError':
      return new OAuthError(data.code, data.message, data.errorUri ?? undefined);
    case 'IssuerMismatchError':
      return new IssuerMismatchError(data.message, { kind: data.issuerKind, expected: data.expected, received: data.received ?? undefined });
    case 'RegistrationRejectedError':
      return new RegistrationRejectedError(data.message, data);
    case 'InsecureTokenEndpointError':
      return new InsecureTokenEndpointError(data.message, data);
    case 'AuthorizationServerMismatchError':
      return new AuthorizationServerMismatchError(data.message, data);
    case 'TypeError':
      return new TypeError(data.message);
    default:
      return new Error(data.message);
  }
}

/** A rejection of a native step, as the SDK's error (other errors pass through). */
function fromNativeStep(err) {
  const text = err && typeof err.message === 'string' ? err.message : '';
  if (!text.startsWith('{"oauthStepError"')) return err;
  try {
    return fromStepError(JSON.parse(text).oauthStepError);
  } catch {
    return err;
  }
}

module.exports = {
  OAuthError,
  OAuthClientFlowError,
  IssuerMismatchError,
  RegistrationRejectedError,
  InsecureTokenEndpointError,
  AuthorizationServerMismatchError,
  fromStepError,
  fromNativeStep,
};

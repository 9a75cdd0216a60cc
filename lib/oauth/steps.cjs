'use strict';
// The OAuth functions @mastra/mcp re-exports from the MCP SDK, with the SDK's signatures and
// results. Each is one call into a step of the Rust OAuth engine; a custom `fetch` goes
// through the fetch bridge, the provider through the provider-operation port. Synchronous
// helpers stay synchronous.
const { oauthStep, oauthHelper } = require('../native.cjs');
const { FetchBridge } = require('../fetch-bridge.cjs');
const { callProvider, applyClientAuthentication } = require('./provider-ops.cjs');
const { OAuthError, fromNativeStep, fromStepError } = require('./errors.cjs');

const str = (u) => (u === undefined || u === null ? undefined : String(u));
const orUndefined = (v) => (v === null ? undefined : v);

/** Runs one native step with an optional `fetch` and provider-operation handler. */
async function step(name, input, { fetchFn, onProvider } = {}) {
  const label = input.label ?? 'OAuth';
  let fetchArgs = [undefined, undefined, undefined];
  if (typeof fetchFn === 'function') {
    const bridge = new FetchBridge({ [label]: { fetch: (url, init) => fetchFn(url, init) } }, new Map());
    fetchArgs = [(r) => bridge.fetch(r), (id) => bridge.read(id), (id) => bridge.cancel(id)];
  }
  const provider = onProvider ? (request) => onProvider(request) : undefined;
  try {
    return await oauthStep(name, { ...input, label }, ...fetchArgs, provider);
  } catch (err) {
    throw fromNativeStep(err);
  }
}

async function auth(provider, options) {
  const { serverUrl, authorizationCode, iss, scope, resourceMetadataUrl, fetchFn, skipIssuerMetadataValidation, forceReauthorization } =
    options ?? {};
  return step(
    'auth',
    {
      label: str(serverUrl),
      serverUrl: str(serverUrl),
      authorizationCode,
      iss,
      scope,
      resourceMetadataUrl: str(resourceMetadataUrl),
      skipIssuerMetadataValidation: !!skipIssuerMetadataValidation,
      forceReauthorization: !!forceReauthorization,
    },
    { fetchFn, onProvider: (request) => callProvider(provider, request) },
  );
}

async function discoverOAuthProtectedResourceMetadata(serverUrl, opts, fetchFn) {
  return step(
    'discoverOAuthProtectedResourceMetadata',
    { label: str(serverUrl), serverUrl: str(serverUrl), protocolVersion: opts?.protocolVersion, resourceMetadataUrl: str(opts?.resourceMetadataUrl) },
    { fetchFn },
  );
}

async function discoverOAuthMetadata(issuer, { authorizationServerUrl, protocolVersion } = {}, fetchFn) {
  const metadata = await step(
    'discoverOAuthMetadata',
    { label: str(issuer), issuer: str(issuer), authorizationServerUrl: str(authorizationServerUrl), protocolVersion },
    { fetchFn },
  );
  return orUndefined(metadata);
}

async function discoverAuthorizationServerMetadata(authorizationServerUrl, { fetchFn, protocolVersion, skipIssuerValidation } = {}) {
  const metadata = await step(
    'discoverAuthorizationServerMetadata',
    { label: str(authorizationServerUrl), authorizationServerUrl: str(authorizationServerUrl), protocolVersion, skipIssuerValidation: !!skipIssuerValidation },
    { fetchFn },
  );
  return orUndefined(metadata);
}

function buildDiscoveryUrls(authorizationServerUrl) {
  return oauthHelper('buildDiscoveryUrls', { url: String(authorizationServerUrl) }).map(({ url, type }) => ({ url: new URL(url), type }));
}

async function startAuthorization(authorizationServerUrl, { metadata, clientInformation, redirectUrl, scope, state, resource }) {
  const { authorizationUrl, codeVerifier } = await step('startAuthorization', {
    authorizationServerUrl: str(authorizationServerUrl),
    metadata,
    clientInformation,
    redirectUrl: str(redirectUrl),
    scope,
    state,
    resource: str(resource),
  });
  return { authorizationUrl: new URL(authorizationUrl), codeVerifier };
}

/** The `addClientAuthentication` option as a provider-operation handler. */
function clientAuthHandler(addClientAuthentication) {
  if (typeof addClientAuthentication !== 'function') return undefined;
  return ({ op, args }) => {
    if (op !== 'addClientAuthentication') throw new Error(`unexpected OAuth provider operation ${op}`);
    return applyClientAuthentication(addClientAuthentication, args);
  };
}

async function exchangeAuthorization(
  authorizationServerUrl,
  { metadata, clientInformation, authorizationCode, iss, codeVerifier, redirectUri, resource, addClientAuthentication, fetchFn },
) {
  return step(
    'exchangeAuthorization',
    {
      label: str(authorizationServerUrl),
      authorizationServerUrl: str(authorizationServerUrl),
      metadata,
      clientInformation,
      authorizationCode,
      iss,
      codeVerifier,
      redirectUri: str(redirectUri),
      resource: str(resource),
    },
    { fetchFn, onProvider: clientAuthHandler(addClientAuthentication) },
  );
}

async function refreshAuthorization(authorizationServerUrl, { metadata, clientInformation, refreshToken, resource, addClientAuthentication, fetchFn }) {
  return step(
    'refreshAuthorization',
    {
      label: str(authorizationServerUrl),
      authorizationServerUrl: str(authorizationServerUrl),
      metadata,
      clientInformation,
      refreshToken,
      resource: str(resource),
    },
    { fetchFn, onProvider: clientAuthHandler(addClientAuthentication) },
  );
}

async function registerClient(authorizationServerUrl, { metadata, clientMetadata, scope, fetchFn }) {
  return step(
    'registerClient',
    { label: str(authorizationServerUrl), authorizationServerUrl: str(authorizationServerUrl), metadata, clientMetadata, scope },
    { fetchFn },
  );
}

function extractResourceMetadataUrl(res) {
  const header = res?.headers?.get?.('WWW-Authenticate');
  if (!header) return undefined;
  const url = oauthHelper('extractResourceMetadataUrl', { header });
  return url === null ? undefined : new URL(url);
}

async function selectResourceURL(serverUrl, provider, resourceMetadata) {
  const url = await step(
    'selectResourceURL',
    { label: str(serverUrl), serverUrl: str(serverUrl), resourceMetadata },
    { onProvider: (request) => callProvider(provider, request) },
  );
  return url === null ? undefined : new URL(url);
}

async function parseErrorResponse(input) {
  const isResponse = typeof Response !== 'undefined' && input instanceof Response;
  const body = isResponse ? await input.text() : String(input);
  const error = fromStepError(oauthHelper('parseErrorResponse', { status: isResponse ? input.status : undefined, body }));
  return error instanceof OAuthError ? error : new OAuthError('server_error', error.message);
}

function generateWWWAuthenticateHeader(options = {}) {
  return oauthHelper('generateWWWAuthenticateHeader', {
    resourceMetadataUrl: options.resourceMetadataUrl || undefined,
    additionalParams: options.additionalParams,
  });
}

function generateProtectedResourceMetadata(config) {
  return oauthHelper('generateProtectedResourceMetadata', config ?? {});
}

function extractBearerToken(authHeader) {
  if (!authHeader) return undefined;
  return orUndefined(oauthHelper('extractBearerToken', { header: String(authHeader) }));
}

module.exports = {
  auth,
  discoverOAuthProtectedResourceMetadata,
  discoverOAuthMetadata,
  discoverAuthorizationServerMetadata,
  buildDiscoveryUrls,
  startAuthorization,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  extractResourceMetadataUrl,
  selectResourceURL,
  parseErrorResponse,
  generateWWWAuthenticateHeader,
  generateProtectedResourceMetadata,
  extractBearerToken,
};

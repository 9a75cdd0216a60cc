'use strict';
// One operation of an OAuthClientProvider, as the core asks for it: JSON in, JSON out. The
// optional hooks of the SDK's provider (prepareTokenRequest, addClientAuthentication,
// validateResourceURL, state, ...) are listed in `config` so the core knows which exist.

const HOOKS = [
  'prepareTokenRequest',
  'addClientAuthentication',
  'validateResourceURL',
  'state',
  'saveClientInformation',
  'discoveryState',
  'saveDiscoveryState',
  'saveResourceUrl',
  'saveAuthorizationServerUrl',
  'invalidateCredentials',
  'beginAuthorizationSession',
  'endAuthorizationSession',
  'lockCredentials',
];

/** Calls `addClientAuthentication(headers, params, url, metadata)` on wire pairs. */
async function applyClientAuthentication(fn, { headers, params, url, metadata }) {
  const h = new Headers(headers);
  const p = new URLSearchParams(params);
  await fn(h, p, new URL(url), metadata ?? undefined);
  return { headers: [...h], params: [...p] };
}

/** Calls one method of an OAuth provider for the core. */
async function callProvider(provider, { op, args }) {
  if (!provider) throw new Error('no OAuth provider is configured for this server');
  switch (op) {
    case 'config':
      return {
        redirectUrl: provider.redirectUrl === undefined || provider.redirectUrl === null ? '' : String(provider.redirectUrl),
        clientMetadata: provider.clientMetadata ?? {},
        clientMetadataUrl: provider.clientMetadataUrl,
        hooks: HOOKS.filter((h) => typeof provider[h] === 'function'),
        dpop: provider.dpop === true,
      };
    case 'tokens':
    case 'clientInformation':
    case 'discoveryState':
      return (await provider[op]?.()) ?? null;
    case 'codeVerifier':
      return await provider.codeVerifier();
    case 'state':
      return (await provider.state?.()) ?? null;
    case 'beginAuthorizationSession':
      return (await provider.beginAuthorizationSession()) ?? null;
    case 'endAuthorizationSession':
      await provider.endAuthorizationSession();
      return null;
    case 'redirectToAuthorization':
      await provider.redirectToAuthorization(new URL(args));
      return null;
    case 'applyResolvedRedirectUrl':
      await provider.applyResolvedRedirectUrl?.(args.url, args.candidates);
      return null;
    case 'validateResourceURL': {
      const url = await provider.validateResourceURL(new URL(args.serverUrl), args.resource ?? undefined);
      return url ? String(url) : null;
    }
    case 'prepareTokenRequest': {
      const params = await provider.prepareTokenRequest(args ?? undefined);
      return params ? [...new URLSearchParams(params)] : null;
    }
    case 'addClientAuthentication':
      return applyClientAuthentication(provider.addClientAuthentication.bind(provider), args);
    case 'lockCredentials':
      return (await provider.lockCredentials?.(args)) ?? null;
    case 'unlockCredentials':
      await provider.unlockCredentials?.(args);
      return null;
    case 'saveTokens':
    case 'saveClientInformation':
    case 'saveCodeVerifier':
    case 'saveDiscoveryState':
    case 'saveResourceUrl':
    case 'saveAuthorizationServerUrl':
    case 'invalidateCredentials':
      await provider[op]?.(args);
      return null;
    default:
      throw new Error(`unknown OAuth provider operation ${op}`);
  }
}

module.exports = { callProvider, applyClientAuthentication };

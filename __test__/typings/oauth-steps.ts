// Type-checks the OAuth functions as user code calls them (sync helpers are not awaited).
import {
  auth,
  buildDiscoveryUrls,
  discoverAuthorizationServerMetadata,
  discoverOAuthMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractBearerToken,
  extractResourceMetadataUrl,
  generateProtectedResourceMetadata,
  generateWWWAuthenticateHeader,
  parseErrorResponse,
  refreshAuthorization,
  registerClient,
  selectResourceURL,
  startAuthorization,
  type AuthResult,
  type OAuthClientProvider,
  type OAuthTokens,
} from '../../index.js';

declare const provider: OAuthClientProvider;
declare const response: Response;

export async function steps(): Promise<void> {
  const urls: { url: URL; type: 'oauth' | 'oidc' }[] = buildDiscoveryUrls('https://as.example');
  const prmUrl: URL | undefined = extractResourceMetadataUrl(response);
  const header: string = generateWWWAuthenticateHeader({ resourceMetadataUrl: 'https://rs/prm', additionalParams: { error: 'invalid_token' } });
  const token: string | undefined = extractBearerToken(response.headers.get('authorization'));
  const prm = generateProtectedResourceMetadata({ resource: 'https://rs/mcp', authorizationServers: ['https://as'] });
  const resourceMeta = await discoverOAuthProtectedResourceMetadata('https://rs/mcp', { resourceMetadataUrl: prmUrl }, fetch);
  const legacy = await discoverOAuthMetadata(new URL('https://as'));
  const metadata = await discoverAuthorizationServerMetadata(resourceMeta.authorization_servers?.[0] ?? 'https://as', { fetchFn: fetch });
  const client = await registerClient('https://as', { metadata, clientMetadata: { redirect_uris: ['http://127.0.0.1/cb'] } });
  const { authorizationUrl, codeVerifier } = await startAuthorization('https://as', {
    metadata,
    clientInformation: client,
    redirectUrl: 'http://127.0.0.1/cb',
    resource: await selectResourceURL('https://rs/mcp', provider, resourceMeta),
  });
  const tokens: OAuthTokens = await exchangeAuthorization('https://as', {
    metadata,
    clientInformation: client,
    authorizationCode: authorizationUrl.searchParams.get('code') ?? '',
    codeVerifier,
    redirectUri: 'http://127.0.0.1/cb',
    addClientAuthentication: (headers, params) => {
      headers.set('x', 'y');
      params.set('client_id', client.client_id);
    },
  });
  await refreshAuthorization('https://as', { clientInformation: client, refreshToken: tokens.refresh_token ?? '' });
  const result: AuthResult = await auth(provider, { serverUrl: 'https://rs/mcp', fetchFn: fetch });
  const error = await parseErrorResponse(response);
  const code: string = error.code;
  void [urls, header, token, prm, legacy, result, code];
}

/**
 * Which client we are at an authorization server, and how we prove it at its
 * token endpoint. In the MCP authorization spec's order: a pre-registered or
 * stored registration for that issuer, a client ID metadata document where the
 * server supports them, dynamic client registration (RFC 7591). Registrations
 * are per issuer: credentials from one authorization server are never shown to
 * another.
 */
import * as oauth from 'oauth4webapi';
import { messageOf } from '../../../machines/errors.ts';
import { requestOptions, type Fetch } from './discovery.ts';
import { AuthError } from './errors.ts';
import type { AuthorizationCodeProvider, ClientInformation } from './provider.ts';

/** The client identity to use at `as`, registering one if need be. */
export async function clientFor(provider: AuthorizationCodeProvider, as: oauth.AuthorizationServer, fetcher: Fetch): Promise<ClientInformation> {
  const stored = await provider.clientInformation(as.issuer);
  if (stored !== undefined) return stored;
  if (as.client_id_metadata_document_supported === true && provider.clientMetadataUrl !== undefined) {
    return { clientId: provider.clientMetadataUrl, tokenEndpointAuthMethod: 'none' };
  }
  if (as.registration_endpoint === undefined) {
    throw new AuthError('registration_failed', `${as.issuer} offers no dynamic registration and no client is registered there`);
  }
  const supported = as.token_endpoint_auth_methods_supported;
  const method = supported === undefined || supported.includes('none') ? 'none' : supported.find((name) => name === 'client_secret_basic' || name === 'client_secret_post');
  const metadata = provider.clientMetadata;
  let registered: Registration;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: metadata.clientName,
        redirect_uris: [provider.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        application_type: metadata.applicationType ?? 'native',
        ...(method !== undefined ? { token_endpoint_auth_method: method } : {}),
        ...(metadata.clientUri !== undefined ? { client_uri: metadata.clientUri } : {}),
      },
      requestOptions(as.registration_endpoint, fetcher),
    );
    registered = await readRegistration(response);
  } catch (cause) {
    throw new AuthError('registration_failed', `dynamic registration at ${as.issuer} failed: ${messageOf(cause)}`, { cause });
  }
  const information: ClientInformation = { clientId: registered.client_id };
  if (typeof registered.client_secret === 'string') information.clientSecret = registered.client_secret;
  // A server that does not echo the method registered the one we asked for (RFC 7591 §3.2.1).
  const registeredMethod = registered.token_endpoint_auth_method ?? method;
  if (registeredMethod === 'client_secret_basic' || registeredMethod === 'client_secret_post' || registeredMethod === 'none') {
    information.tokenEndpointAuthMethod = registeredMethod;
  }
  await provider.saveClientInformation(as.issuer, information);
  return information;
}

/** How a client with these credentials authenticates at `as`'s token endpoint. */
export function clientAuthentication(client: { clientSecret?: string; tokenEndpointAuthMethod?: ClientInformation['tokenEndpointAuthMethod'] }, as: oauth.AuthorizationServer): oauth.ClientAuth {
  const secret = client.clientSecret;
  if (secret === undefined || client.tokenEndpointAuthMethod === 'none') return oauth.None();
  if (client.tokenEndpointAuthMethod === 'client_secret_post') return oauth.ClientSecretPost(secret);
  if (client.tokenEndpointAuthMethod === 'client_secret_basic') return clientSecretBasic(secret);
  // RFC 8414: an absent list means client_secret_basic.
  const supported = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  return !supported.includes('client_secret_basic') && supported.includes('client_secret_post') ? oauth.ClientSecretPost(secret) : clientSecretBasic(secret);
}

/**
 * client_secret_basic with RFC 6749 §2.3.1's form encoding as URLSearchParams does it. oauth4webapi's
 * also escapes `-`, `.`, `_` and `~`, which servers that do not decode the credentials (the
 * conformance suites' among them) then fail to match; ids of unreserved characters pass unchanged here.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return (_as, client, _body, headers) => {
    headers.set('authorization', `Basic ${Buffer.from(`${encode(client.client_id)}:${encode(secret)}`).toString('base64')}`);
  };
}

interface Registration {
  client_id: string;
  client_secret?: unknown;
  token_endpoint_auth_method?: unknown;
}

/**
 * A registration response (RFC 7591 §3.2.1), read here rather than by oauth4webapi, which refuses a
 * client secret without `client_secret_expires_at`: servers commonly omit it (the conformance suites'
 * authorization servers among them), and it only bounds how long the secret lasts.
 */
async function readRegistration(response: Response): Promise<Registration> {
  if (response.status !== 201 && response.status !== 200) {
    const body = await response.text().catch(() => '');
    throw new Error(`HTTP ${response.status} ${body.slice(0, 200)}`);
  }
  const body: unknown = await response.json();
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof record.client_id !== 'string' || record.client_id === '') throw new Error('the response has no client_id');
  return { ...record, client_id: record.client_id };
}

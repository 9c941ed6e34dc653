/**
 * Finds who issues tokens for an MCP server: its protected-resource metadata
 * (RFC 9728; from the challenge's `resource_metadata`, else the path-based
 * and root well-known URLs), then that authorization server's metadata
 * (RFC 8414 and OpenID discovery, the issuer checked by oauth4webapi). A
 * server with no protected-resource metadata is a 2025-03-26 server: its
 * origin is the authorization server, with `/authorize`, `/token` and
 * `/register` where it publishes no metadata either.
 */
import * as oauth from 'oauth4webapi';
import { isOAuthLoopbackHostname } from '../../protocol/loopback.ts';
import type { BearerChallenge } from './challenge.ts';
import { AuthError } from './errors.ts';

/** What discovery found out about one protected MCP server. */
export interface Discovered {
  /** The `resource` parameter: the protected-resource metadata's identifier as published, else the server URL. */
  resource: string;
  /** The authorization server's metadata; `issuer` names it. */
  as: oauth.AuthorizationServer;
  /** The scopes the protected resource lists (`scopes_supported`), if it lists any. */
  resourceScopes: string[] | undefined;
  /**
   * Whether the authorization server's metadata must list S256 in `code_challenge_methods_supported`: from
   * 2025-06-18 on, a client MUST refuse to proceed when it is absent; a 2025-03-26 server (no protected-resource
   * metadata) had no such rule, and its endpoints may be defaults with no metadata at all.
   */
  pkceMustBeListed: boolean;
}

/** The fetch all discovery and OAuth requests go through (the transport's). */
export type Fetch = typeof fetch;

/** oauth4webapi request options: our fetch, and plain http only to a loopback host (local development and tests). */
export function requestOptions(url: string | URL | undefined, fetcher: Fetch): { [oauth.customFetch]: Fetch; [oauth.allowInsecureRequests]: boolean } {
  const parsed = url === undefined ? undefined : new URL(url);
  return { [oauth.customFetch]: fetcher, [oauth.allowInsecureRequests]: parsed?.protocol === 'http:' && isOAuthLoopbackHostname(parsed.hostname) };
}

/** Discovers the resource and authorization server of `server`, preferring what a 401 challenge pointed at. */
export async function discover(server: URL, challenge: BearerChallenge | undefined, fetcher: Fetch): Promise<Discovered> {
  const resourceMetadata = await fetchResourceMetadata(server, challenge, fetcher);
  if (resourceMetadata === undefined) {
    // 2025-03-26: no protected-resource metadata; the server's origin is the authorization server. Its
    // metadata is as trustworthy as the server itself, which we already chose; its issuer (for the `iss`
    // check) is what it says, since that revision named no issuer to compare with.
    const issuer = server.origin;
    const as = (await fetchServerMetadata(issuer, fetcher, false)) ?? {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
    };
    return { resource: canonical(server), as, resourceScopes: undefined, pkceMustBeListed: false };
  }
  const issuer = resourceMetadata.authorizationServers[0]!;
  const as = await fetchServerMetadata(issuer, fetcher, true);
  if (as === undefined) throw new AuthError('discovery_failed', `no authorization server metadata for ${issuer}`);
  return { resource: resourceMetadata.resource, as, resourceScopes: resourceMetadata.scopes, pkceMustBeListed: true };
}

/** The server URL as a resource identifier: no fragment. */
const canonical = (server: URL): string => {
  const url = new URL(server);
  url.hash = '';
  return url.href;
};

interface ResourceMetadata {
  resource: string;
  authorizationServers: string[];
  scopes: string[] | undefined;
}

async function fetchResourceMetadata(server: URL, challenge: BearerChallenge | undefined, fetcher: Fetch): Promise<ResourceMetadata | undefined> {
  const candidates: string[] = [];
  if (challenge?.resourceMetadata !== undefined) candidates.push(new URL(challenge.resourceMetadata, server).href);
  const path = server.pathname.replace(/\/$/, '');
  if (path !== '') candidates.push(`${server.origin}/.well-known/oauth-protected-resource${path}`);
  candidates.push(`${server.origin}/.well-known/oauth-protected-resource`);
  for (const url of candidates) {
    const body = await fetchJson(url, fetcher);
    if (body === undefined) continue;
    const metadata = readResourceMetadata(body, url);
    // RFC 9728 §3.3: the metadata must be about this server; otherwise a server could send us to any AS for any resource.
    if (!covers(metadata.resource, server)) {
      throw new AuthError('resource_mismatch', `the protected-resource metadata at ${url} is for ${metadata.resource}, not ${server.href}`);
    }
    return metadata;
  }
  return undefined;
}

function readResourceMetadata(body: unknown, url: string): ResourceMetadata {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { resource, authorization_servers: servers, scopes_supported: scopes } = record;
  if (typeof resource !== 'string' || !URL.canParse(resource)) {
    throw new AuthError('discovery_failed', `the protected-resource metadata at ${url} has no valid "resource"`);
  }
  const authorizationServers = Array.isArray(servers) ? servers.filter((entry): entry is string => typeof entry === 'string' && URL.canParse(entry)) : [];
  if (authorizationServers.length === 0) {
    throw new AuthError('discovery_failed', `the protected-resource metadata at ${url} names no authorization server`);
  }
  return {
    resource,
    authorizationServers,
    scopes: Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === 'string') : undefined,
  };
}

/** Whether a resource identifier covers the server URL: same origin, and a path that is the server's or a parent of it. */
function covers(resource: string, server: URL): boolean {
  const url = new URL(resource);
  if (url.origin !== server.origin) return false;
  const prefix = url.pathname.replace(/\/$/, '');
  return server.pathname === prefix || server.pathname.startsWith(`${prefix}/`);
}

/** RFC 8414 §3.1 and OpenID discovery, in the order the MCP authorization spec gives. */
function serverMetadataUrls(issuer: URL): string[] {
  const path = issuer.pathname.replace(/\/$/, '');
  if (path === '') return [`${issuer.origin}/.well-known/oauth-authorization-server`, `${issuer.origin}/.well-known/openid-configuration`];
  return [
    `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.origin}/.well-known/openid-configuration${path}`,
    `${issuer.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The metadata of the authorization server `issuer`; its `issuer` must be that one when `checkIssuer` (RFC 8414 §3.3). */
async function fetchServerMetadata(issuer: string, fetcher: Fetch, checkIssuer: boolean): Promise<oauth.AuthorizationServer | undefined> {
  const expected = new URL(issuer);
  for (const url of serverMetadataUrls(expected)) {
    const response = await fetchOk(url, fetcher);
    if (response === undefined) continue;
    try {
      const claimed = checkIssuer ? issuer : ((await response.clone().json()) as { issuer?: unknown }).issuer;
      if (typeof claimed !== 'string' || !URL.canParse(claimed)) throw new Error('"issuer" is not a URL');
      return await oauth.processDiscoveryResponse(new URL(claimed), response);
    } catch (cause) {
      const mismatch = cause instanceof oauth.OperationProcessingError && cause.code === oauth.JSON_ATTRIBUTE_COMPARISON;
      throw mismatch
        ? new AuthError('issuer_mismatch', `the authorization server metadata at ${url} is not for ${issuer}`, { cause })
        : new AuthError('discovery_failed', `the authorization server metadata at ${url} is invalid`, { cause });
    }
  }
  return undefined;
}

/** A 2xx response, or undefined for a 4xx (nothing there); a network failure or 5xx fails discovery. */
async function fetchOk(url: string, fetcher: Fetch): Promise<Response | undefined> {
  let response: Response;
  const get = () => fetcher(url, { headers: { accept: 'application/json' }, redirect: 'follow' });
  try {
    // A GET is safe to repeat: once more on a fresh connection, for a keep-alive socket the server closed while idle.
    response = await get().catch(get);
  } catch (cause) {
    throw new AuthError('discovery_failed', `could not fetch ${url}`, { cause });
  }
  if (response.ok) return response;
  await response.body?.cancel().catch(() => undefined);
  if (response.status >= 400 && response.status < 500) return undefined;
  throw new AuthError('discovery_failed', `${url} answered HTTP ${response.status}`);
}

async function fetchJson(url: string, fetcher: Fetch): Promise<unknown> {
  const response = await fetchOk(url, fetcher);
  if (response === undefined) return undefined;
  try {
    return await response.json();
  } catch (cause) {
    throw new AuthError('discovery_failed', `${url} did not answer JSON`, { cause });
  }
}

/**
 * The seam between the HTTP transport and authorization: the token a request
 * carries, and what a refusal (401, or 403 `insufficient_scope`) means.
 * Without an `auth` provider a 401 is an `AuthError('unauthorized')`.
 * The authorizer (and oauth4webapi with it) is loaded only for a transport
 * that has an `auth` provider: a client without one, or a process that only
 * imports the package, does not pay for loading them.
 */
import type { Authorizer } from './authorizer.ts';
import { readBearerChallenge } from './challenge.ts';
import type { Fetch } from './discovery.ts';
import { AuthError } from './errors.ts';
import type { AuthProvider } from './provider.ts';
import { boundedFetch } from './bounded-fetch.ts';

/** Retries a request gets after authorization flows: a first login, then a step-up. */
const MAX_AUTH_RETRIES = 2;

/** What http.ts asks about authorization, per request. */
export interface AuthHook {
  /** The access token the next request carries, if any. */
  token(): Promise<string | undefined>;
  /**
   * Reads a response to a request that carried `sent`: false when it is no
   * authorization refusal; true once a retry is worth it (its body is then
   * consumed); rejects with an AuthError when authorization cannot succeed.
   */
  refused(response: Response, sent: string | undefined, retries: number): Promise<boolean>;
}

/**
 * The hooks of one `httpTransport` factory: one Authorizer per endpoint, kept
 * across the transports a reconnect makes, so tokens and metadata carry over.
 */
export function authHooks(provider: AuthProvider | undefined, fetcher: Fetch): (endpoint: URL) => AuthHook {
  const authorizers = new Map<string, Promise<Authorizer>>();
  return (endpoint) => {
    if (provider === undefined) return unauthenticated;
    let authorizer = authorizers.get(endpoint.href);
    if (authorizer === undefined) {
      authorizer = import('./authorizer.ts').then((loaded) => new loaded.Authorizer(provider, endpoint, boundedFetch(fetcher)));
      authorizers.set(endpoint.href, authorizer);
    }
    return authenticated(authorizer);
  };
}

const unauthenticated: AuthHook = {
  token: async () => undefined,
  refused: async (response) => {
    if (response.status !== 401) return false;
    await response.body?.cancel().catch(() => undefined);
    throw new AuthError('unauthorized', 'HTTP 401: the server requires authorization and the transport has no auth provider');
  },
};

const authenticated = (loading: Promise<Authorizer>): AuthHook => ({
  token: async () => (await loading).accessToken(),
  refused: async (response, sent, retries) => {
    const challenge = readBearerChallenge(response.headers.get('www-authenticate'));
    const stepUp = response.status === 403 && challenge?.error === 'insufficient_scope';
    if (response.status !== 401 && !stepUp) return false;
    await response.body?.cancel().catch(() => undefined);
    if (retries >= MAX_AUTH_RETRIES) throw new AuthError('rejected', `HTTP ${response.status} again after ${retries} authorizations`);
    await (await loading).refused(response.status, challenge, sent);
    return true;
  },
});

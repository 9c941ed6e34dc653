/**
 * The authorization state of one MCP server, shared by every transport one
 * `httpTransport({ auth })` factory makes, so a reconnect starts from the
 * tokens and metadata already at hand.
 *
 * Before a request: the stored access token, refreshed first when it has
 * expired. On a 401: discovery (again: the resource may have moved to another
 * authorization server), then a refresh where the refresh token's issuer is
 * still the one in charge, else a new grant. On a 403 `insufficient_scope`:
 * a new grant for the union of the scopes asked for so far and those
 * challenged (step-up), or `AuthError('insufficient_scope')` when that asks
 * for nothing new, so a server that never accepts ends the loop. One flow at
 * a time: requests refused meanwhile wait for it and retry with its token.
 */
import * as oauth from 'oauth4webapi';
import { messageOf } from '../../../machines/errors.ts';
import type { BearerChallenge } from './challenge.ts';
import { discover, requestOptions, type Discovered, type Fetch } from './discovery.ts';
import { AuthError } from './errors.ts';
import type { AuthProvider, ClientCredentialsProvider, ClientInformation, OAuthTokens } from './provider.ts';
import { clientAuthentication, clientFor } from './registration.ts';

/** A token this close to its expiry is refreshed before use rather than sent to be refused. */
const EXPIRY_MARGIN_MS = 30_000;

const scopesOf = (scope: string | undefined): string[] => (scope ?? '').split(' ').filter((entry) => entry !== '');

/** Keeps tokens for one MCP server and obtains new ones when it refuses them. */
export class Authorizer {
  #tokens: OAuthTokens | undefined;
  #loaded = false;
  #discovered: Discovered | undefined;
  /** Every scope asked for so far: a re-authorization asks for them again alongside the new ones (SEP-2350). */
  readonly #requested = new Set<string>();
  #flow: Promise<void> | undefined;

  constructor(
    private readonly provider: AuthProvider,
    private readonly server: URL,
    private readonly fetcher: Fetch,
  ) {}

  /** The access token for the next request, if there is one; an expired one is refreshed first where it can be. */
  async accessToken(): Promise<string | undefined> {
    await this.#flow?.catch(() => undefined);
    const tokens = await this.#stored();
    if (tokens === undefined || !this.#expired(tokens) || tokens.refreshToken === undefined) return tokens?.accessToken;
    await this.#exclusive(async () => {
      try {
        await this.#refresh(await this.#discovery(undefined), tokens);
      } catch {
        // The server's 401 will start a new grant.
      }
    });
    return this.#tokens?.accessToken;
  }

  /**
   * The server refused `sent` (the token the request carried) with this status
   * and challenge. Resolves once a retry is worth it; rejects with an AuthError.
   */
  async refused(status: number, challenge: BearerChallenge | undefined, sent: string | undefined): Promise<void> {
    if (this.#flow !== undefined) {
      await this.#flow;
      return;
    }
    // Another request already replaced the token this one was refused with.
    if (this.#tokens !== undefined && this.#tokens.accessToken !== sent) return;
    await this.#exclusive(() => (status === 403 ? this.#stepUp(challenge) : this.#reauthorize(challenge, sent)));
  }

  async #exclusive(flow: () => Promise<void>): Promise<void> {
    const running = flow().finally(() => {
      if (this.#flow === running) this.#flow = undefined;
    });
    this.#flow = running;
    await running;
  }

  async #reauthorize(challenge: BearerChallenge | undefined, sent: string | undefined): Promise<void> {
    const discovered = await this.#discovery(challenge, true);
    const tokens = await this.#stored();
    if (sent !== undefined && tokens?.refreshToken !== undefined && tokens.issuer === discovered.as.issuer) {
      try {
        await this.#refresh(discovered, tokens);
        return;
      } catch {
        // A refused refresh token: a new grant follows.
      }
    }
    await this.#grant(discovered, this.#scopeFor(discovered, challenge));
  }

  async #stepUp(challenge: BearerChallenge | undefined): Promise<void> {
    const discovered = await this.#discovery(challenge);
    const held = new Set([...this.#requested, ...scopesOf(this.#tokens?.scope)]);
    const wanted = scopesOf(challenge?.scope);
    if (wanted.every((scope) => held.has(scope))) {
      throw new AuthError('insufficient_scope', `the server still wants ${challenge?.scope ?? 'more scopes'} after they were granted`);
    }
    await this.#grant(discovered, [...new Set([...held, ...wanted])]);
  }

  /**
   * Scope selection (MCP authorization, "scope selection strategy"): the challenge's scopes, else the
   * resource's `scopes_supported`, else none; plus what was asked before, what the application wants, and
   * `offline_access` where the authorization server offers it and a user signs in (SEP-2207).
   */
  #scopeFor(discovered: Discovered, challenge: BearerChallenge | undefined): string[] {
    const scopes = new Set([...this.#requested, ...scopesOf(this.provider.scope)]);
    for (const scope of challenge?.scope !== undefined ? scopesOf(challenge.scope) : (discovered.resourceScopes ?? [])) scopes.add(scope);
    if (this.provider.kind === 'authorization_code' && scopes.size > 0 && discovered.as.scopes_supported?.includes('offline_access')) scopes.add('offline_access');
    return [...scopes];
  }

  async #discovery(challenge: BearerChallenge | undefined, fresh = false): Promise<Discovered> {
    if (this.#discovered === undefined || fresh) this.#discovered = await discover(this.server, challenge, this.fetcher);
    return this.#discovered;
  }

  async #stored(): Promise<OAuthTokens | undefined> {
    if (!this.#loaded) {
      this.#tokens = await this.provider.tokens();
      this.#loaded = true;
    }
    return this.#tokens;
  }

  #expired(tokens: OAuthTokens): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt - EXPIRY_MARGIN_MS <= Date.now();
  }

  async #grant(discovered: Discovered, scopes: string[]): Promise<void> {
    for (const scope of scopes) this.#requested.add(scope);
    const { as, resource } = discovered;
    if (this.provider.kind === 'client_credentials') return this.#clientCredentials(this.provider, discovered, scopes);
    const provider = this.provider;
    const information = await clientFor(provider, as, this.fetcher);
    const client: oauth.Client = { client_id: information.clientId };
    const methods = as.code_challenge_methods_supported;
    if (methods === undefined ? discovered.pkceMustBeListed : !methods.includes('S256')) {
      throw new AuthError('authorization_failed', `${as.issuer} does not list PKCE with S256 (code_challenge_methods_supported); refusing to proceed`);
    }
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    if (as.authorization_endpoint === undefined) throw new AuthError('discovery_failed', `${as.issuer} has no authorization endpoint`);
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', provider.redirectUri);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
    url.searchParams.set('resource', resource);
    const callback = await provider.redirectToAuthorization(url);
    let parameters: URLSearchParams;
    try {
      parameters = oauth.validateAuthResponse(as, client, callback, state);
    } catch (cause) {
      throw new AuthError('authorization_failed', `the authorization response from ${as.issuer} was refused: ${messageOf(cause)}`, { cause });
    }
    const response = await this.#tokenRequest(() =>
      oauth.authorizationCodeGrantRequest(as, client, clientAuthentication(information, as), parameters, provider.redirectUri, verifier, {
        additionalParameters: { resource },
        ...requestOptions(as.token_endpoint, this.fetcher),
      }),
    );
    await this.#keep(await this.#tokenResponse(() => oauth.processAuthorizationCodeResponse(as, client, response)), as, scopes);
  }

  async #clientCredentials(provider: ClientCredentialsProvider, { as, resource }: Discovered, scopes: string[]): Promise<void> {
    const client: oauth.Client = { client_id: provider.clientId };
    const authentication =
      provider.privateKey !== undefined ? oauth.PrivateKeyJwt(provider.privateKey) : clientAuthentication(provider.clientSecret !== undefined ? { clientSecret: provider.clientSecret } : {}, as);
    const parameters: Record<string, string> = { resource };
    if (scopes.length > 0) parameters.scope = scopes.join(' ');
    const response = await this.#tokenRequest(() =>
      oauth.clientCredentialsGrantRequest(as, client, authentication, parameters, requestOptions(as.token_endpoint, this.fetcher)),
    );
    await this.#keep(await this.#tokenResponse(() => oauth.processClientCredentialsResponse(as, client, response)), as, scopes);
  }

  async #refresh({ as, resource }: Discovered, tokens: OAuthTokens): Promise<void> {
    if (tokens.refreshToken === undefined) throw new AuthError('token_failed', 'no refresh token');
    let information: ClientInformation;
    if (this.provider.kind === 'client_credentials') {
      information = { clientId: this.provider.clientId, ...(this.provider.clientSecret !== undefined ? { clientSecret: this.provider.clientSecret } : {}) };
    } else information = await clientFor(this.provider, as, this.fetcher);
    const client: oauth.Client = { client_id: information.clientId };
    const refreshToken = tokens.refreshToken;
    const response = await this.#tokenRequest(() =>
      oauth.refreshTokenGrantRequest(as, client, clientAuthentication(information, as), refreshToken, {
        additionalParameters: { resource },
        ...requestOptions(as.token_endpoint, this.fetcher),
      }),
    );
    const fresh = await this.#tokenResponse(() => oauth.processRefreshTokenResponse(as, client, response));
    // A server that does not rotate refresh tokens keeps the old one valid.
    await this.#keep({ ...fresh, refresh_token: fresh.refresh_token ?? refreshToken }, as, scopesOf(tokens.scope));
  }

  async #tokenRequest(request: () => Promise<Response>): Promise<Response> {
    try {
      return await request();
    } catch (cause) {
      throw new AuthError('token_failed', `the token request failed: ${messageOf(cause)}`, { cause });
    }
  }

  async #tokenResponse(process: () => Promise<oauth.TokenEndpointResponse>): Promise<oauth.TokenEndpointResponse> {
    try {
      return await process();
    } catch (cause) {
      throw new AuthError('token_failed', `the token endpoint refused: ${messageOf(cause)}`, { cause });
    }
  }

  async #keep(response: oauth.TokenEndpointResponse, as: oauth.AuthorizationServer, requested: string[]): Promise<void> {
    const tokens: OAuthTokens = { accessToken: response.access_token, issuer: as.issuer };
    if (response.refresh_token !== undefined) tokens.refreshToken = response.refresh_token;
    if (response.expires_in !== undefined) tokens.expiresAt = Date.now() + response.expires_in * 1000;
    const scope = response.scope ?? (requested.length > 0 ? requested.join(' ') : undefined);
    if (scope !== undefined) tokens.scope = scope;
    this.#tokens = tokens;
    this.#loaded = true;
    await this.provider.saveTokens(tokens);
  }
}

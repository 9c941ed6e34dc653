/**
 * What an application gives `httpTransport({ auth })`: where tokens and
 * client registrations live, and how the user is sent to the authorization
 * server. Two kinds: a user signs in (`authorization_code`), or the service
 * is its own principal (`client_credentials`, the MCP client-credentials
 * extension for machine-to-machine use).
 */
import type { webcrypto } from 'node:crypto';

/** A value or a promise of it: storage may be synchronous (memory) or not (a database, a keychain). */
export type Awaitable<T> = T | Promise<T>;

/** The tokens an authorization server issued, as the provider stores them. */
export interface OAuthTokens {
  /** Sent as `Authorization: Bearer …` on every request to the MCP server. */
  accessToken: string;
  /** Exchanged for a new access token when this one expires or is refused, without user action. */
  refreshToken?: string;
  /** When the access token expires (milliseconds since the epoch), if the server said. */
  expiresAt?: number;
  /** The scopes granted (or, when the server did not say, requested), space-separated. */
  scope?: string;
  /** The issuer of the authorization server that issued them: a refresh goes only there. */
  issuer?: string;
}

/** A client identity at one authorization server: pre-registered, or obtained by dynamic registration. */
export interface ClientInformation {
  /** The client identifier. */
  clientId: string;
  /** The client secret, for a confidential client. */
  clientSecret?: string;
  /** How the client authenticates at the token endpoint; chosen from the server's metadata when absent. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** What dynamic client registration sends about this client (RFC 7591). */
export interface ClientMetadata {
  /** A name the authorization server shows the user. */
  clientName: string;
  /** `native` for a CLI or desktop app (loopback redirect), `web` for a server-side app; default `native`. */
  applicationType?: 'native' | 'web';
  /** A page about the client. */
  clientUri?: string;
}

/** A user signs in at the authorization server: the authorization-code flow with PKCE. */
export interface AuthorizationCodeProvider {
  /** Discriminates the provider kinds. */
  readonly kind: 'authorization_code';
  /** Where the authorization server sends the user back; it must reach the application. */
  readonly redirectUri: string;
  /** Sent on dynamic registration. */
  readonly clientMetadata: ClientMetadata;
  /**
   * An https URL serving this client's metadata document: used as the client id
   * where the authorization server supports client ID metadata documents, in
   * preference to dynamic registration.
   */
  readonly clientMetadataUrl?: string;
  /**
   * Scopes the application wants beyond what the server asks for (space-separated).
   * `offline_access` is added by itself where the authorization server lists it.
   */
  readonly scope?: string;
  /**
   * The client identity registered at this issuer: a pre-registered one, or one saved by
   * `saveClientInformation`. Undefined: register (metadata document or dynamic registration).
   */
  clientInformation(issuer: string): Awaitable<ClientInformation | undefined>;
  /** Keeps what dynamic registration at this issuer returned, for the next `clientInformation(issuer)`. */
  saveClientInformation(issuer: string, information: ClientInformation): Awaitable<void>;
  /** The stored tokens, if any: a reconnect (or a restart) uses them before asking anyone. */
  tokens(): Awaitable<OAuthTokens | undefined>;
  /** Stores new tokens; `undefined` when the stored ones were found useless. */
  saveTokens(tokens: OAuthTokens | undefined): Awaitable<void>;
  /**
   * Sends the user to `url` (open a browser, print it, answer a web request with a redirect)
   * and resolves with the URL the authorization server redirected back to (`redirectUri` with
   * `code`, `state` and `iss`), or just its query parameters. The flow checks `state` and `iss`.
   * The request that needed authorization waits meanwhile, within its timeout.
   */
  redirectToAuthorization(url: URL): Promise<URL | URLSearchParams>;
}

/** The service is its own principal: the client-credentials grant (machine to machine), no user. */
export interface ClientCredentialsProvider {
  /** Discriminates the provider kinds. */
  readonly kind: 'client_credentials';
  /** The client identifier registered at the authorization server. */
  readonly clientId: string;
  /** The client secret (client_secret_basic, or client_secret_post where only that is supported). */
  readonly clientSecret?: string;
  /**
   * A private key for private_key_jwt client authentication, instead of a secret: Node's WebCrypto key type,
   * so the application's tsconfig needs no DOM lib.
   */
  readonly privateKey?: webcrypto.CryptoKey;
  /** Scopes to ask for (space-separated); by default those the server names. */
  readonly scope?: string;
  /** The stored tokens, if any. */
  tokens(): Awaitable<OAuthTokens | undefined>;
  /** Stores new tokens; `undefined` when the stored ones were found useless. */
  saveTokens(tokens: OAuthTokens | undefined): Awaitable<void>;
}

/** What the `auth` option of `httpTransport` takes. */
export type AuthProvider = AuthorizationCodeProvider | ClientCredentialsProvider;

/**
 * The one error class of authorization: every way a protected server can
 * stay closed to us, told apart by `code`.
 */
import { McpActorsError } from '../../protocol/errors.ts';

/**
 * Why authorization failed.
 *
 * - `unauthorized`: the server answered 401 (or 403) and the transport has no `auth` option.
 * - `discovery_failed`: no usable protected-resource or authorization-server metadata.
 * - `resource_mismatch`: the protected-resource metadata names another resource than the server we talk to.
 * - `issuer_mismatch`: the authorization-server metadata names another issuer than the one it was fetched for.
 * - `registration_failed`: no client identity: nothing pre-registered, no metadata document accepted, no dynamic registration.
 * - `authorization_failed`: the authorization response was an error, or failed the state or `iss` check.
 * - `token_failed`: the token endpoint refused the grant (the code, the refresh token or the client credentials).
 * - `insufficient_scope`: the server still refuses after we asked for every scope it named (step-up gave up).
 * - `rejected`: the server refused a fresh token once more.
 */
export type AuthErrorCode =
  | 'unauthorized'
  | 'discovery_failed'
  | 'resource_mismatch'
  | 'issuer_mismatch'
  | 'registration_failed'
  | 'authorization_failed'
  | 'token_failed'
  | 'insufficient_scope'
  | 'rejected';

/** Authorization for a protected MCP server failed; `code` says how, `cause` carries the underlying error. */
export class AuthError extends McpActorsError {
  override readonly name = 'AuthError';
  constructor(
    /** How authorization failed. */
    readonly code: AuthErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

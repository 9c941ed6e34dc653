/**
 * Reads a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1):
 * the parameters an MCP client acts on.
 */

/** What a Bearer challenge asks for. */
export interface BearerChallenge {
  /** `invalid_token`, `insufficient_scope`, … */
  error?: string;
  /** The scopes the server wants, space-separated. */
  scope?: string;
  /** Where the protected-resource metadata is. */
  resourceMetadata?: string;
}

// auth-param = token "=" ( token / quoted-string ), quoted-string with backslash escapes.
const PARAM = /([A-Za-z0-9_!#$%&'*+.^`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;

/** The Bearer challenge of a `WWW-Authenticate` header, or undefined when it carries none. */
export function readBearerChallenge(header: string | null): BearerChallenge | undefined {
  if (header === null) return undefined;
  const start = header.search(/(^|[\s,])Bearer(\s|$)/i);
  if (start < 0) return undefined;
  const rest = header.slice(start).replace(/^[\s,]*Bearer/i, '');
  // The parameters end where another scheme's challenge begins ("…, Basic realm=x").
  const end = rest.search(/,\s*[A-Za-z0-9_-]+\s+[A-Za-z0-9_-]+\s*=/);
  const params = new Map<string, string>();
  for (const match of (end < 0 ? rest : rest.slice(0, end)).matchAll(PARAM)) {
    const name = match[1]!.toLowerCase();
    if (!params.has(name)) params.set(name, match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!);
  }
  const challenge: BearerChallenge = {};
  const error = params.get('error');
  const scope = params.get('scope');
  const resourceMetadata = params.get('resource_metadata');
  if (error) challenge.error = error;
  if (scope) challenge.scope = scope;
  if (resourceMetadata) challenge.resourceMetadata = resourceMetadata;
  return challenge;
}

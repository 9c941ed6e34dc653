/**
 * CORS for the origins the endpoint's policy allows (http-guard.ts), so that a
 * browser page on another origin (a web app listed in `allowedOrigins`, a dev
 * server on another loopback port) can be an MCP client of this server.
 * Without it a browser sends the preflight a JSON POST needs and gets 405,
 * and even a same-site page could not read `Mcp-Session-Id` to go on with its
 * legacy session. A request from an origin the policy refuses is refused
 * before it gets here (403, no CORS headers), so nothing below widens who may
 * call: it only lets an allowed page read the answer.
 *
 * No credentials: MCP authorizes with a bearer token in `Authorization`,
 * which a preflight allows like any header, never with cookies.
 */
import type { HttpRequestHead } from './http-exchange.ts';

/** The methods the endpoint serves; a preflight and a 405 list them. */
export const ENDPOINT_METHODS = 'GET, POST, DELETE';

/** The response headers a page may read beyond the safelisted ones. */
const EXPOSED = 'mcp-session-id, mcp-protocol-version, retry-after, www-authenticate';

/** How long a browser may reuse a preflight's answer, in seconds (Chromium keeps it at most 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = '7200';

/** A header list as a preflight asks for it: comma-separated tokens (RFC 9110 field names), nothing else. */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The headers every answer to a request from `origin` (already allowed) carries. */
export function crossOriginHeaders(req: HttpRequestHead): Record<string, string> {
  const origin = single(req.headers.origin);
  if (origin === undefined) return {};
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED, vary: 'Origin' };
}

/**
 * The answer to an OPTIONS: a preflight (from an allowed origin) gets the methods and the headers it asked for,
 * whatever their names (the modern era's `Mcp-Param-*` headers are named after each tool's parameters); a plain
 * OPTIONS gets the methods.
 */
export function preflightHeaders(req: HttpRequestHead): Record<string, string> {
  const asked = single(req.headers['access-control-request-headers'])?.trim();
  if (single(req.headers.origin) === undefined || single(req.headers['access-control-request-method']) === undefined) {
    return { allow: `${ENDPOINT_METHODS}, OPTIONS` };
  }
  return {
    'access-control-allow-methods': ENDPOINT_METHODS,
    ...(asked !== undefined && HEADER_LIST.test(asked) ? { 'access-control-allow-headers': asked } : {}),
    'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}

/**
 * How the HTTP transport meets a redirect from the MCP endpoint. fetch's own following turns a POST into a
 * body-less GET on a 301, 302 or 303 (which an MCP endpoint answers with a confusing 405), and carries the caller's
 * headers and `Mcp-Session-Id` to another origin on a 307 or 308. Here a 307 or 308 to the same origin is followed
 * (method and body kept, at most `MAX_REDIRECTS` hops); any other redirect fails the request with
 * HttpRedirectError, which says where the server points, so the endpoint can be configured right.
 */
import { McpActorsError } from '../protocol/errors.ts';
import type { Fetch } from './auth/discovery.ts';

/** The most same-origin 307/308 hops one request follows. */
export const MAX_REDIRECTS = 5;

/** The MCP endpoint answered with a redirect the transport does not follow: a 301, 302 or 303, or one to another origin. */
export class HttpRedirectError extends McpActorsError {
  override readonly name = 'HttpRedirectError';
  readonly code = 'http_redirect';
  constructor(
    /** The redirect status. */
    readonly status: number,
    /** Where it points (resolved against the request's URL); undefined when it named no `Location`. */
    readonly location: string | undefined,
    /** The URL that redirected. */
    readonly from: string,
  ) {
    super(`${from} redirects (HTTP ${status}) to ${location ?? 'nowhere'}: not followed (only a 307 or 308 to the same origin is); give httpTransport the endpoint's own URL`);
  }
}

/** `fetcher`, following only same-origin 307 and 308 redirects (MAX_REDIRECTS at most) and refusing the others. */
export function redirectingFetch(fetcher: Fetch): Fetch {
  return async (input, init = {}) => {
    if (input instanceof Request) return fetcher(input, init);
    let url = new URL(input);
    for (let hop = 0; ; hop++) {
      const response = await fetcher(url, { ...init, redirect: 'manual' });
      if (response.status < 300 || response.status > 399 || response.status === 304) return response;
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      const next = location === null ? undefined : URL.canParse(location, url) ? new URL(location, url) : undefined;
      const follows = (response.status === 307 || response.status === 308) && next?.origin === url.origin && hop < MAX_REDIRECTS;
      if (!follows) throw new HttpRedirectError(response.status, next?.href ?? location ?? undefined, url.href);
      url = next!;
    }
  };
}

/**
 * DNS-rebinding protection for the HTTP endpoint, as the spec requires: a
 * request whose `Origin` is present and not allowed gets 403, and while the
 * Host is checked (a loopback bind, or a mounted handler whose app's bind is
 * unknown) a `Host` that names neither loopback nor an allowed name gets 403
 * too (a rebinding page reaches us under its own host name).
 *
 * Loopback is all of 127.0.0.0/8, `::1` and `localhost`: a server bound to
 * 127.0.0.2 accepts `Host: 127.0.0.2:port`. A loopback name can only come
 * from a page served by this machine, so accepting every one is safe.
 *
 * Without `allowedOrigins`, the allowed origins are the loopback ones, and
 * only while the Host is checked. An Origin equal to the Host header proves
 * nothing (a rebound page sends exactly that), so without a Host check and
 * without `allowedOrigins` every request carrying an Origin is refused:
 * browsers cannot reach such a server unless their origins are listed.
 * Non-browser clients send no Origin and are unaffected.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from '../protocol/loopback.ts';

/** Who may call an endpoint, as the HTTP options say it (see `HttpHandlerOptions`). */
export interface OriginOptions {
  allowedOrigins?: string[];
  allowedHosts?: string[] | 'any';
}

export interface OriginPolicy {
  /** Exact origins allowed (e.g. `https://app.example.com`); undefined: the defaults above. */
  allowedOrigins: string[] | undefined;
  /** Host names accepted besides the loopback ones while the Host is checked. */
  allowedHosts: string[];
  /** Whether `Host` must name loopback or one of `allowedHosts`. */
  checkHost: boolean;
}

/**
 * The policy of an endpoint. `loopbackBind` is whether the server listens on
 * loopback; a mounted handler cannot know its app's bind and passes true, the
 * safe assumption. `allowedHosts: 'any'` turns the Host check off.
 */
export const originPolicy = (options: OriginOptions, loopbackBind: boolean): OriginPolicy => ({
  allowedOrigins: options.allowedOrigins,
  allowedHosts: Array.isArray(options.allowedHosts) ? options.allowedHosts.map((name) => name.toLowerCase()) : [],
  checkHost: loopbackBind && options.allowedHosts !== 'any',
});

/** The hostname a Host or Origin names, normalized as URLs do (`127.1` is 127.0.0.1, IPv6 compressed). */
function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Undefined when the request may proceed, else why it is refused. */
export function rejectForeignOrigin(headers: IncomingHttpHeaders, policy: OriginPolicy): string | undefined {
  const origin = single(headers.origin);
  if (origin !== undefined) {
    if (policy.allowedOrigins) {
      if (!policy.allowedOrigins.includes(origin)) return `Origin ${origin} is not allowed`;
    } else {
      if (!policy.checkHost) return `Origin ${origin} is not allowed: this server lists no allowedOrigins`;
      const hostname = hostnameOf(origin);
      if (hostname === undefined) return `Origin ${origin} is malformed`;
      if (!isLoopbackHost(hostname)) return `Origin ${origin} is not allowed`;
    }
  }
  if (policy.checkHost) {
    const host = single(headers.host);
    const hostname = host === undefined ? undefined : hostnameOf(`http://${host}`);
    if (hostname === undefined || (!isLoopbackHost(hostname) && !policy.allowedHosts.includes(hostname))) {
      return `Host ${host ?? '(none)'} names neither loopback nor one of allowedHosts`;
    }
  }
  return undefined;
}

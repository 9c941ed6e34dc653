/**
 * DNS-rebinding protection for the HTTP endpoint, as the spec requires: a
 * request whose `Origin` is present and not allowed gets 403, and while the
 * server is bound to a loopback address a `Host` that does not name loopback
 * gets 403 too (a rebinding page reaches us under its own host name).
 *
 * Without `allowedOrigins`, the allowed origins are the loopback ones, and
 * only on a loopback bind. An Origin equal to the Host header proves nothing
 * (a rebound page sends exactly that), so on a non-loopback bind without
 * `allowedOrigins` every request carrying an Origin is refused: browsers
 * cannot reach such a server unless their origins are listed. Non-browser
 * clients send no Origin and are unaffected.
 */
import type { IncomingMessage } from 'node:http';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export interface OriginPolicy {
  /**
   * Exact origins allowed (e.g. `https://app.example.com`). When omitted:
   * loopback origins on a loopback bind, and no Origin at all otherwise.
   */
  allowedOrigins?: string[];
  /** Extra Host names accepted on a loopback bind (e.g. a local reverse proxy name). */
  allowedHosts?: string[];
  loopback: boolean;
}

export const isLoopbackAddress = (host: string): boolean =>
  LOOPBACK_HOSTS.has(host) || host.startsWith('127.');

function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
}

/** Undefined when the request may proceed, else why it is refused. */
export function rejectForeignOrigin(req: IncomingMessage, policy: OriginPolicy): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (policy.allowedOrigins) {
      if (!policy.allowedOrigins.includes(origin)) return `Origin ${origin} is not allowed`;
    } else {
      if (!policy.loopback) return `Origin ${origin} is not allowed: this server lists no allowedOrigins`;
      let hostname: string;
      try {
        hostname = new URL(origin).hostname;
      } catch {
        return `Origin ${origin} is malformed`;
      }
      if (!LOOPBACK_HOSTS.has(hostname)) return `Origin ${origin} is not allowed`;
    }
  }
  if (policy.loopback) {
    const hostname = req.headers.host === undefined ? undefined : hostnameOf(req.headers.host);
    if (hostname === undefined || (!LOOPBACK_HOSTS.has(hostname) && !policy.allowedHosts?.includes(hostname))) {
      return `Host ${req.headers.host ?? '(none)'} is not allowed for a loopback server`;
    }
  }
  return undefined;
}

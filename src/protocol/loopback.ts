/**
 * The package's two loopback rules, one module so that the server's Host
 * check, the inspector's bind and OAuth's plain-http allowance cannot drift
 * apart. They differ on purpose: a bind or a Host header is loopback for any
 * name or address of this machine, while OAuth allows plain http only to the
 * three loopback hosts of its redirect rules.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** An IPv6 address in the compressed form URLs use (`0:0:0:0:0:0:0:1` is `::1`, `::ffff:127.0.0.1` is `::ffff:7f00:1`). */
function compressedIPv6(address: string): string {
  return new URL(`http://[${address}]`).hostname.slice(1, -1);
}

/**
 * Whether `host`, a bind address or a URL hostname (IPv6 with or without
 * brackets, any case), names this machine only: `localhost`, 127.0.0.0/8,
 * `::1`, or 127.0.0.0/8 mapped into IPv6.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (bare === 'localhost') return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  if (!isIPv6(bare)) return false;
  const address = compressedIPv6(bare);
  return address === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(address);
}

/**
 * Whether plain http may go to `hostname` (a URL's `hostname`, IPv6 in
 * brackets) in OAuth: exactly `localhost`, `127.0.0.1` or `[::1]`, the
 * loopback hosts of OAuth 2.1's and RFC 8252's loopback redirect rules.
 * Narrower than isLoopbackHost on purpose: anything else must use https.
 */
export function isOAuthLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

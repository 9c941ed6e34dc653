/**
 * The request metadata headers of Streamable HTTP (2026-07-28): the body's
 * method and target name mirrored into `Mcp-Method` / `Mcp-Name`, with the
 * spec's Base64 sentinel for values that are not safe plain ASCII, and the
 * values of `Mcp-Param-{Name}` headers.
 */
import type { JsonRpcMessage } from '../protocol/jsonrpc.ts';

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/** Methods whose `params.name` or `params.uri` is mirrored into `Mcp-Name`. */
const NAMED_METHODS: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** Visible ASCII and inner spaces only: no controls (tab included), no edge whitespace, no sentinel look-alike. */
function isPlainHeaderValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  if (value.length > 0 && (value[0] === ' ' || value[value.length - 1] === ' ')) return false;
  return !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
}

/** A header value as is when safe, else `=?base64?<UTF-8 as Base64>?=`. */
export function encodeHeaderValue(value: string): string {
  if (isPlainHeaderValue(value)) return value;
  return `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/** `Mcp-Method` for requests and notifications, and `Mcp-Name` where the method names a target. */
export function modernMessageHeaders(message: JsonRpcMessage): Record<string, string> {
  if (!('method' in message)) return {};
  const headers: Record<string, string> = { 'mcp-method': message.method };
  const field = NAMED_METHODS[message.method];
  const target = field === undefined ? undefined : message.params?.[field];
  if (typeof target === 'string') headers['mcp-name'] = encodeHeaderValue(target);
  return headers;
}

/**
 * An `Mcp-Param-{Name}` value: strings as `encodeHeaderValue` gives them,
 * integers in decimal, booleans as `true` / `false`; undefined for anything
 * else (null, objects), whose header is omitted.
 */
export function paramHeaderValue(value: unknown): string | undefined {
  if (typeof value === 'string') return encodeHeaderValue(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

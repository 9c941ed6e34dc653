/**
 * `Mcp-Param-{Name}` headers (2026-07-28 Streamable HTTP): a tool may mark
 * primitive arguments with `x-mcp-header` in its inputSchema, reachable from
 * the root through `properties` keys only. A tools/call over HTTP must then
 * carry the matching header for every marked argument present in the body,
 * with the same value (after Base64 sentinel decoding), or it is refused
 * with HeaderMismatch. Finding the marked arguments is shared with the
 * client transport (src/protocol/param-headers.ts).
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { markedParameters, valueAtPath } from '../protocol/param-headers.ts';
import { HeaderMismatchError } from './errors.ts';

const SENTINEL = /^=\?base64\?(.*)\?=$/;
/** RFC 4648 section 4 Base64, padded: what the spec's sentinel holds; anything else is refused, not guessed at. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value after Base64 sentinel decoding (`=?base64?…?=`); a value
 * without the whole sentinel is literal. Undefined when the sentinel holds
 * anything but padded Base64 of UTF-8 (`Buffer.from` alone would skip bad
 * characters and accept missing padding), which the caller refuses with -32020.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value);
  if (!match) return value;
  const encoded = match[1]!;
  if (!BASE64.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  // Non-zero bits after the last full byte: not the canonical encoding of any value.
  if (bytes.toString('base64') !== encoded) return undefined;
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value;
  if (typeof value === 'boolean') return header === String(value);
  if (typeof value === 'number') return header.trim() !== '' && Number(header) === value;
  return false;
}

/** The mismatch when a marked argument's header is missing or differs, else undefined. */
export function paramHeaderMismatch(schema: JsonObject, args: JsonObject, header: (name: string) => string | undefined): HeaderMismatchError | undefined {
  for (const { header: name, path } of markedParameters(schema)) {
    const value = valueAtPath(args, path);
    const raw = header(`mcp-param-${name.toLowerCase()}`);
    if (value === undefined || value === null) continue;
    if (raw === undefined) return new HeaderMismatchError(`Header mismatch: Mcp-Param-${name} header is required`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return new HeaderMismatchError(`Header mismatch: Mcp-Param-${name} header is not valid Base64 of UTF-8`);
    if (!sameValue(decoded, value)) {
      return new HeaderMismatchError(`Header mismatch: Mcp-Param-${name} header does not match argument ${path.join('.')}`);
    }
  }
  return undefined;
}

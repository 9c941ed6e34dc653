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

export function decodeHeaderValue(value: string): string {
  const match = SENTINEL.exec(value);
  return match ? Buffer.from(match[1]!, 'base64').toString('utf8') : value;
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
    if (!sameValue(decodeHeaderValue(raw), value)) {
      return new HeaderMismatchError(`Header mismatch: Mcp-Param-${name} header does not match argument ${path.join('.')}`);
    }
  }
  return undefined;
}

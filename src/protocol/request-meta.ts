/**
 * A request's `_meta` beyond what the client writes itself: OpenTelemetry's
 * trace context (`traceparent`, `tracestate`, `baggage`), a vendor's
 * prefixed keys, the modern era's `io.modelcontextprotocol/logLevel`. The
 * spec (2026-07-28, "General fields") fixes how a key is spelled; the keys
 * the client derives from its own state (the envelope, the progress token,
 * a listen's subscription id) are not the caller's to set, since a caller's
 * value would silently contradict the client's.
 */
import { InvalidRequestMetaError } from './errors.ts';
import type { JsonObject } from './jsonrpc.ts';
import { isLogLevel } from './log-level.ts';
import type { JsonValue } from './mcp-types.ts';
import { MetaKey } from './versions.ts';

/** `_meta` keys a caller adds to one request. */
export type RequestMeta = Readonly<Record<string, JsonValue>>;

/** The keys the client writes on its own; a caller naming one gets InvalidRequestMetaError. */
export const CLIENT_WRITTEN_META_KEYS: ReadonlySet<string> = new Set([
  'progressToken',
  MetaKey.protocolVersion,
  MetaKey.clientInfo,
  MetaKey.clientCapabilities,
  MetaKey.subscriptionId,
]);

/** The modern envelope's keys, which a server lifts out of the `_meta` a handler sees (it has them otherwise). */
export const ENVELOPE_META_KEYS: ReadonlySet<string> = new Set([MetaKey.protocolVersion, MetaKey.clientInfo, MetaKey.clientCapabilities, MetaKey.logLevel]);

/** Dot-separated labels, each a letter first and a letter or digit last, then `/`. */
const PREFIX = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/$/;
/** Empty, or alphanumeric at both ends with `-`, `_`, `.` and alphanumerics between. */
const NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

/** Why `key` is not a `_meta` key name the spec allows, or undefined when it is one. */
export function metaKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  if (slash >= 0 && !PREFIX.test(key.slice(0, slash + 1))) return 'its prefix is not dot-separated labels followed by "/"';
  if (!NAME.test(key.slice(slash + 1))) return 'its name must begin and end with a letter or digit, with only "-", "_", "." and alphanumerics between';
  return undefined;
}

/** The first key of `meta` a caller may not send, with why; undefined when every key may go out. */
export function requestMetaProblem(meta: RequestMeta): { key: string; problem: string } | undefined {
  for (const [key, value] of Object.entries(meta)) {
    if (CLIENT_WRITTEN_META_KEYS.has(key)) return { key, problem: 'the client writes it itself' };
    const problem = metaKeyProblem(key);
    if (problem !== undefined) return { key, problem };
    if (key === MetaKey.logLevel && !isLogLevel(value)) return { key, problem: 'it must be a log level (debug … emergency)' };
  }
  return undefined;
}

/**
 * `params` with `meta` added to its `_meta`; the params' own `_meta` keys (`request`'s raw form) are the caller's as
 * given and win. Throws InvalidRequestMetaError for a key of `meta` a caller may not send.
 */
export function withRequestMeta(method: string, params: JsonObject | undefined, meta: RequestMeta): JsonObject | undefined {
  const refused = requestMetaProblem(meta);
  if (refused) throw new InvalidRequestMetaError(method, refused.key, refused.problem);
  if (Object.keys(meta).length === 0) return params;
  return { ...params, _meta: { ...meta, ...(params?._meta as JsonObject | undefined) } };
}

/**
 * What a server handler sees of a request's `_meta` (`context.meta`): the keys as the client sent them, without the
 * modern envelope's, which the context carries otherwise (as the official SDKs lift them out too). Frozen: a
 * handler reads it.
 */
export function callerMeta(meta: unknown): Readonly<JsonObject> {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return EMPTY;
  let kept: JsonObject | undefined;
  for (const [key, value] of Object.entries(meta)) if (!ENVELOPE_META_KEYS.has(key)) (kept ??= {})[key] = value;
  // Most modern requests carry the envelope alone: they share the one empty object rather than make one each.
  return kept === undefined ? EMPTY : Object.freeze(kept);
}

const EMPTY: Readonly<JsonObject> = Object.freeze({});

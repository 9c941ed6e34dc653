/**
 * The shape of the shared stream in Redis: its keys, the two scripts that
 * keep an ordinal beside every entry, and the parsing of what Redis answers.
 * Keys share one hash tag so both scripts run on Redis Cluster too.
 *
 *   <prefix>:events   the stream: fields n (ordinal), o (origin), s (seq), e (event JSON)
 *   <prefix>:ordinal  the last ordinal given
 *   <prefix>:epoch    a random id set by the first node after the keys vanished
 */
import { McpActorsError } from '../protocol/errors.ts';
import type { ChangeEvent } from '../server/bus.ts';
import type { EntryHeader, StreamPosition } from './delivery-ledger.ts';
import { MAX_EVENT_BYTES, type StreamEntryProblem } from './entry-errors.ts';

/** The keys of one stream. */
export interface StreamKeys {
  events: string;
  ordinal: string;
  epoch: string;
}

export function streamKeys(prefix: string): StreamKeys {
  const tagged = prefix.includes('{') ? prefix : `{${prefix}}`;
  return { events: `${tagged}:events`, ordinal: `${tagged}:ordinal`, epoch: `${tagged}:epoch` };
}

/**
 * XADD, then INCR, in one step, so ordinals follow the stream's order without holes. The XADD comes first: a script's
 * writes before an error stay, so an INCR before an XADD Redis refuses (the events key of another type, its last id
 * taken) would leave a hole every reader resyncs on. The INCR after it cannot fail, as the GET checked the counter
 * first for what INCR refuses (a leading zero, past 2^63 - 1): an error reply means nothing was written, which the
 * bus relies on (delivery-ledger.ts, `refused`). At most 15 digits, so Lua's number holds it exactly; `%d` keeps it
 * out of exponent notation.
 */
const PUBLISH_SCRIPT = `local last = redis.call('GET', KEYS[2]) or '0'
if not (last == '0' or (string.match(last, '^[1-9]%d*$') and #last <= 15)) then return redis.error_reply('ERR ' .. KEYS[2] .. ' is not an ordinal') end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'n', string.format('%d', tonumber(last) + 1), 'o', ARGV[2], 's', ARGV[3], 'e', ARGV[4])
redis.call('INCR', KEYS[2])
return id`;

/** The head, read atomically: epoch (set if missing), last ordinal, last entry id. */
const HEAD_SCRIPT = `redis.call('SET', KEYS[1], ARGV[1], 'NX')
local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
local id = '0-0'
if last[1] then id = last[1][1] end
return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2]) or '0', id}`;

/** `event` as written to the stream: its type, and its URI for `resource_updated`, nothing else. */
export function encodeChangeEvent(event: ChangeEvent): string {
  return JSON.stringify(event.type === 'resource_updated' ? { type: event.type, uri: event.uri } : { type: event.type });
}

/** `event` is `encodeChangeEvent`'s text. */
export function publishCommand(keys: StreamKeys, maxLen: number, origin: string, seq: number, event: string): string[] {
  return ['EVAL', PUBLISH_SCRIPT, '2', keys.events, keys.ordinal, String(maxLen), origin, String(seq), event];
}

export function headCommand(keys: StreamKeys, epochCandidate: string): string[] {
  return ['EVAL', HEAD_SCRIPT, '3', keys.epoch, keys.ordinal, keys.events, epochCandidate];
}

/** The stream's newest entry only: its id is where the read barrier waits to. */
export function newestCommand(keys: StreamKeys): string[] {
  return ['XREVRANGE', keys.events, '+', '-', 'COUNT', '1'];
}

/** Orders stream ids (`<ms>-<seq>`, each part up to 2^64 - 1, beyond a number's precision) as Redis does. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = idParts(a);
  const [bMs, bSeq] = idParts(b);
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  return aSeq === bSeq ? 0 : aSeq < bSeq ? -1 : 1;
}

function idParts(id: string): [bigint, bigint] {
  const [ms = '0', seq = '0'] = id.split('-');
  return [BigInt(ms), BigInt(seq)];
}

/** The id of the newest entry (undefined for an empty or missing stream). */
export function parseNewestId(reply: unknown): string | undefined {
  if (!Array.isArray(reply)) throw new UnexpectedReplyError('XREVRANGE');
  if (reply.length === 0) return undefined;
  const entry: unknown = reply[0];
  const id = Array.isArray(entry) ? textOf(entry[0]) : undefined;
  if (id === undefined) throw new UnexpectedReplyError('XREVRANGE');
  return id;
}

/**
 * A bulk string as Redis sent it: a string, or the Buffer a client with a type mapping (`RESP_TYPES.BLOB_STRING:
 * Buffer`) makes of it; an application's client may have one, and the bus reads with a duplicate of it.
 */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  return undefined;
}

/**
 * The reply types an XREAD is sent with (node-redis's `typeMapping`; `RESP_TYPES.BLOB_STRING` is 36, `$`): bulk
 * strings as bytes, so an entry's size is known before any of it is decoded. A field value Redis accepts (512 MB)
 * can be longer than a JavaScript string may be, and a client that decoded it would fail inside its reply parser,
 * leaving the read unanswered for good.
 */
export const READ_REPLY_TYPES = { 36: Buffer } as const;

export function readCommand(keys: StreamKeys, after: string, count: number, blockMs?: number): string[] {
  const block = blockMs === undefined ? [] : ['BLOCK', String(blockMs)];
  return ['XREAD', 'COUNT', String(count), ...block, 'STREAMS', keys.events, after];
}

/** Thrown for a reply of a shape Redis does not give; never for an entry's content. */
export class UnexpectedReplyError extends McpActorsError {
  override readonly name = 'UnexpectedReplyError';
  readonly code = 'redis_unexpected_reply';
  constructor(what: string) {
    super(`unexpected reply from Redis to ${what}`);
  }
}

export function parseHead(reply: unknown): StreamPosition {
  if (!Array.isArray(reply) || reply.length !== 3) throw new UnexpectedReplyError('the head script');
  const [epoch, ordinal, id] = reply.map((part: unknown) => textOf(part) ?? String(part)) as [string, string, string];
  return { epoch, ordinal: Number(ordinal), id };
}

/** An entry as read: its header and event, or why it cannot be used (still counted for continuity). */
export type StreamEntry =
  | { ok: true; header: EntryHeader; event: ChangeEvent }
  | { ok: false; id: string; ordinal: number | undefined; problem: StreamEntryProblem };

/** The entries of an XREAD reply for one stream (none when it timed out). */
export function parseRead(reply: unknown): StreamEntry[] {
  if (reply === null || reply === undefined) return [];
  // RESP2: [[key, entries]]; RESP3: a map of key to entries, an object or (with a type mapping) a Map.
  const streams = Array.isArray(reply) ? reply : reply instanceof Map ? [...reply] : Object.entries(reply as object);
  const first: unknown = streams[0];
  if (!Array.isArray(first) || !Array.isArray(first[1])) throw new UnexpectedReplyError('XREAD');
  return (first[1] as unknown[]).map(parseEntry);
}

/** The longest origin read: node ids are UUIDs, and a reader keeps thousands of origins. */
const MAX_ORIGIN_LENGTH = 64;
/** The longest ordinal or seq read (`integer` takes up to 15 digits). */
const MAX_NUMBER_LENGTH = 15;

function parseEntry(raw: unknown): StreamEntry {
  const pair = Array.isArray(raw) ? (raw as unknown[]) : [];
  const id = textOf(pair[0]);
  const list = pair[1];
  if (id === undefined || !Array.isArray(list)) throw new UnexpectedReplyError('XREAD');
  // The fields a bus writes, undecoded: a name of one byte is one of them; any other is passed over unread.
  const fields = new Map<string, unknown>();
  for (let i = 0; i + 1 < list.length; i += 2) {
    const name = sizeOf(list[i]) === 1 ? textOf(list[i]) : undefined;
    if (name !== undefined) fields.set(name, list[i + 1]);
  }
  const ordinal = integer(boundedText(fields.get('n'), MAX_NUMBER_LENGTH));
  const seq = integer(boundedText(fields.get('s'), MAX_NUMBER_LENGTH));
  const origin = boundedText(fields.get('o'), MAX_ORIGIN_LENGTH);
  const malformed = (detail: Extract<StreamEntryProblem, { type: 'malformed' }>['detail']): StreamEntry => ({
    ok: false,
    id,
    ordinal,
    problem: { type: 'malformed', detail },
  });
  if (ordinal === undefined || seq === undefined || !origin) return malformed('bad_header');
  if (sizeOf(fields.get('e')) > MAX_EVENT_BYTES) return malformed('too_large');
  const text = textOf(fields.get('e'));
  const event = parseChangeEvent(text);
  if (!event || text === undefined) return malformed('not_a_change_event');
  return { ok: true, header: { id, ordinal, origin, seq, event: text }, event };
}

/** A bulk string's length in bytes (in UTF-16 units for one a client decoded already); 0 for anything else. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  return value instanceof Uint8Array ? value.byteLength : 0;
}

function boundedText(value: unknown, maxLength: number): string | undefined {
  return sizeOf(value) <= maxLength ? textOf(value) : undefined;
}

function integer(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

const SIMPLE_TYPES = new Set(['tools_list_changed', 'prompts_list_changed', 'resources_list_changed', 'everything_changed']);

/** Another node (or anyone with write access) wrote it: validate, never trust. */
export function parseChangeEvent(text: string | undefined): ChangeEvent | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, uri } = value as { type?: unknown; uri?: unknown };
  if (typeof type !== 'string') return undefined;
  if (SIMPLE_TYPES.has(type)) return { type } as ChangeEvent;
  if (type === 'resource_updated' && typeof uri === 'string') return { type, uri };
  return undefined;
}

/**
 * The change cache's public surface. `createChangeCache(client, options)`
 * (src/cache/change-cache.ts) returns a ChangeCache; the watcher CLI and
 * applications read it through these types only.
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { EntryKey } from './entries.ts';
import type { Interest } from './interest.ts';

export type { EntryKey, Interest };

/**
 * Where the cache stands. `awaitingAck`: the stream is asked for (a modern listen sent, a legacy listener being
 * registered) but not yet acknowledged, so nothing is notification-backed; `listening` only once it is.
 * `closed` is final: the client closed its connection (`close()` or
 * `shutdown()`), and reads reject with CacheClosedError.
 */
export type CacheState = 'idle' | 'negotiating' | 'awaitingAck' | 'listening' | 'recovering' | 'completed' | 'degraded' | 'noOverlap' | 'closed';

/**
 * How a read treats an entry that is invalid or being refetched. Before the first value exists both
 * modes wait for the initial fetch (up to `timeoutMs`): there is nothing stale to answer with.
 */
export type ReadMode =
  /** Wait for the refetch (up to `timeoutMs`), then return the fresh value. */
  | 'wait'
  /** Return at once; the value says whether it is current or stale. */
  | 'stale';

/** What a cache read answers: the value, and how far it can be trusted. */
export interface CacheRead<T> {
  /** The cached list or resource contents. */
  value: T;
  /** `current` when `backedBy` is `stream` or `ttl`; `stale`: invalid, refetching, or nothing says it is fresh. */
  freshness: 'current' | 'stale';
  /**
   * What makes it current: `stream`, a live stream (or listener) covers it, so a change would have
   * invalidated it; `ttl`, no stream covers it but the server's `ttlMs` hint has not run out (after
   * `degraded`, at most this); `none`, stale: invalid, or nothing says it is fresh (no live stream covers it and
   * its `ttlMs` has run out or was never given). A `wait` read refetches it first; a `stale` read answers at once
   * and refetches it in the background.
   */
  backedBy: 'stream' | 'ttl' | 'none';
  /** When the value was fetched (ms since epoch). */
  fetchedAt: number;
}

/** What the cache reports to `subscribe` listeners: its lifecycle (`state`), the notifications it acts on, and each entry's invalidate, refetch and replace. */
export type CacheEvent =
  /**
   * A lifecycle transition. `detail` by state: awaitingAck `{ era, filter }`, listening `{ era, filter, resumed }` (`resumed`: a stream
   * was open before this one), negotiating `{ attempt }`, recovering `{ attempt, delayMs, cause }` (while
   * the connection reconnects: its attempt so far, 0 at first),
   * noOverlap `{ capabilities }`, degraded the CacheDegradedReason, closed the client's
   * ConnectionClosedReason (`disconnected` or `shutdown`).
   */
  | { type: 'state'; state: CacheState; previous: CacheState; detail?: unknown }
  | { type: 'notification'; method: string; params: JsonObject }
  | { type: 'invalidated'; key: EntryKey }
  | { type: 'refetching'; key: EntryKey }
  | { type: 'replaced'; key: EntryKey; value: unknown; previous: unknown | undefined }
  | { type: 'refetch_failed'; key: EntryKey; error: Error };

/** The change cache: reads of the interest set's lists and resources, each as current as the server's notifications allow. */
export interface ChangeCache {
  /** Where the cache stands now. */
  readonly state: CacheState;
  /** The filter computed from interest ∩ the current server's capabilities; null when they do not overlap. */
  readonly filter: NotificationFilter | null;
  /**
   * Calls `listener` with every CacheEvent from now on; returns the unsubscribe function. A listener that throws is
   * reported through the client's `onError`, as a throwing `client.on` handler is, and stops neither the other
   * listeners nor the cache.
   */
  subscribe(listener: (event: CacheEvent) => void): () => void;
  /** The tool list (`tools` in the interest set); a read before the first fetch waits for it. */
  tools(options?: { mode?: ReadMode; timeoutMs?: number }): Promise<CacheRead<JsonObject[]>>;
  /** The prompt list (`prompts` in the interest set); a read before the first fetch waits for it. */
  prompts(options?: { mode?: ReadMode; timeoutMs?: number }): Promise<CacheRead<JsonObject[]>>;
  /** The resource list (`resources` in the interest set); a read before the first fetch waits for it. */
  resources(options?: { mode?: ReadMode; timeoutMs?: number }): Promise<CacheRead<JsonObject[]>>;
  /** The contents of one resource from the interest set's URIs. */
  contents(uri: string, options?: { mode?: ReadMode; timeoutMs?: number }): Promise<CacheRead<JsonObject>>;
  /** Stops the stream or listener; the cache ends as it is, and reads reject with CacheClosedError. */
  close(): Promise<void>;
  /** `close()`, for `await using cache = createChangeCache(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

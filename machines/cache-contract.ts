/**
 * The cache machine's contract (machines/cache.machine.ts): its input and
 * context, the events it takes, what it emits, its invoked actors' inputs,
 * and its recovery defaults. Kept apart so the machine file holds only its
 * states and rules.
 */
import type { ConnectionClosedReason } from './closed-reason.ts';
import type { Era } from './era.ts';
import type { NotificationFilter } from './notification-filter.ts';
import type { Backoff } from './backoff.ts';

/** Recovery after an unexpected close uses the project's one backoff policy. */
export type CacheRecovery = Backoff;

/**
 * Documented defaults: 5 attempts from 1 s doubling (jittered), never more than 16 s each. `maxAttempts`
 * also bounds how many of the connection's reconnect attempts the cache waits out before it is degraded.
 */
export const DEFAULT_CACHE_RECOVERY: CacheRecovery = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 16_000 };

/** What a negotiation tells the cache: the era and the advertised capabilities. */
export interface CacheNegotiation {
  era: Era;
  capabilities: Record<string, unknown>;
}

/** The interest set intersected with capabilities; `null` when they share nothing. */
export type Intersect = (capabilities: Record<string, unknown>) => NotificationFilter | null;

/** Why the cache is degraded. */
export type CacheDegradedReason =
  | { type: 'recovery_exhausted'; attempts: number; cause: unknown }
  | { type: 'connection_closed'; reason: ConnectionClosedReason };

/** What the cache machine starts with: the intersection it applies, its recovery policy and its jitter source. */
export interface CacheInput {
  intersect: Intersect;
  recovery?: CacheRecovery;
  /** A number in [0, 1] for jitter; injected so tests are deterministic. */
  random: () => number;
}

/** What the cache machine keeps between events. */
export interface CacheContext {
  intersect: Intersect;
  recovery: CacheRecovery;
  random: () => number;
  /** The wait before the current recovery attempt. */
  nextDelayMs: number;
  era: Era | undefined;
  capabilities: Record<string, unknown> | undefined;
  /** The intersection computed at the last negotiation. */
  filter: NotificationFilter | null;
  /** Recovery attempts since a stream last stayed open for the recovery window (`recovery.maxDelayMs`). */
  attempt: number;
  /** Streams that have opened so far: listening again after one resumes notification coverage. */
  streamsOpened: number;
  /** What the interrupted stream covered, until the cache has invalidated it. */
  interrupted: NotificationFilter | null;
  lastCause: unknown;
  degradedBy: CacheDegradedReason | undefined;
  /** `cache.started` was emitted: reads fetch on their own from then on. */
  started: boolean;
  /** The client's reason, once it closed the connection and so ended the cache. */
  closedBy: ConnectionClosedReason | undefined;
}

/** The events the cache machine takes: the connection's lifecycle, its stream's reports, and its start. */
export type CacheMachineEvent =
  | { type: 'cache.start' }
  /** The connection negotiated again on its own (a reconnect); the intersection is recomputed. */
  | ({ type: 'connection.ready'; generation: number } & CacheNegotiation)
  | { type: 'connection.lost'; cause: unknown }
  /**
   * The connection is about to make reconnect attempt `attempt`: the cache counts them, and the connections before
   * it that were lost soon after they were ready (`quickReadies`), against its bound.
   */
  | { type: 'connection.reconnecting'; attempt: number; quickReadies: number; delayMs: number; cause: unknown }
  | { type: 'connection.closed'; reason: ConnectionClosedReason }
  /** The stream is open (modern: acknowledged; legacy: listener registered); `honored` when the server narrowed the filter. */
  | { type: 'stream.opened'; honored?: NotificationFilter }
  /** A notification the stream selected: work for the cache, never a sign that the stream ended. */
  | { type: 'stream.notification'; method: string; params: Record<string, unknown> | undefined }
  /** The server answered the listen: a graceful end. */
  | { type: 'stream.ended_gracefully' }
  /**
   * The stream is live again after a gap (modern: re-listened and resynced; legacy: resubscribed); `honored` as for
   * `stream.opened`; `failed`, the URIs a legacy resubscribe was refused, which nothing covers now.
   */
  | { type: 'stream.resumed'; honored?: NotificationFilter; failed?: string[] }
  /** The live server dropped the stream unanswered while the connection stayed up; it re-listens on its own. */
  | { type: 'stream.interrupted'; cause: unknown }
  /** The stream's own re-listens (on the connection's backoff) ran out: nobody retries it any more. */
  | { type: 'stream.exhausted'; attempts: number; cause: unknown }
  /** The stream ended without an answer, or the peer went away. */
  | { type: 'stream.closed_unexpectedly'; cause: unknown };

/** What the cache machine tells src/cache to do or know. */
export type CacheEmitted =
  | { type: 'cache.notification'; method: string; params: Record<string, unknown> | undefined }
  | { type: 'cache.invalidate'; filter: NotificationFilter }
  /** A stream is live and keeps `filter` current; emitted before the gap's `cache.invalidate`. */
  | { type: 'cache.covered'; filter: NotificationFilter }
  /** No stream is live any more: nothing is notification-backed until the next `cache.covered`. */
  | { type: 'cache.uncovered' }
  /** The start is over (emitted once): entries nothing fetched yet are fetched when read. */
  | { type: 'cache.started' };

/** The input of the invoked stream: the era it is opened in, and the filter to listen for. */
export interface ListenInput {
  era: Era;
  filter: NotificationFilter;
}

/** The input of the invoked negotiation. */
export interface NegotiationInput {
  /** 0 for the first negotiation, n for recovery attempt n. */
  attempt: number;
}

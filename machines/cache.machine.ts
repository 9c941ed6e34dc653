/**
 * The change cache's lifecycle: negotiate, intersect the application's
 * interest with what the server advertises, listen for that intersection,
 * and tell apart the three ways a stream's story goes on:
 * - a notification is work (emitted as `cache.notification`), never an end;
 * - a graceful end (the server answered the listen) is `completed`, with no
 *   recovery attempt; only a later negotiation of the connection (a new
 *   server after a reconnect) intersects and listens again;
 * - an unexpected close is `recovering`: bounded exponential backoff, then a
 *   fresh negotiation and intersection before reopening. Once the new stream
 *   is open, everything the interrupted one covered is invalidated
 *   (`cache.invalidate`), since changes during the gap are unknown. When the
 *   attempts run out the cache is `degraded` and says why.
 * An empty intersection is `noOverlap`: nothing is opened, and the next
 * negotiation is intersected again.
 *
 * Entries and their freshness are not here (src/cache keeps them in a store);
 * this machine decides only what the cache is doing. Negotiation and the
 * stream (a modern listen or a legacy listener, chosen by era) are invoked
 * actors provided by src/cache; the intersection is the pure function the
 * input carries (src/cache/interest.ts binds it to the interest set).
 */
import { assign, emit, enqueueActions, fromCallback, fromPromise, setup, type EventObject } from 'xstate';
import type { ConnectionClosedReason } from './closed-reason.ts';
import type { Era } from './era.ts';
import type { NotificationFilter } from './notification-filter.ts';
import { backoffDelay, type Backoff } from './backoff.ts';

/** Recovery after an unexpected close uses the project's one backoff policy. */
export type CacheRecovery = Backoff;

/** Documented defaults: 5 attempts from 1 s doubling (jittered), never more than 16 s each. */
export const DEFAULT_CACHE_RECOVERY: CacheRecovery = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 16_000 };

/** What a negotiation tells the cache: the era and the advertised capabilities. */
export interface CacheNegotiation {
  era: Era;
  capabilities: Record<string, unknown>;
}

/** The interest set intersected with capabilities; `null` when they share nothing. */
export type Intersect = (capabilities: Record<string, unknown>) => NotificationFilter | null;

export type CacheDegradedReason =
  | { type: 'recovery_exhausted'; attempts: number; cause: unknown }
  | { type: 'connection_closed'; reason: ConnectionClosedReason };

export interface CacheInput {
  intersect: Intersect;
  recovery?: CacheRecovery;
  /** A number in [0, 1] for jitter; injected so tests are deterministic. */
  random: () => number;
}

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
  /** Recovery attempts since a stream last opened. */
  attempt: number;
  /** Streams that have opened so far: listening again after one resumes notification coverage. */
  streamsOpened: number;
  /** What the interrupted stream covered, until the cache has invalidated it. */
  interrupted: NotificationFilter | null;
  lastCause: unknown;
  degradedBy: CacheDegradedReason | undefined;
}

export type CacheMachineEvent =
  | { type: 'cache.start' }
  /** The connection negotiated again on its own (a reconnect); the intersection is recomputed. */
  | ({ type: 'connection.ready' } & CacheNegotiation)
  | { type: 'connection.lost'; cause: unknown }
  | { type: 'connection.closed'; reason: ConnectionClosedReason }
  /** The stream is open (modern: acknowledged; legacy: listener registered); `honored` when the server narrowed the filter. */
  | { type: 'stream.opened'; honored?: NotificationFilter }
  /** A notification the stream selected: work for the cache, never a sign that the stream ended. */
  | { type: 'stream.notification'; method: string; params: Record<string, unknown> | undefined }
  /** The server answered the listen: a graceful end. */
  | { type: 'stream.ended_gracefully' }
  /** The stream ended without an answer, or the peer went away. */
  | { type: 'stream.closed_unexpectedly'; cause: unknown };

export type CacheEmitted =
  | { type: 'cache.notification'; method: string; params: Record<string, unknown> | undefined }
  | { type: 'cache.invalidate'; filter: NotificationFilter }
  /** A stream is live and keeps `filter` current; emitted before the gap's `cache.invalidate`. */
  | { type: 'cache.covered'; filter: NotificationFilter }
  /** No stream is live any more: nothing is notification-backed until the next `cache.covered`. */
  | { type: 'cache.uncovered' };

export interface ListenInput {
  era: Era;
  filter: NotificationFilter;
}

export interface NegotiationInput {
  /** 0 for the first negotiation, n for recovery attempt n. */
  attempt: number;
}

export const cacheMachine = setup({
  types: {
    context: {} as CacheContext,
    events: {} as CacheMachineEvent,
    input: {} as CacheInput,
    emitted: {} as CacheEmitted,
  },
  actors: {
    // Provided by src/cache: resolves with the connection's current (or next) negotiation.
    negotiation: fromPromise<CacheNegotiation, NegotiationInput>(async () => {
      throw new Error('negotiation is provided by src/cache');
    }),
    // Provided by src/cache: opens the listen (modern) or listener (legacy) and sends back stream.* events.
    listen: fromCallback<EventObject, ListenInput>(() => {}),
  },
  guards: {
    hasOverlap: ({ context }) => context.filter !== null,
    attemptsLeft: ({ context }) => context.attempt < context.recovery.maxAttempts,
  },
  delays: {
    retryDelay: ({ context }) => context.nextDelayMs,
  },
  actions: {
    recordNegotiation: assign((_, negotiation: CacheNegotiation) => ({
      era: negotiation.era,
      capabilities: negotiation.capabilities,
    })),
    intersect: assign({ filter: ({ context }) => (context.capabilities ? context.intersect(context.capabilities) : null) }),
    // What the stream was asked to cover is invalidated once a new stream opens. A gap still pending
    // (this stream never opened, so it invalidated nothing) is kept; otherwise the stream's own filter is
    // taken, even if it never opened: a needless refetch then, never a missed change.
    leaveStream: assign({ interrupted: ({ context }) => context.interrupted ?? context.filter }),
    recordCause: assign({ lastCause: (_, params: { cause: unknown }) => params.cause }),
    countAttempt: assign(({ context }) => {
      const attempt = context.attempt + 1;
      return { attempt, nextDelayMs: backoffDelay(attempt, context.recovery, context.random()) };
    }),
    resetAttempts: assign({ attempt: 0 }),
    countStream: assign({ streamsOpened: ({ context }) => context.streamsOpened + 1 }),
    invalidateInterrupted: enqueueActions(({ context, enqueue }) => {
      if (context.interrupted === null) return;
      enqueue.emit({ type: 'cache.invalidate', filter: context.interrupted });
      enqueue.assign({ interrupted: null });
    }),
    announceCovered: emit(({ context, event }) => ({
      type: 'cache.covered' as const,
      filter: (event as { honored?: NotificationFilter }).honored ?? (context.filter as NotificationFilter),
    })),
    announceUncovered: emit({ type: 'cache.uncovered' as const }),
    forwardNotification: emit(({ event }) => {
      const { method, params } = event as Extract<CacheMachineEvent, { type: 'stream.notification' }>;
      return { type: 'cache.notification' as const, method, params };
    }),
    degradeExhausted: assign({
      degradedBy: ({ context }) => ({ type: 'recovery_exhausted' as const, attempts: context.attempt, cause: context.lastCause }),
    }),
    clearDegraded: assign({ degradedBy: undefined }),
    degradeClosed: assign({
      degradedBy: (_, params: { reason: ConnectionClosedReason }) => ({ type: 'connection_closed' as const, reason: params.reason }),
    }),
  },
}).createMachine({
  id: 'cache',
  context: ({ input }) => ({
    intersect: input.intersect,
    recovery: input.recovery ?? DEFAULT_CACHE_RECOVERY,
    random: input.random,
    nextDelayMs: 0,
    era: undefined,
    capabilities: undefined,
    filter: null,
    attempt: 0,
    streamsOpened: 0,
    interrupted: null,
    lastCause: undefined,
    degradedBy: undefined,
  }),
  initial: 'idle',
  on: {
    'connection.closed': {
      target: '.degraded',
      actions: { type: 'degradeClosed', params: ({ event }) => ({ reason: event.reason }) },
    },
  },
  states: {
    idle: {
      on: { 'cache.start': 'negotiating' },
    },
    negotiating: {
      invoke: {
        src: 'negotiation',
        input: ({ context }) => ({ attempt: context.attempt }),
        onDone: {
          target: 'intersecting',
          actions: { type: 'recordNegotiation', params: ({ event }) => event.output },
        },
        onError: { target: 'interrupted', actions: { type: 'recordCause', params: ({ event }) => ({ cause: event.error }) } },
      },
    },
    // A fresh intersection for every negotiation; never one carried over.
    intersecting: {
      entry: 'intersect',
      always: [{ guard: 'hasOverlap', target: 'listening' }, { target: 'noOverlap' }],
    },
    listening: {
      invoke: {
        src: 'listen',
        input: ({ context }) => ({ era: context.era as Era, filter: context.filter as NotificationFilter }),
      },
      initial: 'opening',
      states: {
        opening: {
          // Invalidating only once the new stream is open means no change falls between refetch and coverage.
          on: { 'stream.opened': { target: 'open', actions: ['resetAttempts', 'countStream', 'announceCovered', 'invalidateInterrupted'] } },
        },
        open: {
          exit: 'announceUncovered',
        },
      },
      on: {
        'stream.notification': { actions: 'forwardNotification' },
        'stream.ended_gracefully': 'completed',
        'stream.closed_unexpectedly': {
          target: 'interrupted',
          actions: ['leaveStream', { type: 'recordCause', params: ({ event }) => ({ cause: event.cause }) }],
        },
        'connection.lost': {
          target: 'interrupted',
          actions: ['leaveStream', { type: 'recordCause', params: ({ event }) => ({ cause: event.cause }) }],
        },
        // The connection renegotiated under the stream: what it covered is in doubt, and the server may differ.
        'connection.ready': {
          target: 'intersecting',
          actions: ['leaveStream', { type: 'recordNegotiation', params: ({ event }) => event }],
        },
      },
    },
    // The one place that decides between another attempt and giving up.
    interrupted: {
      always: [{ guard: 'attemptsLeft', target: 'recovering' }, { target: 'degraded', actions: 'degradeExhausted' }],
    },
    recovering: {
      entry: 'countAttempt',
      after: { retryDelay: 'negotiating' },
    },
    noOverlap: {
      entry: 'invalidateInterrupted',
      on: {
        'connection.ready': { target: 'intersecting', actions: { type: 'recordNegotiation', params: ({ event }) => event } },
      },
    },
    // The server said it was done (typically shutting down): no recovery. A new negotiation is a new
    // server, whose intersection is listened for afresh.
    completed: {
      on: {
        'connection.ready': { target: 'intersecting', actions: { type: 'recordNegotiation', params: ({ event }) => event } },
      },
    },
    degraded: {
      entry: 'invalidateInterrupted',
      on: {
        'connection.ready': {
          target: 'intersecting',
          actions: ['resetAttempts', 'clearDegraded', { type: 'recordNegotiation', params: ({ event }) => event }],
        },
      },
    },
  },
});

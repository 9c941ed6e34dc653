/**
 * The change cache's lifecycle: negotiate, intersect the application's
 * interest with what the server advertises, listen for that intersection,
 * and tell apart the three ways a stream's story goes on:
 * - a notification is work (emitted as `cache.notification`), never an end;
 * - a graceful end (the server answered the listen) is `completed`, with no
 *   recovery attempt; only a later negotiation of the connection (a new
 *   server after a reconnect) intersects and listens again;
 * - a lost connection is not the cache's to recover: recovery happens once,
 *   in the connection (reconnect backoff) and the stream (re-listen under the
 *   same id, then a resync snapshot; a legacy listener's reconnect report).
 *   The cache keeps its stream through the loss (`listening.paused`, which
 *   the application sees as `recovering`; the connection actor, the stream's
 *   owner, pauses and re-listens it), intersects afresh on every
 *   negotiation (closing a stream whose filter is out of date before it
 *   re-listens), and when the stream reports it resumed announces what it
 *   covers now (the honored filter, less any URI a legacy resubscribe lost)
 *   and invalidates everything the gap covered (`cache.invalidate`). Past
 *   `recovery.maxAttempts` reconnect attempts, or when the stream's own
 *   re-listens run out, it is `degraded` and says why. A stream the live
 *   server dropped (`stream.interrupted`; it re-listens on its own) waits in
 *   `listening.paused` the same way: nothing is covered until it resumes.
 * - a stream that ends unexpectedly while the connection stays up (the server
 *   cancelled or refused it) is the one case no other actor retries:
 *   `recovering`, with the bounded backoff, then a fresh negotiation and
 *   intersection before reopening, and the same invalidation once open. The
 *   attempts count on until a stream stays open for the backoff's longest
 *   delay (the rule the connection and the stream apply to their own runs),
 *   so a server that acknowledges each stream and cancels it at once ends in
 *   `degraded`, not in an endless loop.
 * An empty intersection is `noOverlap`: nothing is opened, and the next
 * negotiation is intersected again.
 *
 * The start is over (`cache.started`, once) when the first stream opens or
 * the cache settles without one (noOverlap, completed, degraded, or the first
 * stream failed): until then a read of an empty entry waits for the fetch the
 * opening starts instead of fetching on its own, so each entry is fetched
 * once. The client closing the connection on purpose (`disconnected`,
 * `shutdown`) ends the cache (`closed`, final) with nothing refetched; a
 * connection that ended otherwise leaves it `degraded`.
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
import { isWithin, type NotificationFilter } from './notification-filter.ts';
import { retryDelay } from './backoff.ts';
import {
  DEFAULT_CACHE_RECOVERY,
  type CacheNegotiation,
  type CacheInput,
  type CacheContext,
  type CacheMachineEvent,
  type CacheEmitted,
  type ListenInput,
  type NegotiationInput,
} from './cache-contract.ts';

// Its contract, for the files that import the machine.
export * from './cache-contract.ts';


/**
 * The connection's reconnect attempts as the cache counts them against its bound: a server that crashes right after
 * each start never fails an attempt, so its quick readies count as attempts, as they do for the connection's backoff.
 */
const attemptsCounted = (reconnecting: { attempt: number; quickReadies: number }): number => reconnecting.attempt + reconnecting.quickReadies;

/** What a stream that opened or resumed with `event` keeps current: what was honored, less the URIs it failed to resubscribe. */
function coverageOf(filter: NotificationFilter, event: { honored?: NotificationFilter; failed?: string[] }): NotificationFilter {
  const covered = event.honored ?? filter;
  const failed = new Set(event.failed ?? []);
  if (failed.size === 0 || covered.resourceSubscriptions === undefined) return covered;
  const { resourceSubscriptions, ...rest } = covered;
  const kept = resourceSubscriptions.filter((uri) => !failed.has(uri));
  return kept.length > 0 ? { ...rest, resourceSubscriptions: kept } : rest;
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
    // Provided by src/cache: opens the listen (modern) or listener (legacy) and sends back stream.* events. It takes no
    // commands: the stream hears the connection's lifecycle from the connection actor, its owner.
    listen: fromCallback<EventObject, ListenInput>(() => {}),
  },
  guards: {
    hasOverlap: ({ context }) => context.filter !== null,
    attemptsLeft: ({ context }) => context.attempt < context.recovery.maxAttempts,
    // The client closed the connection on purpose: the cache ends with it rather than degrading.
    closedByClient: ({ event }) => event.type === 'connection.closed' && (event.reason.type === 'disconnected' || event.reason.type === 'shutdown'),
    reconnectsExhausted: ({ context, event }) =>
      event.type === 'connection.reconnecting' && attemptsCounted(event) > context.recovery.maxAttempts,
    // The stream listens for exactly this intersection in this era, so it can resume; anything else is a new stream.
    sameIntersection: ({ context, event }) => {
      if (event.type !== 'connection.ready' || event.era !== context.era || context.filter === null) return false;
      const next = context.intersect(event.capabilities);
      return next !== null && isWithin(next, context.filter) && isWithin(context.filter, next);
    },
  },
  delays: {
    retryDelay: ({ context }) => context.nextDelayMs,
    // The project's one rule for a run that counts as recovered: it lasted the backoff's longest delay.
    recoveryWindow: ({ context }) => context.recovery.maxDelayMs,
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
      return { attempt, nextDelayMs: retryDelay(attempt, context.recovery, context.random(), context.lastCause) };
    }),
    resetAttempts: assign({ attempt: 0 }),
    countReconnect: assign((_, params: { attempt: number; quickReadies: number; delayMs: number; cause: unknown }) => ({
      attempt: attemptsCounted(params),
      nextDelayMs: params.delayMs,
      lastCause: params.cause,
    })),
    countStream: assign({ streamsOpened: ({ context }) => context.streamsOpened + 1 }),
    invalidateInterrupted: enqueueActions(({ context, enqueue }) => {
      if (context.interrupted === null) return;
      enqueue.emit({ type: 'cache.invalidate', filter: context.interrupted });
      enqueue.assign({ interrupted: null });
    }),
    announceCovered: emit(({ context, event }) => ({
      type: 'cache.covered' as const,
      filter: coverageOf(context.filter as NotificationFilter, event as { honored?: NotificationFilter; failed?: string[] }),
    })),
    announceUncovered: emit({ type: 'cache.uncovered' as const }),
    announceStarted: enqueueActions(({ context, enqueue }) => {
      if (context.started) return;
      enqueue.assign({ started: true });
      enqueue.emit({ type: 'cache.started' });
    }),
    recordClosed: assign({ closedBy: (_, params: { reason: ConnectionClosedReason }) => params.reason }),
    forwardNotification: emit(({ event }) => {
      const { method, params } = event as Extract<CacheMachineEvent, { type: 'stream.notification' }>;
      return { type: 'cache.notification' as const, method, params };
    }),
    degradeExhausted: assign({
      degradedBy: ({ context }) => ({ type: 'recovery_exhausted' as const, attempts: context.attempt, cause: context.lastCause }),
    }),
    degradeReconnectsExhausted: assign({
      degradedBy: ({ context }) => ({ type: 'recovery_exhausted' as const, attempts: context.recovery.maxAttempts, cause: context.lastCause }),
    }),
    degradeStreamExhausted: assign({
      degradedBy: (_, params: { attempts: number; cause: unknown }) => ({ type: 'recovery_exhausted' as const, ...params }),
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
    started: false,
    closedBy: undefined,
  }),
  initial: 'idle',
  on: {
    'connection.closed': [
      { guard: 'closedByClient', target: '.closed', actions: { type: 'recordClosed', params: ({ event }) => ({ reason: event.reason }) } },
      { target: '.degraded', actions: { type: 'degradeClosed', params: ({ event }) => ({ reason: event.reason }) } },
    ],
  },
  states: {
    idle: {
      on: { 'cache.start': 'negotiating' },
    },
    // The client closed the connection: nothing to recover and nothing to refetch; reads are refused.
    closed: { type: 'final' },
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
        id: 'stream',
        src: 'listen',
        input: ({ context }) => ({ era: context.era as Era, filter: context.filter as NotificationFilter }),
      },
      initial: 'awaitingAck',
      states: {
        // The listen is sent (a legacy listener is being registered) and nothing is covered yet: the application sees
        // `awaitingAck`, never `listening`, until the server acknowledged it.
        awaitingAck: {
          // Invalidating only once the new stream is open means no change falls between refetch and coverage.
          on: { 'stream.opened': { target: 'open', actions: ['countStream', 'announceCovered', 'invalidateInterrupted', 'announceStarted'] } },
        },
        open: {
          // Only a stream that stays open forgives the attempts: one cancelled at once counts as another attempt.
          after: { recoveryWindow: { actions: 'resetAttempts' } },
          exit: 'announceUncovered',
          on: {
            // The server dropped the stream and it re-listens on its own: nothing is covered until it resumes.
            'stream.interrupted': { target: 'paused', actions: ['leaveStream', { type: 'recordCause', params: ({ event }) => ({ cause: event.cause }) }] },
            // Resumed with no gap reported first: what the gap covered is in doubt, and coverage is what the stream honors now.
            'stream.resumed': { target: 'open', reenter: true, actions: ['leaveStream', 'announceCovered', 'invalidateInterrupted'] },
          },
        },
        // The connection is reconnecting (listening counts the attempts), or the server dropped the stream: it waits and resumes on its own.
        paused: {
          on: {
            'stream.resumed': { target: 'open', actions: ['announceCovered', 'invalidateInterrupted'] },
            // A stream lost before its first acknowledgment opens (for the first time) on the next connection.
            'stream.opened': { target: 'open', actions: ['countStream', 'announceCovered', 'invalidateInterrupted', 'announceStarted'] },
          },
        },
      },
      on: {
        'stream.notification': { actions: 'forwardNotification' },
        'stream.ended_gracefully': 'completed',
        'stream.exhausted': {
          target: 'degraded',
          actions: ['leaveStream', { type: 'degradeStreamExhausted', params: ({ event }) => ({ attempts: event.attempts, cause: event.cause }) }],
        },
        // Only while paused in practice (a reconnect follows connection.lost); handled here so that the diagram
        // draws both ways into degraded as one edge from listening.
        'connection.reconnecting': [
          {
            guard: 'reconnectsExhausted',
            target: 'degraded',
            actions: [{ type: 'countReconnect', params: ({ event }) => event }, 'degradeReconnectsExhausted'],
          },
          { actions: { type: 'countReconnect', params: ({ event }) => event } },
        ],
        'stream.closed_unexpectedly': {
          target: 'interrupted',
          actions: ['leaveStream', { type: 'recordCause', params: ({ event }) => ({ cause: event.cause }) }],
        },
        'connection.lost': {
          target: '.paused',
          actions: ['leaveStream', 'resetAttempts', { type: 'recordCause', params: ({ event }) => ({ cause: event.cause }) }],
        },
        'connection.ready': [
          // Same era, same intersection: the stream re-listens under its id and reports when it resumed.
          { guard: 'sameIntersection', actions: [{ type: 'recordNegotiation', params: ({ event }) => event }] },
          // The server differs: what the stream covered is in doubt, and a new stream listens for the new intersection.
          { target: 'intersecting', actions: ['leaveStream', { type: 'recordNegotiation', params: ({ event }) => event }] },
        ],
      },
    },
    // The one place that decides between another attempt and giving up.
    interrupted: {
      // A first stream that failed is waited out by no read: they fetch on their own during recovery.
      entry: 'announceStarted',
      always: [{ guard: 'attemptsLeft', target: 'recovering' }, { target: 'degraded', actions: 'degradeExhausted' }],
    },
    recovering: {
      entry: 'countAttempt',
      after: { retryDelay: 'negotiating' },
    },
    noOverlap: {
      entry: ['invalidateInterrupted', 'announceStarted'],
      on: {
        'connection.ready': { target: 'intersecting', actions: { type: 'recordNegotiation', params: ({ event }) => event } },
      },
    },
    // The server said it was done (typically shutting down): no recovery. A new negotiation is a new
    // server, whose intersection is listened for afresh.
    completed: {
      entry: 'announceStarted',
      on: {
        'connection.ready': { target: 'intersecting', actions: { type: 'recordNegotiation', params: ({ event }) => event } },
      },
    },
    degraded: {
      entry: ['invalidateInterrupted', 'announceStarted'],
      on: {
        'connection.ready': {
          target: 'intersecting',
          actions: ['resetAttempts', 'clearDegraded', { type: 'recordNegotiation', params: ({ event }) => event }],
        },
      },
    },
  },
});

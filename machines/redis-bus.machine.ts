/**
 * One node's link to the shared Redis stream of change events.
 *
 *   connecting ──redis.ready──▶ catching_up ──catchUp done──▶ live.connected ──gap.detected──▶ live.resynced
 *        │                        │   (gap: ─────────────────▶ live.resynced)
 *        │                        └── redis.lost / catchUp error ──▶ disconnected ──redis.ready / retry──▶ catching_up
 *        └── (any state) close ──▶ closed         live ──redis.lost / read.failed / publish.failed──▶ disconnected
 *
 * The state is the bus's health. `catching_up` runs the injected `catchUp`
 * actor (prove continuity from the last id seen, read the backlog); `live`
 * runs `tail` (the blocking read) and sends every publish at once. While
 * Redis is unreachable, a publish is applied locally at once and queued, at
 * most `maxQueued` of them: past that the queue is dropped and, once live
 * again, the node announces one "everything changed" instead. A publish made
 * while catching up is queued too (so a node's own events keep their order)
 * and applied locally only if the link drops before it went out. `resynced`
 * is `connected` after a gap was covered by "everything changed"; it lasts
 * until the link next drops. The I/O side executes the emitted commands.
 *
 * `disconnected` is left on the connection's next `redis.ready`, or, while
 * the connection is up, after a retry delay (1 s, doubling to 30 s; reset
 * once live): a read, a catch-up or a publish that Redis refused with an
 * error reply (OOM, LOADING, a wrong type) ends `live` or `catching_up`
 * although the connection stays up, so no `redis.ready` would come. A failed
 * publish ends `live` because a later one may already have gone out: the
 * failed one is resent once live again (under a new `seq`, src/redis).
 *
 * Tag `read_barrier` (catching_up, live): Redis answers, so a read waits
 * until this node applied what the stream holds; elsewhere the node is
 * degraded (its health says so) and reads are answered at once, and reads
 * already waiting are let go when the tag is lost.
 */
import { assign, emit, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';

/** One of this node's own events, ready to send: `seq` orders a node's events, `payload` is opaque here. */
export interface OutboundEntry {
  seq: number;
  payload: string;
}

interface QueuedEntry extends OutboundEntry {
  /** Already applied to this node's own streams and sessions. */
  applied: boolean;
}

export type RedisBusEvent =
  | { type: 'redis.ready' }
  | { type: 'redis.lost'; cause: unknown }
  /** The blocking read failed (an error reply, a reply it cannot parse); the connection may still be up. */
  | { type: 'read.failed'; cause: unknown }
  | { type: 'publish'; entry: OutboundEntry }
  /** Sending an entry failed (or its outcome is unknown): it waits for the next live link. */
  | { type: 'publish.failed'; entry: OutboundEntry; cause: unknown }
  /** The read side could not prove continuity and told local clients that everything changed. */
  | { type: 'gap.detected' }
  | { type: 'close' };

/** Commands for the I/O side. */
export type RedisBusCommand =
  | { type: 'send'; entries: OutboundEntry[] }
  | { type: 'apply_locally'; entries: OutboundEntry[] }
  /**
   * Publishes past a full queue: applied locally and never sent (the announcement covers them), so no copy of them
   * can come back from the stream to be skipped, and nothing need be remembered of them.
   */
  | { type: 'apply_dropped'; entries: OutboundEntry[] }
  /** The outbound queue overflowed while Redis was away: tell every node that everything changed. */
  | { type: 'announce_everything_changed'; dropped: number };

export interface RedisBusInput {
  maxQueued: number;
}

/** The health of a node's link to Redis: the machine's state. */
export type RedisBusHealth = 'connecting' | 'catching_up' | 'connected' | 'resynced' | 'disconnected' | 'closed';

/** `read_barrier`: while Redis answers, reads wait until the node applied what the stream holds. */
export type RedisBusTag = 'read_barrier';

/** What `catchUp` found: whether the node had to resync (a gap it could not rule out). */
export interface CatchUpOutput {
  gap: boolean;
}

interface Context {
  maxQueued: number;
  queue: QueuedEntry[];
  /** Entries dropped from a full queue since the last announcement. */
  dropped: number;
  /** Retries since the node was last live: the next retry waits 1 s × 2^retries, at most 30 s. */
  retries: number;
  /** Both connections are up, as they last said (`redis.ready`, `redis.lost`): a retry is worth it. */
  linkUp: boolean;
}

/** The first retry delay and the longest, after an error reply or a failed catch-up. */
export const RETRY_DELAY_MS = { first: 1_000, max: 30_000 } as const;

const outbound = ({ seq, payload }: QueuedEntry): OutboundEntry => ({ seq, payload });

export const redisBusMachine = setup({
  types: {
    context: {} as Context,
    events: {} as RedisBusEvent,
    input: {} as RedisBusInput,
    emitted: {} as RedisBusCommand,
    tags: {} as RedisBusTag,
  },
  actors: {
    /** Proves continuity and reads the backlog; provided by src/redis. */
    catchUp: fromPromise<CatchUpOutput>(async () => ({ gap: false })),
    /** The blocking read loop; reports `gap.detected` and `redis.lost`; provided by src/redis. */
    tail: fromCallback<RedisBusEvent>(() => {}),
  },
  guards: {
    foundGap: ({ event }) => 'output' in event && (event.output as CatchUpOutput).gap,
    /** Full, or already overflowed: once one announcement covers the lost events, it covers the later ones too. */
    queueFull: ({ context }) => context.dropped > 0 || context.queue.length >= context.maxQueued,
    linkUp: ({ context }) => context.linkUp,
  },
  actions: {
    applyAtOnce: emit(({ event }) => ({
      type: 'apply_locally' as const,
      entries: event.type === 'publish' || event.type === 'publish.failed' ? [event.entry] : [],
    })),
    applyDropped: emit(({ event }) => ({ type: 'apply_dropped' as const, entries: event.type === 'publish' ? [event.entry] : [] })),
    /**
     * In `seq` order: a failed send can be reported after a later publish was
     * queued, and every node drops an entry at or below the highest `seq` it
     * read from the same origin, so a resend out of order would be lost.
     */
    enqueueApplied: assign({
      queue: ({ context, event }) =>
        event.type === 'publish' || event.type === 'publish.failed'
          ? [...context.queue, { ...event.entry, applied: true }].sort((a, b) => a.seq - b.seq)
          : context.queue,
    }),
    enqueueUnapplied: assign({
      queue: ({ context, event }) => (event.type === 'publish' ? [...context.queue, { ...event.entry, applied: false }] : context.queue),
    }),
    /** Everything queued so far is covered by the one announcement made once live again. */
    dropQueue: assign({ dropped: ({ context }) => context.dropped + context.queue.length + 1, queue: [] }),
    applyUnapplied: enqueueActions(({ context, enqueue }) => {
      const entries = context.queue.filter((entry) => !entry.applied).map(outbound);
      if (entries.length > 0) enqueue.emit({ type: 'apply_locally', entries });
    }),
    markApplied: assign({ queue: ({ context }) => context.queue.map((entry) => ({ ...entry, applied: true })) }),
    send: emit(({ event }) => ({ type: 'send' as const, entries: event.type === 'publish' ? [event.entry] : [] })),
    flush: enqueueActions(({ context, enqueue }) => {
      if (context.dropped > 0) enqueue.emit({ type: 'announce_everything_changed', dropped: context.dropped });
      else if (context.queue.length > 0) enqueue.emit({ type: 'send', entries: context.queue.map(outbound) });
    }),
    clearQueue: assign({ queue: [], dropped: 0 }),
    resetRetries: assign({ retries: 0 }),
    countRetry: assign({ retries: ({ context }) => context.retries + 1 }),
    markLinkUp: assign({ linkUp: true }),
    markLinkDown: assign({ linkUp: false }),
  },
  delays: {
    retryDelay: ({ context }) => Math.min(RETRY_DELAY_MS.first * 2 ** context.retries, RETRY_DELAY_MS.max),
  },
}).createMachine({
  id: 'redisBus',
  context: ({ input }) => ({ maxQueued: input.maxQueued, queue: [], dropped: 0, retries: 0, linkUp: false }),
  initial: 'connecting',
  on: { close: '.closed', 'redis.ready': { actions: 'markLinkUp' }, 'redis.lost': { actions: 'markLinkDown' } },
  states: {
    connecting: {
      on: {
        'redis.ready': { target: 'catching_up', actions: 'markLinkUp' },
        publish: [{ guard: 'queueFull', actions: ['applyDropped', 'dropQueue'] }, { actions: ['applyAtOnce', 'enqueueApplied'] }],
      },
    },
    catching_up: {
      tags: ['read_barrier'],
      invoke: {
        src: 'catchUp',
        onDone: [{ guard: 'foundGap', target: 'live.resynced' }, { target: 'live.connected' }],
        onError: 'disconnected',
      },
      on: {
        'redis.lost': { target: 'disconnected', actions: 'markLinkDown' },
        publish: [{ guard: 'queueFull', actions: ['applyDropped', 'dropQueue'] }, { actions: 'enqueueUnapplied' }],
        'publish.failed': [{ guard: 'queueFull', actions: ['applyAtOnce', 'dropQueue'] }, { actions: ['applyAtOnce', 'enqueueApplied'] }],
      },
    },
    live: {
      tags: ['read_barrier'],
      entry: ['flush', 'clearQueue', 'resetRetries'],
      invoke: { src: 'tail' },
      on: {
        publish: { actions: 'send' },
        'publish.failed': [
          { guard: 'queueFull', actions: ['applyAtOnce', 'dropQueue'], target: 'disconnected' },
          { actions: ['applyAtOnce', 'enqueueApplied'], target: 'disconnected' },
        ],
        'redis.lost': { target: 'disconnected', actions: 'markLinkDown' },
        'read.failed': 'disconnected',
      },
      initial: 'connected',
      states: {
        connected: { on: { 'gap.detected': 'resynced' } },
        resynced: {},
      },
    },
    disconnected: {
      entry: ['applyUnapplied', 'markApplied'],
      after: { retryDelay: { guard: 'linkUp', target: 'catching_up', actions: 'countRetry' } },
      on: {
        'redis.ready': { target: 'catching_up', actions: 'markLinkUp' },
        publish: [{ guard: 'queueFull', actions: ['applyDropped', 'dropQueue'] }, { actions: ['applyAtOnce', 'enqueueApplied'] }],
        'publish.failed': [{ guard: 'queueFull', actions: ['applyAtOnce', 'dropQueue'] }, { actions: ['applyAtOnce', 'enqueueApplied'] }],
      },
    },
    closed: { type: 'final' },
  },
});

/**
 * The client connection's lifecycle: connecting, negotiating the era, ready
 * in one era, reconnecting with bounded jittered backoff, and closed with a
 * typed reason. The transport and the negotiation are invoked actors that
 * src/client provides; this machine only decides what happens next.
 *
 * While ready it also gives the liveness verdict: a listen stream that ended
 * with no answer is the stream alone when the peer answers a probe (or stays
 * silent past the probe timeout), and a lost transport when the probe fails.
 *
 * Lifecycle facts other actors depend on are emitted (`connection.ready`,
 * `connection.lost`, `connection.reconnecting`, `connection.era_changed`,
 * `connection.closed`), so listeners, streams and the cache react to one
 * source of truth.
 */
import { assign, cancel, emit, enqueueActions, fromCallback, raise, setup, spawnChild, stopChild } from 'xstate';
import type { ConnectionClosedReason } from './closed-reason.ts';
import type { Era } from './era.ts';
import { backoffDelay, type Backoff } from './backoff.ts';
import type { RequestId } from './request-id.ts';
import { negotiationMachine, type Negotiated, type NegotiationOutput, type NegotiationSettings } from './negotiation.machine.ts';

export { backoffDelay, type Backoff, type Negotiated, type NegotiationSettings };

/** Documented defaults: 5 attempts, 250 ms doubling, capped at 10 s. */
export const DEFAULT_BACKOFF: Backoff = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000 };

/**
 * What a failed first connect does: `fail` reports `connection.failed` at once
 * (a service learns of a wrong address immediately); `retry` retries with the
 * reconnect backoff and reports `connection.failed` only when its attempts are
 * spent (a watcher started before its server).
 */
export type FirstConnectPolicy = 'fail' | 'retry';

export interface ConnectionInput {
  /** `false` disables reconnection: a lost transport closes the connection. */
  backoff: Backoff | false;
  /** Default `fail`; `retry` needs `backoff`. */
  firstConnect?: FirstConnectPolicy;
  /** A number in [0, 1) for jitter; injected so tests are deterministic. */
  random: () => number;
  /** The era preference and the timeouts every negotiation uses (machines/negotiation.machine.ts). */
  negotiation: NegotiationSettings;
}

export interface ConnectionContext {
  backoff: Backoff | false;
  firstConnect: FirstConnectPolicy;
  random: () => number;
  negotiation: NegotiationSettings;
  /** What the open transport said: whether a legacy server on it may leave the probe unanswered. */
  silenceMayMeanLegacy: boolean;
  /** Connection attempts since the transport was last lost (0 while connected). */
  attempt: number;
  nextDelayMs: number;
  /** Successful negotiations so far; 0 until the first. */
  generation: number;
  negotiated: Negotiated | undefined;
  /** Why the last attempt or the transport failed. */
  lastCause: unknown;
  closedReason: ConnectionClosedReason | undefined;
  /** Listen streams that ended unanswered while ready, awaiting the liveness verdict (non-empty while a probe runs). */
  endedUnanswered: EndedUnanswered[];
}

/** A listen stream that ended with no answer, and how it ended. */
export interface EndedUnanswered {
  id: RequestId;
  cause: unknown;
}

export type TransportNotice =
  /** `silenceMayMeanLegacy`: a legacy server on this transport may ignore the probe (stdio); HTTP answers every POST. */
  | { type: 'transport.opened'; silenceMayMeanLegacy: boolean }
  | { type: 'transport.failed'; cause: unknown };

/** What src/ reports for the liveness verdict: a stream's unanswered end, and what the probe of the peer showed. */
export type LivenessNotice =
  | ({ type: 'listen.ended_unanswered' } & EndedUnanswered)
  /** The peer answered the probe (a result or an error response): it is there. */
  | { type: 'probe.answered' }
  /** The probe could not be answered: the transport failed under it. */
  | { type: 'probe.failed'; cause: unknown };

export type ConnectionEvent =
  | { type: 'connect' }
  | { type: 'disconnect' }
  | { type: 'shutdown'; cause: unknown }
  | TransportNotice
  | LivenessNotice
  /** Raised by the machine itself, on its clock, when the probe has gone unanswered for the probe timeout. */
  | { type: 'probe.timed_out' };

/** The lifecycle facts the actors built on a connection (streams, listeners, the cache) react to. */
export type ConnectionLifecycleEvent =
  /** Negotiated (first time or after a reconnect); `generation` grows by one per successful negotiation. */
  | { type: 'connection.ready'; era: Era; generation: number }
  /** The transport dropped; the connection is reconnecting. */
  | { type: 'connection.lost'; cause: unknown }
  /** A reconnect negotiated the other era. Sent before the matching `connection.ready`. */
  | { type: 'connection.era_changed'; from: Era; to: Era }
  /** The connection ended for good. */
  | { type: 'connection.closed'; reason: ConnectionClosedReason };

const LIFECYCLE_TYPES: ReadonlySet<string> = new Set(['connection.ready', 'connection.lost', 'connection.era_changed', 'connection.closed']);

export const isLifecycleEvent = <E extends { type: string }>(event: E): event is E & ConnectionLifecycleEvent =>
  LIFECYCLE_TYPES.has(event.type);

/** Everything the connection emits: the lifecycle facts plus what only its owner and users see. */
export type ConnectionEmitted =
  | (Extract<ConnectionLifecycleEvent, { type: 'connection.ready' }> & { negotiated: Negotiated })
  | Exclude<ConnectionLifecycleEvent, { type: 'connection.ready' }>
  | { type: 'connection.reconnecting'; attempt: number; delayMs: number; cause: unknown }
  | { type: 'connection.failed'; cause: unknown };

/** The liveness verdict for one stream, for the connection's owner only: it ended alone, and the transport stays. */
export type StreamVerdict = { type: 'listen.ended_alone' } & EndedUnanswered;

/** The negotiation's outcome, from its done event; anything else counts as a failure without a cause. */
function outcomeOf(event: { type: string }): NegotiationOutput {
  return 'output' in event ? (event.output as NegotiationOutput) : { type: 'failed', error: undefined };
}

export const connectionMachine = setup({
  types: {
    context: {} as ConnectionContext,
    events: {} as ConnectionEvent,
    input: {} as ConnectionInput,
    output: {} as ConnectionClosedReason,
    emitted: {} as ConnectionEmitted | StreamVerdict,
  },
  actors: {
    /** Opens a fresh transport; reports `transport.opened` / `transport.failed`; closes it on exit. */
    transport: fromCallback<{ type: 'never' }, { attempt: number }>(() => () => {}),
    /** The negotiation machine, its I/O provided by src/client. */
    negotiate: negotiationMachine,
    /** Asks the peer whether it is there; reports `probe.answered` / `probe.failed`; abandons the request when stopped. */
    probe: fromCallback<{ type: 'never' }>(() => () => {}),
  },
  guards: {
    firstConnectFailed: ({ context }) =>
      context.generation === 0 && (context.firstConnect === 'fail' || context.backoff === false || context.attempt >= context.backoff.maxAttempts),
    reconnectDisabled: ({ context }) => context.backoff === false,
    attemptsExhausted: ({ context }) => context.backoff !== false && context.attempt >= context.backoff.maxAttempts,
    wasReady: ({ context }) => context.attempt === 0 && context.generation > 0,
    negotiationFailed: ({ event }) => outcomeOf(event).type === 'failed',
    eraChanged: ({ context, event }) => {
      const outcome = outcomeOf(event);
      return context.negotiated !== undefined && outcome.type === 'negotiated' && outcome.negotiated.era !== context.negotiated.era;
    },
    legacy: ({ context }) => context.negotiated?.era === 'legacy',
    probing: ({ context }) => context.endedUnanswered.length > 0,
  },
  delays: {
    reconnectDelay: ({ context }) => context.nextDelayMs,
    probeTimeout: ({ context }) => context.negotiation.probeTimeoutMs,
  },
  actions: {
    rememberCause: assign({
      lastCause: ({ event }) => {
        if ('cause' in event) return event.cause;
        if ('error' in event) return event.error;
        const outcome = outcomeOf(event);
        return outcome.type === 'failed' ? outcome.error : undefined;
      },
    }),
    rememberTransport: assign({
      silenceMayMeanLegacy: ({ event }) => (event.type === 'transport.opened' ? event.silenceMayMeanLegacy : true),
    }),
    recordNegotiated: assign({
      negotiated: ({ context, event }) => {
        const outcome = outcomeOf(event);
        return outcome.type === 'negotiated' ? outcome.negotiated : context.negotiated;
      },
      generation: ({ context }) => context.generation + 1,
      attempt: 0,
    }),
    announceEraChange: emit(({ context, event }) => {
      const outcome = outcomeOf(event);
      return {
        type: 'connection.era_changed' as const,
        from: context.negotiated!.era,
        to: outcome.type === 'negotiated' ? outcome.negotiated.era : context.negotiated!.era,
      };
    }),
    announceReady: emit(({ context }) => ({
      type: 'connection.ready' as const,
      era: context.negotiated!.era,
      generation: context.generation,
      negotiated: context.negotiated!,
    })),
    announceLost: emit(({ context }) => ({ type: 'connection.lost' as const, cause: context.lastCause })),
    announceFailed: emit(({ context }) => ({ type: 'connection.failed' as const, cause: context.lastCause })),
    // Only reached with reconnection on: `offline` closes first when it is off.
    planAttempt: assign(({ context }) => {
      const attempt = context.attempt + 1;
      return { attempt, nextDelayMs: backoffDelay(attempt, context.backoff as Backoff, context.random()) };
    }),
    announceReconnecting: emit(({ context }) => ({
      type: 'connection.reconnecting' as const,
      attempt: context.attempt,
      delayMs: context.nextDelayMs,
      cause: context.lastCause,
    })),
    closeAs: assign({
      closedReason: (_, reason: ConnectionClosedReason) => reason,
    }),
    holdEnded: assign({
      endedUnanswered: ({ context, event }) =>
        event.type === 'listen.ended_unanswered' ? [...context.endedUnanswered, { id: event.id, cause: event.cause }] : context.endedUnanswered,
    }),
    // One probe answers for every stream that ends while it runs.
    startProbe: enqueueActions(({ enqueue }) => {
      enqueue(spawnChild('probe', { id: 'probe' }));
      enqueue(raise({ type: 'probe.timed_out' }, { id: 'probeTimeout', delay: 'probeTimeout' }));
    }),
    stopProbe: enqueueActions(({ enqueue }) => {
      enqueue(stopChild('probe'));
      enqueue(cancel('probeTimeout'));
    }),
    announceEndedAlone: enqueueActions(({ context, enqueue }) => {
      for (const ended of context.endedUnanswered) enqueue.emit({ type: 'listen.ended_alone', id: ended.id, cause: ended.cause });
      enqueue.assign({ endedUnanswered: [] });
    }),
    forgetEnded: assign({ endedUnanswered: [] }),
    announceClosed: emit(({ context }) => ({ type: 'connection.closed' as const, reason: context.closedReason! })),
  },
}).createMachine({
  id: 'connection',
  context: ({ input }) => ({
    backoff: input.backoff,
    firstConnect: input.firstConnect ?? 'fail',
    random: input.random,
    negotiation: input.negotiation,
    silenceMayMeanLegacy: true,
    attempt: 0,
    nextDelayMs: 0,
    generation: 0,
    negotiated: undefined,
    lastCause: undefined,
    closedReason: undefined,
    endedUnanswered: [],
  }),
  initial: 'idle',
  on: {
    disconnect: { target: '.closed', actions: { type: 'closeAs', params: { type: 'disconnected' } } },
    shutdown: {
      target: '.closed',
      actions: { type: 'closeAs', params: ({ event }) => ({ type: 'shutdown' as const, cause: event.cause }) },
    },
  },
  states: {
    idle: {
      on: { connect: 'online' },
    },
    online: {
      invoke: { src: 'transport', input: ({ context }) => ({ attempt: context.attempt }) },
      initial: 'connecting',
      on: {
        'transport.failed': { target: 'offline', actions: 'rememberCause' },
      },
      states: {
        connecting: {
          on: { 'transport.opened': { target: 'negotiating', actions: 'rememberTransport' } },
        },
        negotiating: {
          invoke: {
            id: 'negotiation',
            src: 'negotiate',
            input: ({ context }) => ({
              ...context.negotiation,
              previousEra: context.negotiated?.era,
              silenceMayMeanLegacy: context.silenceMayMeanLegacy,
            }),
            onDone: [
              { guard: 'negotiationFailed', target: '#connection.offline', actions: 'rememberCause' },
              { guard: 'eraChanged', target: 'switchingEra', actions: ['announceEraChange', 'recordNegotiated'] },
              { target: 'ready', actions: 'recordNegotiated' },
            ],
            onError: { target: '#connection.offline', actions: 'rememberCause' },
          },
        },
        /** A reconnect negotiated the other era; announced before `ready`. */
        switchingEra: {
          always: 'ready',
        },
        /**
         * The liveness verdict: a stream's unanswered end starts a probe of
         * the peer; an answer, or silence for the probe timeout, means the
         * stream ended alone; a failed probe means the transport is lost.
         */
        ready: {
          entry: 'announceReady',
          exit: ['stopProbe', 'forgetEnded'],
          on: {
            'listen.ended_unanswered': [
              { guard: 'probing', actions: 'holdEnded' },
              { actions: ['holdEnded', 'startProbe'] },
            ],
            'probe.answered': { actions: ['stopProbe', 'announceEndedAlone'] },
            'probe.timed_out': { actions: ['stopProbe', 'announceEndedAlone'] },
            'probe.failed': { target: '#connection.offline', actions: 'rememberCause' },
          },
          initial: 'choosing',
          states: {
            choosing: { always: [{ guard: 'legacy', target: 'legacy' }, { target: 'modern' }] },
            legacy: {},
            modern: {},
          },
        },
      },
    },
    /**
     * The transport failed or could not be opened: retry, give up, or report a
     * failed first connect (at once, or once its retries are spent). A first
     * connect's retries are not a loss: only `reconnecting` is announced.
     */
    offline: {
      always: [
        { guard: 'firstConnectFailed', target: 'idle', actions: 'announceFailed' },
        {
          guard: 'reconnectDisabled',
          target: 'closed',
          actions: [
            'announceLost',
            { type: 'closeAs', params: ({ context }) => ({ type: 'transport_closed' as const, cause: context.lastCause }) },
          ],
        },
        {
          guard: 'attemptsExhausted',
          target: 'closed',
          actions: {
            type: 'closeAs',
            params: ({ context }) => ({
              type: 'reconnect_exhausted' as const,
              cause: context.lastCause,
              attempts: context.attempt,
            }),
          },
        },
        { guard: 'wasReady', target: 'reconnecting', actions: 'announceLost' },
        { target: 'reconnecting' },
      ],
    },
    reconnecting: {
      entry: ['planAttempt', 'announceReconnecting'],
      after: { reconnectDelay: 'online' },
    },
    closed: {
      type: 'final',
      entry: 'announceClosed',
    },
  },
  output: ({ context }) => context.closedReason!,
});

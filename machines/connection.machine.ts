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
 * It owns the actors built on it (DESIGN.md): listen streams, legacy
 * listeners, the URI worker and the cache's stream are its children,
 * registered in its actor system (connection-children.ts). Each lifecycle fact (`connection.ready`,
 * `connection.lost`, `connection.era_changed`, `connection.closed`) is
 * announced once by the action of the transition that makes it true: emitted
 * to whoever watches the connection, then sent (`sendTo`) to every child (a
 * ready in a step of its own, after the watchers have acted on it), so
 * one machine is the source of truth and nothing in src/ forwards it
 * (issue 15, rule 3). `connection.reconnecting` and `connection.failed` are
 * for watchers only.
 */
import { assign, cancel, emit, enqueueActions, fromCallback, raise, setup, spawnChild, stopChild, type AnyActorRef } from 'xstate';
import type { ConnectionClosedReason } from './closed-reason.ts';
import { backoffDelay, DEFAULT_BACKOFF, retryDelay, type Backoff } from './backoff.ts';
import { audience } from './connection-children.ts';
import type { ConnectionContext, ConnectionEmitted, ConnectionEvent, ConnectionInput, ConnectionLifecycleEvent, StreamVerdict } from './connection-lifecycle.ts';
import { negotiationMachine, type Negotiated, type NegotiationOutput, type NegotiationSettings } from './negotiation.machine.ts';

export { backoffDelay, DEFAULT_BACKOFF, type Backoff, type Negotiated, type NegotiationSettings };
export * from './connection-lifecycle.ts';
export { audience, memberId, URI_WORKER_ID } from './connection-children.ts';

/** What `enqueueActions` hands its callback: enough of it to emit and to send. */
interface Enqueue {
  emit(event: ConnectionEmitted): void;
  sendTo(to: AnyActorRef, event: ConnectionLifecycleEvent): void;
}

/**
 * A lifecycle fact other than ready (see `announceReady`), told once to
 * whoever watches the connection (emitted) and then to each child, in the
 * order connection-children.ts gives.
 */
function announce(enqueue: Enqueue, system: { getAll(): Record<string, AnyActorRef> }, event: Exclude<ConnectionLifecycleEvent, { type: 'connection.ready' }>): void {
  enqueue.emit(event);
  for (const child of audience(system.getAll(), event.type)) enqueue.sendTo(child, event);
}

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
    /** Still the ready it was sent for: a loss and a new ready in between would have told the children their own. */
    sameGeneration: ({ context, event }) => event.type === 'ready.tell_children' && event.generation === context.generation,
  },
  delays: {
    reconnectDelay: ({ context }) => context.nextDelayMs,
    /** A ready that lasts the longest reconnect delay is no longer a quick one. */
    readyLasted: ({ context }) => (context.backoff === false ? 0 : context.backoff.maxDelayMs),
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
    announceEraChange: enqueueActions(({ context, event, enqueue, system }) => {
      const outcome = outcomeOf(event);
      const to = outcome.type === 'negotiated' ? outcome.negotiated.era : context.negotiated!.era;
      announce(enqueue, system, { type: 'connection.era_changed', from: context.negotiated!.era, to });
    }),
    /**
     * Ready is told to the watchers now and to the children in a step of its own (`ready.tell_children`, sent to
     * itself, so it follows whatever the watchers did about the ready): a watcher may end a child on hearing it
     * (the cache closes a listener or stream whose filter a reconnect changed), and an audience chosen before that
     * would send it a ready it can no longer take. `membersEnding`: on the way from `switchingEra`, whose era
     * change every stream and listener ends on.
     */
    announceReady: enqueueActions(({ context, enqueue, self }, { membersEnding }: { membersEnding: boolean }) => {
      const { era } = context.negotiated!;
      enqueue.emit({ type: 'connection.ready', era, generation: context.generation, negotiated: context.negotiated! });
      enqueue.sendTo(self, { type: 'ready.tell_children', generation: context.generation, membersEnding });
    }),
    tellChildrenReady: enqueueActions(({ context, event, enqueue, system }) => {
      if (event.type !== 'ready.tell_children') return;
      const ready = { type: 'connection.ready' as const, era: context.negotiated!.era, generation: context.generation };
      for (const child of audience(system.getAll(), ready.type, { membersEnding: event.membersEnding })) enqueue.sendTo(child, ready);
    }),
    announceLost: enqueueActions(({ context, enqueue, system }) => announce(enqueue, system, { type: 'connection.lost', cause: context.lastCause })),
    announceFailed: emit(({ context }) => ({ type: 'connection.failed' as const, cause: context.lastCause })),
    // Only reached with reconnection on: `offline` closes first when it is off.
    planAttempt: assign(({ context }) => {
      const attempt = context.attempt + 1;
      return { attempt, nextDelayMs: retryDelay(attempt + context.quickReadies, context.backoff as Backoff, context.random(), context.lastCause) };
    }),
    countQuickReady: assign({ quickReadies: ({ context }) => context.quickReadies + 1 }),
    forgetQuickReadies: assign({ quickReadies: 0 }),
    announceReconnecting: emit(({ context }) => ({
      type: 'connection.reconnecting' as const,
      attempt: context.attempt,
      quickReadies: context.quickReadies,
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
    announceClosed: enqueueActions(({ context, enqueue, system }) => announce(enqueue, system, { type: 'connection.closed', reason: context.closedReason! })),
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
    quickReadies: 0,
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
              { target: 'ready', actions: ['recordNegotiated', { type: 'announceReady', params: { membersEnding: false } }] },
            ],
            onError: { target: '#connection.offline', actions: 'rememberCause' },
          },
        },
        /** A reconnect negotiated the other era; announced before `ready`. */
        switchingEra: {
          always: { target: 'ready', actions: { type: 'announceReady', params: { membersEnding: true } } },
        },
        /**
         * The liveness verdict: a stream's unanswered end starts a probe of
         * the peer; an answer, or silence for the probe timeout, means the
         * stream ended alone; a failed probe means the transport is lost.
         */
        ready: {
          // Counted as quick from the start; forgotten once it lasted.
          entry: 'countQuickReady',
          after: { readyLasted: { actions: 'forgetQuickReadies' } },
          exit: ['stopProbe', 'forgetEnded'],
          on: {
            'listen.ended_unanswered': [
              { guard: 'probing', actions: 'holdEnded' },
              { actions: ['holdEnded', 'startProbe'] },
            ],
            'probe.answered': { actions: ['stopProbe', 'announceEndedAlone'] },
            'probe.timed_out': { actions: ['stopProbe', 'announceEndedAlone'] },
            'probe.failed': { target: '#connection.offline', actions: 'rememberCause' },
            'ready.tell_children': { guard: 'sameGeneration', actions: 'tellChildrenReady' },
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

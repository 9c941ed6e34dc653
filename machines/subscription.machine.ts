/**
 * One modern-era `subscriptions/listen` stream.
 *
 *   listening.awaitingAck ──ack, first──▶ listening.active ──lost──▶ paused
 *        ▲   └──ack, acknowledged before──▶ listening.resyncing      │
 *        │                         └──snapshot──▶ listening.active  │
 *        └──────────────────── ready (modern) ──────────────────────┘
 *   listening ──ended unanswered, reconnection on──▶ relistening ──backoff──▶ awaitingAck
 *   any of them ──▶ closed (final; output: ClosedReason)
 *
 * A stream the live server ends without answering (an HTTP response cut by
 * a proxy, a server dropping it) is not spent while reconnection is on: it
 * listens again under the same id after the connection's backoff, for at
 * most its attempts, then ends as `reconnect_exhausted`. A re-listened run
 * that delivers (`listening.relistened`) for longer than the backoff's longest
 * delay, on this machine's clock, counts as recovered: the count starts again (a proxy cutting an idle stream every
 * few minutes never exhausts it; a server that drops every stream at once
 * does). With reconnection off it ends as `remote`.
 *
 * The machine decides when the wire stream lives, which route its
 * notifications take and when the resync snapshot is fetched; it says so
 * with emitted events, which the I/O bridge in src/client/stream-io.ts
 * carries out (no invoked actors: a stream is one actor, and 10,000 may be
 * open at once):
 * - `listen.open` (entering `listening`): send `subscriptions/listen` under the
 *   same id every time and report acknowledged/result/error/cancelled/ended as
 *   events; `listen.cancel` cancels on the wire; `listen.release` (leaving
 *   `listening`) drops the wire stream, after which nothing it says is reported.
 * - `route.deliver` (entering `active`): hand the subscriber the resync
 *   snapshot if there is one, flush what was held, then deliver directly.
 *   Notifications never pass through this machine: the route is a plain
 *   function call in the bridge.
 * - `route.hold` (entering `resyncing`): hold notifications in order.
 * - `route.stop` (leaving either): deliver nothing.
 * - `resync.start` (entering `resyncing`): fetch the snapshot and report it as
 *   `resync.done` or `resync.failed`; `resync.cancel` (leaving it): drop that
 *   fetch, after which nothing it says is reported.
 * - a notification that arrives while held is reported (`notification.held`)
 *   before it is kept: past `holdCap` this machine ends the stream as
 *   `delivery_dropped`, and the route it stops keeps nothing more.
 * - `activity.report` (every `stallAfterMs` once the run's first keep-alive
 *   arrived): answer at once with `listen.activity`, whether anything (a
 *   keep-alive comment, a notification) arrived since the last report.
 * In `awaitingAck` and `paused` no route is set: nothing is delivered.
 *
 * Silence: an open stream has no deadline, but a run whose server has shown
 * that it sends keep-alive comments (`listen.keep_alive`, once per run) and
 * then sends nothing for a whole `stallAfterMs` is stalled: the path went
 * silent without closing. It is cancelled on the wire and ends as unanswered
 * (`ListenStalledError`), so it listens again under the same id as above. A
 * server that sends no keep-alives is never judged.
 */
import { assign, cancel, emit, raise, setup } from 'xstate';
import type { ClosedReason } from './closed-reason.ts';
import { backoffDelay } from './backoff.ts';
import { isWithin } from './notification-filter.ts';
import {
  AcknowledgmentViolationError,
  HonoredFilterTooBroadError,
  ListenAckTimeoutError,
  ListenStalledError,
  ResyncInterruptedError,
} from './subscription-errors.ts';
import { reasonFor, type ListenCommand, type SubscriptionContext, type SubscriptionEvent, type SubscriptionInput } from './subscription-contract.ts';

// Importers take the machine's types from here, beside the machine.
export type {
  ListenCommand,
  ListenInput,
  ListenWireEvent,
  RelistenPolicy,
  ResyncEvent,
  SubscriptionContext,
  SubscriptionEvent,
  SubscriptionInput,
  SubscriptionLocalEvent,
} from './subscription-contract.ts';

/** Delivering directly: the route is set on entry and stopped on exit; a second acknowledgment may only repeat the first. */
const DELIVERING = {
  entry: 'routeDeliver',
  exit: ['routeStop', 'forgetSnapshot'],
  on: {
    // A repeated acknowledgment within the honored filter changes nothing.
    'listen.acknowledged': { guard: 'ackBroaderThanHonored', target: 'cancelling', actions: 'recordViolation' },
    'listen.ack_malformed': { target: 'cancelling', actions: 'recordViolation' },
  },
} as const;

export const subscriptionMachine = setup({
  types: {
    context: {} as SubscriptionContext,
    events: {} as SubscriptionEvent,
    input: {} as SubscriptionInput,
    output: {} as ClosedReason,
    emitted: {} as ListenCommand,
  },
  guards: {
    ackBroaderThanRequested: ({ context, event }) =>
      event.type === 'listen.acknowledged' && !isWithin(event.honored, context.requested),
    ackBroaderThanHonored: ({ context, event }) =>
      event.type === 'listen.acknowledged' && !isWithin(event.honored, context.honored ?? {}),
    everAcknowledged: ({ context }) => context.honored !== undefined,
    readyInOtherEra: ({ event }) => event.type === 'connection.ready' && event.era !== 'modern',
    leftModernEra: ({ event }) => event.type === 'connection.era_changed' && event.to !== 'modern',
    mayRelisten: ({ context }) => context.relisten !== false && context.relistens < context.relisten.backoff.maxAttempts,
    hasRelistened: ({ context }) => context.relistens > 0,
    relistenExhausted: ({ context }) => context.relisten !== false,
    resyncInterrupted: ({ event }) => event.type === 'resync.failed' && event.error instanceof ResyncInterruptedError,
    holdFull: ({ context }) => context.held >= context.holdCap,
    mayWatchActivity: ({ context }) => context.stallAfterMs > 0 && !context.watchingActivity,
    heardSinceReport: ({ event }) => event.type === 'listen.activity' && event.heard,
  },
  delays: {
    ackTimeout: ({ context }) => context.ackTimeoutMs,
    relistenDelay: ({ context }) => context.relistenDelayMs,
    stallAfter: ({ context }) => context.stallAfterMs,
    // Only `relistened` waits it, and only a stream with reconnection on re-listens.
    recoveryWindow: ({ context }) => (context.relisten === false ? 0 : context.relisten.backoff.maxDelayMs),
  },
  actions: {
    recordReason: assign({ reason: ({ context, event }) => reasonFor(event) ?? context.reason }),
    recordAckTimeout: assign({
      reason: ({ context }) => ({ type: 'remote', cause: new ListenAckTimeoutError(context.subscriptionId, context.ackTimeoutMs) }),
    }),
    recordTooBroad: assign({
      reason: ({ context, event }) => ({
        type: 'refused',
        error: new HonoredFilterTooBroadError(context.subscriptionId, context.requested, event.type === 'listen.acknowledged' ? event.honored : {}),
      }),
    }),
    recordMalformedAck: assign({ reason: ({ context, event }) => (event.type === 'listen.ack_malformed' ? { type: 'refused', error: event.error } : context.reason) }),
    recordViolation: assign({
      reason: ({ context, event }) => ({
        type: 'protocol_violation',
        error: new AcknowledgmentViolationError(
          context.subscriptionId,
          event.type === 'listen.acknowledged' ? 'broader_than_honored' : 'malformed',
          context.honored ?? {},
          event.type === 'listen.acknowledged' ? event.honored : undefined,
          event.type === 'listen.ack_malformed' ? { cause: event.error } : undefined,
        ),
      }),
    }),
    recordHoldOverflow: assign({ reason: ({ context }) => ({ type: 'delivery_dropped' as const, cap: context.holdCap }) }),
    countHeld: assign({ held: ({ context }) => context.held + 1 }),
    forgetHeld: assign({ held: 0 }),
    recordResyncFailure: assign({ reason: ({ context, event }) => (event.type === 'resync.failed' ? { type: 'refused', error: event.error } : context.reason) }),
    assignHonored: assign({ honored: ({ context, event }) => (event.type === 'listen.acknowledged' ? event.honored : context.honored) }),
    countRelisten: assign(({ context }) => {
      if (context.relisten === false) return {};
      const relistens = context.relistens + 1;
      return { relistens, relistenDelayMs: backoffDelay(relistens, context.relisten.backoff, context.relisten.random()) };
    }),
    recordRelistenExhausted: assign({
      reason: ({ context, event }) => ({ type: 'reconnect_exhausted', cause: event.type === 'listen.ended' ? event.cause : undefined, attempts: context.relistens }),
    }),
    rememberSnapshot: assign({ resynced: ({ context, event }) => (event.type === 'resync.done' ? event.snapshot : context.resynced) }),
    forgetSnapshot: assign({ resynced: undefined }),
    forgiveRelistens: assign({ relistens: 0 }),
    watchActivity: assign({ watchingActivity: true }),
    forgetActivity: assign({ watchingActivity: false }),
    scheduleActivityReport: raise({ type: 'activity.due' }, { id: 'activityDue', delay: 'stallAfter' }),
    cancelActivityReport: cancel('activityDue'),
    askActivity: emit({ type: 'activity.report' }),
    endStalled: raise(({ context }) => ({ type: 'listen.ended' as const, cause: new ListenStalledError(context.subscriptionId, context.stallAfterMs) })),
    openOnWire: emit(({ context }) => ({ type: 'listen.open', subscriptionId: context.subscriptionId, filter: context.requested }) as const),
    cancelOnWire: emit({ type: 'listen.cancel' }),
    releaseOnWire: emit({ type: 'listen.release' }),
    routeDeliver: emit(({ context }) => ({ type: 'route.deliver', honored: context.honored ?? {}, resynced: context.resynced }) as const),
    routeHold: emit({ type: 'route.hold' }),
    routeStop: emit({ type: 'route.stop' }),
    startResync: emit(({ context }) => ({ type: 'resync.start', honored: context.honored ?? {} }) as const),
    cancelResync: emit({ type: 'resync.cancel' }),
  },
}).createMachine({
  id: 'subscription',
  context: ({ input }) => ({
    ...input,
    holdCap: input.holdCap ?? Infinity,
    stallAfterMs: input.stallAfterMs ?? 0,
    watchingActivity: false,
    honored: undefined,
    resynced: undefined,
    reason: undefined,
    relistens: 0,
    relistenDelayMs: 0,
    held: 0,
  }),
  initial: 'listening',
  on: {
    'connection.closed': { target: '.closed', actions: 'recordReason' },
    'connection.era_changed': { guard: 'leftModernEra', target: '.closed', actions: 'recordReason' },
  },
  states: {
    listening: {
      initial: 'awaitingAck',
      entry: ['forgetActivity', 'openOnWire'],
      exit: ['cancelActivityReport', 'releaseOnWire'],
      on: {
        // Judged only once the run's server has shown it sends keep-alives.
        'listen.keep_alive': { guard: 'mayWatchActivity', actions: ['watchActivity', 'scheduleActivityReport'] },
        'activity.due': { actions: 'askActivity' },
        'listen.activity': [
          { guard: 'heardSinceReport', actions: 'scheduleActivityReport' },
          // Silent for a whole window: drop the wire stream and end the run as unanswered.
          { actions: ['cancelOnWire', 'endStalled'] },
        ],
        // The stream is over on the wire: leaving `listening` only releases the route.
        'listen.result': { target: 'closed', actions: 'recordReason' },
        'listen.error': { target: 'closed', actions: 'recordReason' },
        'listen.cancelled': { target: 'closed', actions: 'recordReason' },
        'listen.ended': [
          { guard: 'mayRelisten', target: 'relistening', actions: 'countRelisten' },
          { guard: 'relistenExhausted', target: 'closed', actions: 'recordRelistenExhausted' },
          { target: 'closed', actions: 'recordReason' },
        ],
        'connection.lost': { target: 'paused' },
        // We end it: tell the peer.
        close: { target: '.cancelling', actions: 'recordReason' },
        'subscriber.stopped': { target: '.cancelling', actions: 'recordReason' },
        'delivery.dropped': { target: '.cancelling', actions: 'recordReason' },
      },
      states: {
        // The same wait for a first listen and for a re-listen; what follows the acknowledgment is the guard's.
        awaitingAck: {
          after: { ackTimeout: { target: 'cancelling', actions: 'recordAckTimeout' } },
          on: {
            'listen.acknowledged': [
              { guard: 'ackBroaderThanRequested', target: 'cancelling', actions: 'recordTooBroad' },
              // Acknowledged before: the stream had a gap, so the subscriber gets a resync snapshot first.
              { guard: 'everAcknowledged', target: 'resyncing', actions: 'assignHonored' },
              { guard: 'hasRelistened', target: 'relistened', actions: 'assignHonored' },
              { target: 'active', actions: 'assignHonored' },
            ],
            'listen.ack_malformed': { target: 'cancelling', actions: 'recordMalformedAck' },
          },
        },
        // No deadline once open.
        active: DELIVERING,
        // Delivering after a re-listen: here the machine's clock judges recovery. A run delivering for longer
        // than the longest backoff delay forgives the re-listens counted (a proxy cutting an idle stream every few
        // minutes never exhausts it; a server dropping every stream at once does). A state of its own so that
        // streams that never re-listened (most of 10,000) hold no timer.
        relistened: { ...DELIVERING, after: { recoveryWindow: { actions: 'forgiveRelistens' } } },
        resyncing: {
          entry: ['forgetHeld', 'routeHold', 'startResync'],
          exit: ['cancelResync', 'routeStop'],
          on: {
            'notification.held': [{ guard: 'holdFull', target: 'cancelling', actions: 'recordHoldOverflow' }, { actions: 'countHeld' }],
            'listen.acknowledged': { guard: 'ackBroaderThanHonored', target: 'cancelling', actions: 'recordViolation' },
            'listen.ack_malformed': { target: 'cancelling', actions: 'recordViolation' },
            'resync.done': [
              { guard: 'hasRelistened', target: 'relistened', actions: 'rememberSnapshot' },
              { target: 'active', actions: 'rememberSnapshot' },
            ],
            'resync.failed': [
              // The connection dropped mid-resync: `connection.lost` follows, wait for it there.
              { guard: 'resyncInterrupted', target: '#subscription.paused' },
              { target: '#subscription.closed', actions: 'recordResyncFailure' },
            ],
          },
        },
        cancelling: {
          // Transient: the cancel goes out before leaving `listening` releases the wire stream.
          entry: 'cancelOnWire',
          always: { target: '#subscription.closed' },
        },
      },
    },
    relistening: {
      after: {
        relistenDelay: 'listening.awaitingAck',
      },
      on: {
        'connection.lost': { target: 'paused' },
        close: { target: 'closed', actions: 'recordReason' },
        'subscriber.stopped': { target: 'closed', actions: 'recordReason' },
      },
    },
    paused: {
      on: {
        'connection.ready': [
          { guard: 'readyInOtherEra', target: 'closed', actions: 'recordReason' },
          { target: 'listening.awaitingAck' },
        ],
        close: { target: 'closed', actions: 'recordReason' },
        'subscriber.stopped': { target: 'closed', actions: 'recordReason' },
      },
    },
    closed: { type: 'final' },
  },
  output: ({ context }) => context.reason ?? { type: 'local' },
});

export type SubscriptionMachine = typeof subscriptionMachine;

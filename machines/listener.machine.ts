/**
 * One legacy-era notification listener (the port of ex_mcp's
 * NotificationListener): registering → active → paused → resubscribing →
 * active, ending in `closed` with a reason, or in `rejected` when it never
 * got registered.
 *
 * The registry in src/client decides which notifications fall inside the
 * listener's filter and sends only those; this machine decides whether they
 * are delivered now. Between a transport loss and the `reconnected` message
 * nothing is delivered: that message tells the subscriber to treat every list
 * and every URI as changed, so anything that arrived in between is covered
 * by it. Deliveries leave as emitted `deliver.*` events that src turns into
 * subscriber messages.
 */
import { assign, emit, setup } from 'xstate';
import type { ClosedReason } from './closed-reason.ts';
import type { Era } from './era.ts';
import type { UriReport } from './uri-worker.machine.ts';

export interface ListenerInput {
  id: string;
  /** The filter's `resourceSubscriptions`; a reconnect report is limited to these. */
  uris: string[];
  /** The connection generation at creation; undefined before the first connection. */
  generation: number | undefined;
}

export type ListenerRejection =
  /** The URI worker could not subscribe one of the URIs; it rolled back the rest. */
  | { type: 'subscribe_failed'; uri: string; cause: unknown }
  /** The connection ended (or changed era) before the registration completed. */
  | { type: 'closed'; reason: ClosedReason }
  /** The owner withdrew it, or the subscriber went away, before it completed. */
  | { type: 'withdrawn' };

export interface ListenerContext {
  id: string;
  uris: string[];
  generation: number | undefined;
  closedReason: ClosedReason | undefined;
  rejection: ListenerRejection | undefined;
}

export type ListenerEvent =
  /** The URI worker subscribed every URI of the listener. */
  | { type: 'registration.done' }
  | { type: 'registration.failed'; uri: string; cause: unknown }
  /** A notification the registry's filter selected for this listener. */
  | { type: 'notification.received'; method: string; params: Record<string, unknown> }
  | { type: 'connection.lost' }
  | { type: 'connection.ready'; generation: number }
  /** A reconnect landed on a peer of `to`; a listener lives only in the legacy era. */
  | { type: 'connection.era_changed'; to: Era }
  /** The connection (or the registry with it) ended for good. */
  | { type: 'connection.closed'; reason: ClosedReason }
  /** The URI worker finished re-subscribing for `generation`. */
  | { type: 'resubscribe.done'; generation: number; report: UriReport }
  /** The owner closed the listener; the subscriber is told `closed(local)`. */
  | { type: 'close' }
  /** The subscriber went away (actor stopped, signal aborted, iterator ended); nobody is left to tell. */
  | { type: 'subscriber.stopped' }
  /** The mailbox shed a delivery at its cap. */
  | { type: 'delivery.dropped'; cap: number };

/** The closed reason an event that ends the listener stands for. */
function reasonFor(event: ListenerEvent): ClosedReason {
  switch (event.type) {
    case 'delivery.dropped':
      return { type: 'delivery_dropped', cap: event.cap };
    case 'connection.closed':
      return event.reason;
    case 'connection.era_changed':
      return { type: 'era_changed', era: event.to };
    default:
      return { type: 'local' };
  }
}

export type ListenerEmitted =
  | { type: 'deliver.notification'; method: string; params: Record<string, unknown> }
  | { type: 'deliver.reconnected'; report: UriReport }
  | { type: 'deliver.closed'; reason: ClosedReason };

export type ListenerOutput =
  | { type: 'closed'; reason: ClosedReason }
  | { type: 'rejected'; rejection: ListenerRejection };

export const listenerMachine = setup({
  types: {
    context: {} as ListenerContext,
    events: {} as ListenerEvent,
    input: {} as ListenerInput,
    emitted: {} as ListenerEmitted,
    output: {} as ListenerOutput,
  },
  guards: {
    currentReport: ({ context, event }) => event.type === 'resubscribe.done' && event.generation === context.generation,
    leftLegacyEra: ({ event }) => event.type === 'connection.era_changed' && event.to !== 'legacy',
    newSession: ({ context, event }) => event.type === 'connection.ready' && event.generation !== context.generation,
  },
  actions: {
    deliverNotification: emit((_, params: { method: string; params: Record<string, unknown> }) => ({
      type: 'deliver.notification' as const,
      ...params,
    })),
    /** Each listener hears only about its own URIs. */
    deliverReport: emit(({ context }, { report }: { report: UriReport }) => {
      const mine = (uri: string) => context.uris.includes(uri);
      return {
        type: 'deliver.reconnected' as const,
        report: { resubscribed: report.resubscribed.filter(mine), failed: report.failed.filter((f) => mine(f.uri)) },
      };
    }),
    deliverClosed: emit(({ context }) => ({ type: 'deliver.closed' as const, reason: context.closedReason! })),
    trackGeneration: assign({
      generation: ({ context, event }) => (event.type === 'connection.ready' ? event.generation : context.generation),
    }),
    recordClose: assign({ closedReason: ({ event }) => reasonFor(event) }),
    recordRejection: assign({
      rejection: ({ event }): ListenerRejection => {
        if (event.type === 'registration.failed') return { type: 'subscribe_failed', uri: event.uri, cause: event.cause };
        if (event.type === 'close' || event.type === 'subscriber.stopped') return { type: 'withdrawn' };
        return { type: 'closed', reason: reasonFor(event) };
      },
    }),
  },
}).createMachine({
  id: 'listener',
  context: ({ input }) => ({ ...input, closedReason: undefined, rejection: undefined }),
  initial: 'registering',
  states: {
    registering: {
      on: {
        'registration.done': 'active',
        'registration.failed': { target: 'rejected', actions: 'recordRejection' },
        // A registration that straddles a reconnect completes on the new session; it has no report to receive.
        'connection.ready': { actions: 'trackGeneration' },
        close: { target: 'rejected', actions: 'recordRejection' },
        'subscriber.stopped': { target: 'rejected', actions: 'recordRejection' },
        'delivery.dropped': { target: 'rejected', actions: 'recordRejection' },
        'connection.closed': { target: 'rejected', actions: 'recordRejection' },
        'connection.era_changed': { guard: 'leftLegacyEra', target: 'rejected', actions: 'recordRejection' },
      },
    },
    active: {
      on: {
        'notification.received': {
          actions: { type: 'deliverNotification', params: ({ event }) => ({ method: event.method, params: event.params }) },
        },
        'connection.lost': 'paused',
        'connection.ready': { guard: 'newSession', target: 'resubscribing', actions: 'trackGeneration' },
      },
    },
    paused: {
      on: {
        'connection.ready': { target: 'resubscribing', actions: 'trackGeneration' },
      },
    },
    resubscribing: {
      on: {
        'resubscribe.done': {
          guard: 'currentReport',
          target: 'active',
          actions: { type: 'deliverReport', params: ({ event }) => ({ report: event.report }) },
        },
        'connection.lost': 'paused',
        'connection.ready': { actions: 'trackGeneration' },
      },
    },
    closed: { type: 'final' },
    rejected: { type: 'final' },
  },
  on: {
    close: { target: '.closed', actions: ['recordClose', 'deliverClosed'] },
    'delivery.dropped': { target: '.closed', actions: ['recordClose', 'deliverClosed'] },
    'connection.closed': { target: '.closed', actions: ['recordClose', 'deliverClosed'] },
    'connection.era_changed': { guard: 'leftLegacyEra', target: '.closed', actions: ['recordClose', 'deliverClosed'] },
    'subscriber.stopped': { target: '.closed', actions: 'recordClose' },
  },
  output: ({ context }): ListenerOutput =>
    context.rejection ? { type: 'rejected', rejection: context.rejection } : { type: 'closed', reason: context.closedReason! },
});

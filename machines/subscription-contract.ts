/**
 * The subscription machine's contract (machines/subscription.machine.ts):
 * its input and context, the events it takes from its owner and its I/O,
 * the commands it emits to that I/O, and the closed reason each ending event
 * stands for. Kept apart so the machine file holds only its states and rules.
 */
import type { Backoff } from './backoff.ts';
import type { ClosedReason } from './closed-reason.ts';
import type { ConnectionLifecycleEvent } from './connection.machine.ts';
import type { NotificationFilter } from './notification-filter.ts';
import type { RequestId } from './request-id.ts';

/** What the I/O reports from the wire (notifications take the route instead). */
export type ListenWireEvent =
  | { type: 'listen.acknowledged'; honored: NotificationFilter }
  /** An acknowledgment whose filter could not be read; `error`: the FilterError. */
  | { type: 'listen.ack_malformed'; error: unknown }
  | { type: 'listen.result'; result: unknown }
  | { type: 'listen.error'; error: unknown }
  | { type: 'listen.cancelled'; reason: string | undefined }
  /** The stream ended with no answer. */
  | { type: 'listen.ended'; cause: unknown }
  /** The run's first keep-alive comment: its server sends them, so its silence can be judged. Once per run. */
  | { type: 'listen.keep_alive' }
  /** The answer to `activity.report`: whether anything arrived on the run since the last one. */
  | { type: 'listen.activity'; heard: boolean };

/** What the I/O reports about the resync snapshot it was asked for. */
export type ResyncEvent = { type: 'resync.done'; snapshot: object } | { type: 'resync.failed'; error: unknown };

/** What the owner and the machine itself report about the stream's local side. */
export type SubscriptionLocalEvent =
  /** The owner closed the stream. */
  | { type: 'close' }
  /** The subscriber (an actor, an abandoned iterator) is gone. */
  | { type: 'subscriber.stopped' }
  /** The mailbox shed a delivery at its cap. */
  | { type: 'delivery.dropped'; cap: number }
  /** The route is holding one more notification during a resync (this machine decides whether that is too many). */
  | { type: 'notification.held' }
  /** Raised by the machine itself, `stallAfterMs` after it last judged the run's activity. */
  | { type: 'activity.due' };

/** Every event the subscription machine takes. */
export type SubscriptionEvent = ListenWireEvent | ResyncEvent | ConnectionLifecycleEvent | SubscriptionLocalEvent;

/** How a stream listens again after the server ended it unanswered: the connection's reconnect backoff. */
export interface RelistenPolicy {
  backoff: Backoff;
  /** A number in [0, 1] for the jitter. */
  random: () => number;
}

/** What the owner gives a stream when it spawns it. */
export interface SubscriptionInput {
  subscriptionId: RequestId;
  requested: NotificationFilter;
  ackTimeoutMs: number;
  /**
   * Most notifications held during a resync: the mailbox cap, since they are in flight too (src/client
   * always passes it); left out, the hold is unbounded.
   */
  holdCap?: number;
  /** `false` while reconnection is off: an unanswered end is then `remote`. */
  relisten: RelistenPolicy | false;
  /** How long a run whose server sends keep-alives may be silent before it is stalled; 0 (or left out) never judges. */
  stallAfterMs?: number;
}

/** What `listen.open` sends: the stream's id, reused on every re-listen, and the requested filter. */
export interface ListenInput {
  subscriptionId: RequestId;
  filter: NotificationFilter;
}
/** What the machine asks of the stream's I/O (emitted): the wire stream's life, and which route notifications take. */
export type ListenCommand =
  | ({ type: 'listen.open' } & ListenInput)
  | { type: 'listen.cancel' }
  | { type: 'listen.release' }
  | {
      type: 'route.deliver';
      honored: NotificationFilter;
      /** The resync snapshot to hand over before anything else, after a restart. Opaque here. */
      resynced: object | undefined;
    }
  | { type: 'route.hold' }
  | { type: 'route.stop' }
  /** Fetch the resync snapshot of what the honored filter covers. */
  | { type: 'resync.start'; honored: NotificationFilter }
  | { type: 'resync.cancel' }
  /** Answer at once with `listen.activity`. */
  | { type: 'activity.report' };

/** The machine's context: its input with defaults filled in, and what it has learned since. */
export interface SubscriptionContext extends Omit<SubscriptionInput, 'holdCap' | 'stallAfterMs'> {
  holdCap: number;
  stallAfterMs: number;
  /** Whether this run's activity is being judged: its first keep-alive arrived. */
  watchingActivity: boolean;
  /** The acknowledged filter; undefined until the first acknowledgment. */
  honored: NotificationFilter | undefined;
  resynced: object | undefined;
  reason: ClosedReason | undefined;
  /** Re-listens in a row (see `countRelisten`), and the delay before the next one. */
  relistens: number;
  relistenDelayMs: number;
  /** Notifications held in the current resync. */
  held: number;
}

/** The closed reason an outside event stands for, or undefined if it does not end the stream. */
export function reasonFor(event: SubscriptionEvent): ClosedReason | undefined {
  switch (event.type) {
    case 'close':
    case 'subscriber.stopped':
      return { type: 'local' };
    case 'delivery.dropped':
      return { type: 'delivery_dropped', cap: event.cap };
    case 'listen.result':
      return { type: 'graceful' };
    case 'listen.error':
      return { type: 'refused', error: event.error };
    case 'listen.cancelled':
      return { type: 'remote', cause: event.reason };
    case 'listen.ended':
      return { type: 'remote', cause: event.cause };
    case 'connection.era_changed':
      return { type: 'era_changed', era: event.to };
    case 'connection.ready':
      return { type: 'era_changed', era: event.era };
    case 'connection.closed':
      // For a stream, a transport closed with reconnection off is "ended with no answer".
      return event.reason.type === 'transport_closed' ? { type: 'remote', cause: event.reason.cause } : event.reason;
    default:
      return undefined;
  }
}

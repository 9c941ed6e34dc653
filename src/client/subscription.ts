/**
 * The I/O bridge of one modern-era listen stream: it provides the actors of
 * machines/subscription.machine.ts on top of a ListenPort and a mailbox, and
 * hands the owner a `ListenStream`.
 *
 * The hot path stays out of the machine: the port calls the `notification`
 * handler, which calls whatever route the machine's current state installed
 * (a filter check and a mailbox push in `active`, a holding buffer in
 * `resyncing`, nothing otherwise). Only lifecycle facts become events.
 *
 * The owner (the client) must feed every ConnectionLifecycleEvent to
 * `stream.handleLifecycle` for as long as `stream.closed` is pending.
 */
import { createActor, type Actor, type ActorOptions, type InspectionEvent, type Observer } from 'xstate';
import type { ClosedReason } from '../../machines/closed-reason.ts';
import { ListenAckTimeoutError } from '../../machines/subscription-errors.ts';
import type { SubscriptionEvent, SubscriptionMachine } from '../../machines/subscription.machine.ts';
import { McpActorsError, WrongEraError } from '../protocol/errors.ts';
import { validateFilter, type NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import { TASKS_EXTENSION } from '../protocol/versions.ts';
import { createMailbox, DEFAULT_MAILBOX_CAP, type Subscriber, type SubscriberCallbackError } from './mailbox.ts';
import type { SubscriberMessage, SubscriptionRef } from './messages.ts';
import type { ConnectionLifecycleEvent, ListenPort } from './ports.ts';
import { bindStreamIo, listenStreamMachine, StreamIo } from './stream-io.ts';

export { HonoredFilterTooBroadError, ListenAckTimeoutError } from '../../machines/subscription-errors.ts';
export { DEFAULT_MAILBOX_CAP, DeliveryDroppedError, SubscriberCallbackError } from './mailbox.ts';

/** Default wait for `notifications/subscriptions/acknowledged` (opening and reopening only). */
export const DEFAULT_ACK_TIMEOUT_MS = 30_000;

/** The stream closed before its first acknowledgment, for a reason other than a refusal or the ack timeout. */
export class ListenNotAcknowledgedError extends McpActorsError {
  override readonly name = 'ListenNotAcknowledgedError';
  readonly code = 'listen_not_acknowledged';
  constructor(readonly subscriptionId: RequestId, readonly reason: ClosedReason) {
    super(`subscriptions/listen ${String(subscriptionId)} closed (${reason.type}) before it was acknowledged`, {
      cause: reason.type === 'remote' || reason.type === 'shutdown' ? reason.cause : undefined,
    });
  }
}

export interface ListenOptions {
  ackTimeoutMs?: number;
  /** Deliveries in flight before one is shed and the stream ends as `delivery_dropped`. */
  mailboxCap?: number;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Where failing subscriber callbacks are reported; a process warning by default. */
  onSubscriberError?: (error: SubscriberCallbackError) => void;
  /** For tests: drives the ack timeout. */
  clock?: ActorOptions<SubscriptionMachine>['clock'];
}

export type SubscriptionActor = Actor<SubscriptionMachine>;

export interface ListenStream {
  /** The subscription id: the JSON-RPC id of the listen request, kept across reopens. */
  readonly id: RequestId;
  readonly ref: SubscriptionRef;
  readonly requestedFilter: NotificationFilter;
  /** What the server last acknowledged; undefined before the first acknowledgment. */
  readonly honoredFilter: NotificationFilter | undefined;
  /** Settles on the first acknowledgment; rejects with the opening error (see openingError). */
  readonly acknowledged: Promise<void>;
  /** Resolves exactly once with why the stream ended; never rejects. */
  readonly closed: Promise<ClosedReason>;
  readonly actor: SubscriptionActor;
  /** Ends the stream as `local` (cancelling it on the wire). Idempotent. */
  close(): void;
  /** The owner feeds every connection lifecycle event here. */
  handleLifecycle(event: ConnectionLifecycleEvent): void;
}

export interface IterableListenStream extends ListenStream, AsyncIterable<SubscriberMessage> {}

/** What `acknowledged` rejects with: the server's error for a refusal, the timeout error, or ListenNotAcknowledgedError. */
export function openingError(id: RequestId, reason: ClosedReason): unknown {
  if (reason.type === 'refused') return reason.error;
  if (reason.type === 'remote' && reason.cause instanceof ListenAckTimeoutError) return reason.cause;
  return new ListenNotAcknowledgedError(id, reason);
}

/**
 * Creates the stream and sends the listen. Throws WrongEraError on a legacy
 * connection and FilterError for a bad filter, before anything is sent.
 */
export function createListenStream(port: ListenPort, filter: unknown, subscriber: 'iterator', options?: ListenOptions): IterableListenStream;
export function createListenStream(port: ListenPort, filter: unknown, subscriber: Subscriber, options?: ListenOptions): ListenStream;
export function createListenStream(port: ListenPort, filter: unknown, subscriber: Subscriber, options: ListenOptions = {}): ListenStream {
  if (port.era === 'legacy') throw new WrongEraError('legacy', 'listen');
  const requested = validateFilter(filter, { allowTaskIds: advertisesTasks(port.serverCapabilities) });
  if (typeof subscriber === 'object' && subscriber.getSnapshot().status !== 'active') {
    throw new TypeError('the subscriber actor is not running');
  }
  const id = port.nextRequestId();
  const ref: SubscriptionRef = { kind: 'stream', id };
  const cap = options.mailboxCap;

  let actor: SubscriptionActor | undefined;
  const send = (event: SubscriptionEvent): void => {
    if (actor?.getSnapshot().status === 'active') actor.send(event);
  };
  const mailbox = createMailbox(subscriber, {
    ref,
    ...(cap !== undefined ? { cap } : {}),
    onDropped: (dropped) => send({ type: 'delivery.dropped', cap: dropped }),
    onSubscriberStopped: () => send({ type: 'subscriber.stopped' }),
    ...(options.onSubscriberError ? { onSubscriberError: options.onSubscriberError } : {}),
  });
  actor = createActor(listenStreamMachine, {
    input: { subscriptionId: id, requested, ackTimeoutMs: options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS },
    ...(options.inspect ? { inspect: options.inspect } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const started = actor;
  bindStreamIo(started, new StreamIo(port, ref, mailbox, cap ?? DEFAULT_MAILBOX_CAP, send));

  let acknowledge!: () => void;
  let refuse!: (error: unknown) => void;
  const acknowledged = new Promise<void>((resolve, reject) => {
    acknowledge = resolve;
    refuse = reject;
  });
  acknowledged.catch(() => undefined); // owners that never await it must not see an unhandled rejection
  let resolveClosed!: (reason: ClosedReason) => void;
  const closed = new Promise<ClosedReason>((resolve) => (resolveClosed = resolve));

  let wasAcknowledged = false;
  let ended = false;
  const end = (reason: ClosedReason): void => {
    if (ended) return;
    ended = true;
    mailbox.close(reason);
    if (!wasAcknowledged) refuse(openingError(id, reason));
    resolveClosed(reason);
  };
  started.subscribe({
    next: (snapshot) => {
      if (!wasAcknowledged && snapshot.context.honored !== undefined) {
        wasAcknowledged = true;
        acknowledge();
      }
      if (snapshot.status === 'done') end(snapshot.output);
    },
    // Only a bug gets here; the stream still ends with a reason.
    error: (error) => end({ type: 'shutdown', cause: error }),
  });

  const stream: ListenStream = {
    id,
    ref,
    requestedFilter: requested,
    get honoredFilter() {
      return started.getSnapshot().context.honored;
    },
    acknowledged,
    closed,
    actor: started,
    close: () => send({ type: 'close' }),
    handleLifecycle: (event) => send(event),
  };
  const iterator = mailbox.iterator;
  started.start();
  if (!iterator) return stream;
  const iterable: IterableListenStream = Object.assign(stream, { [Symbol.asyncIterator]: () => iterator });
  return iterable;
}

/**
 * Opens a stream and resolves once the server acknowledged it. Rejects with
 * WrongEraError or FilterError (nothing sent), or with the opening error.
 */
export function openSubscription(port: ListenPort, filter: unknown, subscriber: 'iterator', options?: ListenOptions): Promise<IterableListenStream>;
export function openSubscription(port: ListenPort, filter: unknown, subscriber: Subscriber, options?: ListenOptions): Promise<ListenStream>;
export async function openSubscription(port: ListenPort, filter: unknown, subscriber: Subscriber, options: ListenOptions = {}): Promise<ListenStream> {
  const stream = createListenStream(port, filter, subscriber, options);
  await stream.acknowledged;
  return stream;
}

function advertisesTasks(capabilities: JsonObject | undefined): boolean {
  const extensions = capabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

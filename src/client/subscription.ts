/**
 * One modern-era listen stream: a subscription actor
 * (machines/subscription.machine.ts) whose emitted commands a `StreamWire`
 * (stream-io.ts) carries out on a ListenPort and a mailbox, handed to the
 * owner as a `ListenStream`.
 *
 * The hot path stays out of the machine: the port calls the `notification`
 * handler, which follows whatever route the machine last set (a filter
 * check and a mailbox push in `active`, a holding buffer in `resyncing`,
 * nothing otherwise). Only lifecycle facts become events.
 *
 * The owner (the client) must feed every ConnectionLifecycleEvent to
 * `stream.handleLifecycle` for as long as `stream.closed` is pending.
 */
import { createActor, fromCallback, type Actor, type AnyActorRef, type ActorOptions, type InspectionEvent, type Observer } from 'xstate';
import type { ClosedReason } from '../../machines/closed-reason.ts';
import { ListenAckTimeoutError } from '../../machines/subscription-errors.ts';
import type { SubscriptionEvent, SubscriptionMachine } from '../../machines/subscription.machine.ts';
import { McpActorsError, WrongEraError } from '../protocol/errors.ts';
import { validateFilter, type NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import { TASKS_EXTENSION } from '../protocol/versions.ts';
import { createMailbox, DEFAULT_MAILBOX_CAP, type Mailbox, type MailboxOptions, type Subscriber, type SubscriberCallbackError } from './mailbox.ts';
import type { SubscriberMessage, SubscriptionRef } from './messages.ts';
import type { ConnectionLifecycleEvent, ListenPort } from './ports.ts';
import { bindStreamIo, listenStreamMachine, StreamWire, type StreamIo } from './stream-io.ts';

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
  const stream = new SubscriptionStream(port, requested, subscriber, options);
  const iterator = stream.iterator;
  if (!iterator) return stream;
  return Object.assign(stream, { [Symbol.asyncIterator]: () => iterator });
}

const ignore = (): void => undefined;

/**
 * One started root actor per port whose system hosts the actors of the
 * port's streams: a system of its own costs a stream ~2.5 KB (its maps,
 * scheduler and closures). The host only ignores what its "children" report
 * to a parent (their done and error events): each stream's owner watches its
 * actor itself, and a failing stream must not take anything else down.
 */
const hosts = new WeakMap<ListenPort, AnyActorRef>();
const hostLogic = fromCallback(() => undefined);

function hostOf(port: ListenPort): AnyActorRef {
  let host = hosts.get(port);
  if (!host) {
    host = createActor(hostLogic).start();
    hosts.set(port, host);
  }
  return host;
}

/**
 * One stream: its actor, its mailbox and the promises its owner awaits. A
 * class rather than closures, since 10,000 of them may be open at once; it is
 * also its mailbox's options and its actors' I/O.
 */
class SubscriptionStream implements ListenStream, MailboxOptions, StreamIo {
  readonly id: RequestId;
  readonly ref: SubscriptionRef;
  readonly acknowledged: Promise<void>;
  readonly closed: Promise<ClosedReason>;
  readonly actor: SubscriptionActor;
  /** An own property, so `const { close } = stream` keeps working. */
  readonly close: () => void;
  /** MailboxOptions: the configured cap and error report, if any. */
  readonly cap?: number;
  readonly onSubscriberError?: (error: SubscriberCallbackError) => void;
  /** StreamIo: what the wire and the `resync` actor use. */
  readonly port: ListenPort;
  readonly mailbox: Mailbox;
  readonly holdCap: number;
  readonly #wire: StreamWire;
  /** Dropped once `acknowledged` settles: 10,000 open streams need not keep them. */
  #acknowledge: (() => void) | undefined;
  #refuse: ((error: unknown) => void) | undefined;
  #resolveClosed!: (reason: ClosedReason) => void;
  #ended = false;

  constructor(port: ListenPort, readonly requestedFilter: NotificationFilter, subscriber: Subscriber, options: ListenOptions) {
    this.close = () => this.send({ type: 'close' });
    this.port = port;
    this.id = port.nextRequestId();
    this.ref = { kind: 'stream', id: this.id };
    const cap = options.mailboxCap;
    if (cap !== undefined) this.cap = cap;
    if (options.onSubscriberError) this.onSubscriberError = options.onSubscriberError;
    this.holdCap = cap ?? DEFAULT_MAILBOX_CAP;
    this.mailbox = createMailbox(subscriber, this);
    this.acknowledged = new Promise<void>((resolve, reject) => {
      this.#acknowledge = resolve;
      this.#refuse = reject;
    });
    this.acknowledged.catch(ignore); // owners that never await it must not see an unhandled rejection
    this.closed = new Promise<ClosedReason>((resolve) => (this.#resolveClosed = resolve));
    this.actor = createActor(listenStreamMachine, {
      input: { subscriptionId: this.id, requested: requestedFilter, ackTimeoutMs: options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS },
      // The clock and the inspector belong to an actor system, so a stream with either gets its own.
      ...(options.inspect || options.clock
        ? { ...(options.inspect ? { inspect: options.inspect } : {}), ...(options.clock ? { clock: options.clock } : {}) }
        : { parent: hostOf(port) }),
    });
    bindStreamIo(this.actor, this);
    this.#wire = new StreamWire(this);
    // What the machine emits is what the wire does (the listen request goes out as the actor starts).
    this.actor.on('*', (command) => this.#wire.perform(command));
    this.actor.subscribe(new StreamObserver(this));
    this.actor.start();
  }

  get iterator(): AsyncIterator<SubscriberMessage> | undefined {
    return this.mailbox.iterator;
  }

  get honoredFilter(): NotificationFilter | undefined {
    return this.actor.getSnapshot().context.honored;
  }

  handleLifecycle(event: ConnectionLifecycleEvent): void {
    this.send(event);
  }

  send(event: SubscriptionEvent): void {
    if (this.actor.getSnapshot().status === 'active') this.actor.send(event);
  }

  onDropped(cap: number): void {
    this.send({ type: 'delivery.dropped', cap });
  }

  onSubscriberStopped(): void {
    this.send({ type: 'subscriber.stopped' });
  }

  /** Called by the observer on every snapshot of the actor. */
  observe(snapshot: ReturnType<SubscriptionActor['getSnapshot']>): void {
    const acknowledge = this.#acknowledge;
    if (acknowledge && snapshot.context.honored !== undefined) {
      this.#acknowledge = this.#refuse = undefined;
      acknowledge();
    }
    if (snapshot.status === 'done') this.end(snapshot.output);
  }

  releaseWire(): void {
    this.#wire.release();
  }

  end(reason: ClosedReason): void {
    if (this.#ended) return;
    this.#ended = true;
    // A machine that errored or was stopped never left `listening`: drop the wire stream here too.
    this.#wire.release();
    this.mailbox.close(reason);
    const refuse = this.#refuse;
    if (refuse) {
      this.#acknowledge = this.#refuse = undefined;
      refuse(openingError(this.id, reason));
    }
    this.#resolveClosed(reason);
  }
}

class StreamObserver {
  constructor(private readonly stream: SubscriptionStream) {}

  next(snapshot: ReturnType<SubscriptionActor['getSnapshot']>): void {
    this.stream.observe(snapshot);
  }

  /** Only a bug gets here; the stream still ends with a reason. */
  error(error: unknown): void {
    this.stream.end({ type: 'shutdown', cause: error });
  }

  /** Done (already ended) or stopped from outside (a stream with its own clock or inspector). */
  complete(): void {
    this.stream.releaseWire();
  }
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

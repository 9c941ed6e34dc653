/**
 * One modern-era listen stream: a subscription actor
 * (machines/subscription.machine.ts, run in a LeanActor) whose emitted
 * commands a `StreamWire` (stream-io.ts) carries out on a ListenPort and a
 * mailbox, handed to the owner as a `ListenStream`.
 *
 * The hot path stays out of the machine: the port calls the `notification`
 * handler, which follows whatever route the machine last set (a filter
 * check and a mailbox push in `active`, a holding buffer in `resyncing`,
 * nothing otherwise). Only lifecycle facts become events.
 *
 * The connection owns the stream's actor: the port is also the ChildOwner
 * that adopts it as the connection actor's child when it starts and
 * releases it when it ends; in between the connection machine sends it every
 * lifecycle event itself.
 */
import type { ClosedReason } from '../../machines/closed-reason.ts';
import { ListenAckTimeoutError } from '../../machines/subscription-errors.ts';
import { subscriptionMachine, type ListenCommand, type SubscriptionEvent, type SubscriptionMachine } from '../../machines/subscription.machine.ts';
import { McpActorsError, WrongEraError } from '../protocol/errors.ts';
import { validateFilter, type NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import { TASKS_EXTENSION } from '../protocol/versions.ts';
import { createMailbox, DEFAULT_MAILBOX_CAP, type Mailbox, type MailboxOptions, type DeliveryTarget, type SubscriberCallbackError } from './mailbox.ts';
import type { SubscriberMessage, SubscriptionRef } from './messages.ts';
import type { AnyActorRef } from 'xstate';
import type { ChildOwner, ListenPort } from './ports.ts';
import { LeanActor, type Clock, type Inspector, type LeanActorHost } from '../runtime/lean-actor.ts';
import { asChildRef } from '../runtime/xstate-internals.ts';
import { memberId } from '../../machines/connection-children.ts';
import { StreamWire, type StreamIo } from './stream-io.ts';
import { DEFAULT_STALL_AFTER_MS } from '../transport/silence-watch.ts';

export { AcknowledgmentViolationError, HonoredFilterTooBroadError, ListenAckTimeoutError, ListenStalledError } from '../../machines/subscription-errors.ts';
export { DEFAULT_MAILBOX_CAP, DeliveryDroppedError, SubscriberCallbackError } from './mailbox.ts';

/** Default wait for `notifications/subscriptions/acknowledged` (a listen's or a re-listen's, never once open). */
export const DEFAULT_ACK_TIMEOUT_MS = 30_000;

/** The stream closed before its first acknowledgment, for a reason other than a refusal or the ack timeout. */
export class ListenNotAcknowledgedError extends McpActorsError {
  override readonly name = 'ListenNotAcknowledgedError';
  readonly code = 'listen_not_acknowledged';
  constructor(
    /** The stream's id (its listen request's id). */
    readonly subscriptionId: RequestId,
    /** Why it closed before the acknowledgment. */
    readonly reason: ClosedReason,
  ) {
    super(`subscriptions/listen ${String(subscriptionId)} closed (${reason.type}) before it was acknowledged`, {
      cause: reason.type === 'remote' || reason.type === 'shutdown' ? reason.cause : undefined,
    });
  }
}

/** Options of `client.listen`. */
export interface ListenOptions {
  /** How long to wait for each acknowledgment, the first and a re-listen's (default DEFAULT_ACK_TIMEOUT_MS, 30 s); an open stream has no deadline. */
  ackTimeoutMs?: number;
  /**
   * How long a stream whose server sends keep-alive comments (HTTP) may hear nothing at all before it is stalled:
   * it is then dropped and listened again under the same id (`ListenStalledError`, resync snapshot). Default
   * DEFAULT_STALL_AFTER_MS (60 s); 0 never judges. A server that sends no keep-alives is never judged.
   */
  stallAfterMs?: number;
  /**
   * Aborting closes the stream as `close()` does (reason `local`); aborted before the acknowledgment, `listen`
   * rejects with RequestAbortedError.
   */
  signal?: AbortSignal;
  /** Deliveries in flight before one is shed and the stream ends as `delivery_dropped`. */
  mailboxCap?: number;
  /**
   * Inspector of a stream opened without a connection actor (a test's port). A client's streams ignore it: they
   * report through the client's `inspect`, as the connection actor's children.
   */
  inspect?: Inspector;
  /** Where failing subscriber callbacks are reported; a process warning by default. */
  onSubscriberError?: (error: SubscriberCallbackError) => void;
}

/** What a stream is opened on: the connection, which carries its I/O (ListenPort) and owns its actor (ChildOwner). */
export interface StreamConnection extends ListenPort, ChildOwner {
  /** Drives the ack timeout and the re-listen backoff; the real timers when undefined (`mcp-actors/testing` sets one). */
  readonly clock: Clock | undefined;
}

/** The stream's actor: its state (`getSnapshot`, `subscribe`) for inspection and tests. */
export type SubscriptionActor = LeanActor<SubscriptionMachine>;

/** One open `subscriptions/listen` stream, as `client.listen` resolves with it. */
export interface ListenStream {
  /**
   * The subscription id: the JSON-RPC id of the listen request, kept across
   * reopens. It is the id on the wire (the listen request's `id` and every
   * event's `_meta["io.modelcontextprotocol/subscriptionId"]`), for
   * correlating logs and traces with the peer's.
   */
  readonly id: RequestId;
  /** The stream as its subscriber's messages name it (`kind: 'stream'` and the id). */
  readonly ref: SubscriptionRef;
  /** The filter `listen` was called with, checked. */
  readonly requestedFilter: NotificationFilter;
  /** What the server last acknowledged; undefined before the first acknowledgment. */
  readonly honoredFilter: NotificationFilter | undefined;
  /** Settles on the first acknowledgment; rejects with the opening error (see openingError). */
  readonly acknowledged: Promise<void>;
  /** Resolves exactly once with why the stream ended; never rejects. */
  readonly closed: Promise<ClosedReason>;
  /** Ends the stream as `local` (cancelling it on the wire). Idempotent. */
  close(): void;
  /** `close()`, then waits for `closed`: `await using stream = await client.listen(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `listen(filter)` without a subscriber resolves with: the stream, async-iterable for its messages (one consumer; the loop ends after `closed`). */
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
export function createListenStream(port: StreamConnection, filter: unknown, subscriber: 'iterator', options?: ListenOptions): IterableListenStream;
export function createListenStream(port: StreamConnection, filter: unknown, subscriber: DeliveryTarget, options?: ListenOptions): ListenStream;
export function createListenStream(port: StreamConnection, filter: unknown, subscriber: DeliveryTarget, options: ListenOptions = {}): ListenStream {
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
 * One stream: its actor, its mailbox and the promises its owner awaits. A
 * class rather than closures, since 10,000 of them may be open at once; it is
 * also its mailbox's options, its actor's host and its wire's I/O. What those
 * read is private and reached through getters, so a stream's own enumerable
 * properties are its public ones (id, ref, requestedFilter, acknowledged).
 */
class SubscriptionStream implements ListenStream, MailboxOptions, StreamIo, LeanActorHost<SubscriptionMachine> {
  readonly id: RequestId;
  readonly ref: SubscriptionRef;
  readonly acknowledged: Promise<void>;
  readonly #actor: SubscriptionActor;
  readonly #cap: number | undefined;
  readonly #onSubscriberError: ((error: SubscriberCallbackError) => void) | undefined;
  readonly #inspect: Inspector | undefined;
  /** The connection: the wire's port, the actor's owner, and the clock. */
  readonly #port: StreamConnection;
  readonly #mailbox: Mailbox;
  readonly #wire: StreamWire;
  /** Dropped once `acknowledged` settles: 10,000 open streams need not keep them. */
  #acknowledge: (() => void) | undefined;
  #refuse: ((error: unknown) => void) | undefined;
  /** Made when first asked for: most owners of 10,000 streams never await each one's end. */
  #closed: Promise<ClosedReason> | undefined;
  #resolveClosed: ((reason: ClosedReason) => void) | undefined;
  #reason: ClosedReason | undefined;
  #close: (() => void) | undefined;

  /** The stream's actor, for diagnostics and tests (`mcp-actors/testing`); not on the stream itself. */
  static actorOf(stream: ListenStream): SubscriptionActor | undefined {
    return #actor in stream ? (stream as SubscriptionStream).#actor : undefined;
  }

  constructor(port: StreamConnection, readonly requestedFilter: NotificationFilter, subscriber: DeliveryTarget, options: ListenOptions) {
    this.#port = port;
    this.id = port.nextRequestId();
    this.ref = { kind: 'stream', id: this.id };
    this.#cap = options.mailboxCap;
    this.#onSubscriberError = options.onSubscriberError;
    this.#inspect = options.inspect;
    this.#mailbox = createMailbox(subscriber, this);
    this.acknowledged = new Promise<void>((resolve, reject) => {
      this.#acknowledge = resolve;
      this.#refuse = reject;
    });
    this.acknowledged.catch(ignore); // owners that never await it must not see an unhandled rejection
    this.#wire = new StreamWire(this);
    const input = {
      subscriptionId: this.id,
      requested: requestedFilter,
      ackTimeoutMs: options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS,
      holdCap: this.#cap ?? DEFAULT_MAILBOX_CAP,
      relisten: port.relisten,
      stallAfterMs: options.stallAfterMs ?? DEFAULT_STALL_AFTER_MS,
    };
    this.#actor = new LeanActor(subscriptionMachine, input, this);
    // Adopted before it starts: a stream can end while it does (and is released then).
    port.adopt(asChildRef(this.#actor), memberId(this.id));
    // The listen request goes out as the actor starts.
    this.#actor.start();
  }

  /** MailboxOptions: the configured cap, if any. */
  get cap(): number | undefined {
    return this.#cap;
  }

  /** MailboxOptions: where a throwing subscriber callback is reported, if set. */
  get onSubscriberError(): ((error: SubscriberCallbackError) => void) | undefined {
    return this.#onSubscriberError;
  }

  /** LeanActorHost: the connection's clock. */
  get clock(): Clock | undefined {
    return this.#port.clock;
  }

  /** LeanActorHost: the inspector, used only when the owner is no actor. */
  get inspect(): Inspector | undefined {
    return this.#inspect;
  }

  /** LeanActorHost: the connection actor, the stream actor's parent. */
  get parent(): AnyActorRef | undefined {
    return this.#port.parent;
  }

  /** StreamIo: the connection's listen port. */
  get port(): ListenPort {
    return this.#port;
  }

  /** StreamIo: the subscriber's mailbox. */
  get mailbox(): Mailbox {
    return this.#mailbox;
  }

  get iterator(): AsyncIterator<SubscriberMessage> | undefined {
    return this.#mailbox.iterator;
  }

  get honoredFilter(): NotificationFilter | undefined {
    return this.#actor.getSnapshot().context.honored;
  }

  get closed(): Promise<ClosedReason> {
    if (!this.#closed) {
      const reason = this.#reason;
      this.#closed = reason ? Promise.resolve(reason) : new Promise<ClosedReason>((resolve) => (this.#resolveClosed = resolve));
    }
    return this.#closed;
  }

  /** Made when first asked for, then the same function, so `const { close } = stream` works. */
  get close(): () => void {
    return (this.#close ??= () => this.send({ type: 'close' }));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
    await this.closed;
  }

  send(event: SubscriptionEvent): void {
    this.#actor.send(event);
  }

  onDropped(cap: number): void {
    this.send({ type: 'delivery.dropped', cap });
  }

  onSubscriberStopped(): void {
    this.send({ type: 'subscriber.stopped' });
  }

  /** LeanActorHost: what the machine emits is what the wire does. */
  onEmit(command: ListenCommand): void {
    this.#wire.perform(command);
  }

  /** LeanActorHost: every snapshot of the actor. */
  onSnapshot(snapshot: ReturnType<SubscriptionActor['getSnapshot']>): void {
    const acknowledge = this.#acknowledge;
    if (acknowledge && snapshot.context.honored !== undefined) {
      this.#acknowledge = this.#refuse = undefined;
      acknowledge();
    }
    if (snapshot.status === 'done') this.end(snapshot.output);
    // Only a bug gets here; the stream still ends with a reason.
    else if (snapshot.status === 'error') this.end({ type: 'shutdown', cause: snapshot.error });
  }

  end(reason: ClosedReason): void {
    if (this.#reason) return;
    this.#reason = reason;
    // A machine that errored never left `listening`: drop the wire stream here too.
    this.#wire.release();
    this.#mailbox.close(reason);
    const refuse = this.#refuse;
    if (refuse) {
      this.#acknowledge = this.#refuse = undefined;
      refuse(openingError(this.id, reason));
    }
    const resolveClosed = this.#resolveClosed;
    this.#resolveClosed = undefined;
    resolveClosed?.(reason);
    this.#port.release(asChildRef(this.#actor));
  }
}

/** A stream's actor (undefined for anything that is no stream of this module): for diagnostics and tests, through `mcp-actors/testing`. */
export function subscriptionActorOf(stream: ListenStream): SubscriptionActor | undefined {
  return SubscriptionStream.actorOf(stream);
}

function advertisesTasks(capabilities: JsonObject | undefined): boolean {
  const extensions = capabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

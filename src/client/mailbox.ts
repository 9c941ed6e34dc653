/**
 * Delivery to one subscriber, whatever it is: a callback, a `for await`
 * iterator, or an xstate actor. Every kind receives the same
 * `notification` / `reconnected` / `closed` messages (messages.ts).
 *
 * Deliveries in flight are capped (DEFAULT_MAILBOX_CAP unless configured):
 * - callback: a delivery whose returned promise has not settled (a callback
 *   that returns nothing is done when it returns);
 * - iterator: a message queued but not yet pulled;
 * - actor: xstate processes an event when it is sent, so nothing stays in flight.
 * A delivery that would exceed the cap is shed and reported once through
 * `onDropped`: the owner must end the stream (`delivery_dropped`), since a
 * lost delivery cannot be detected from the ones after it. The `closed`
 * message does not count against the cap and is always delivered (except to
 * an actor that has already stopped).
 */
import type { ClosedReason } from '../../machines/closed-reason.ts';
import { McpActorsError } from '../protocol/errors.ts';
import type { SubscriberMessage, SubscriptionRef } from './messages.ts';

/** Default cap on deliveries in flight per stream or listener. */
export const DEFAULT_MAILBOX_CAP = 1024;

export type SubscriberCallback = (message: SubscriberMessage) => void | Promise<void>;

/** An xstate actor (any ActorRef accepting these events) the mailbox watches until it stops. */
export interface SubscriberActor {
  send: (event: SubscriberMessage) => void;
  getSnapshot: () => { status: string };
  subscribe(observer: { complete?: () => void; error?: (error: unknown) => void }): { unsubscribe(): void };
}

/** Who receives a stream's or listener's messages: a callback, `'iterator'` (the stream is async-iterable), or an xstate actor. */
/** Who receives a stream's or a listener's messages: a callback or an xstate actor (omit it to iterate instead). */
export type Subscriber = SubscriberCallback | SubscriberActor;

/** Where a mailbox delivers: a subscriber, or the stream's own async iterator (`'iterator'`, internal). */
export type DeliveryTarget = Subscriber | 'iterator';

/** Whether the argument after a filter is a subscriber (a callback or an actor) rather than options. */
export function isSubscriber(value: unknown): value is Subscriber {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<SubscriberActor>;
  return typeof candidate.send === 'function' && typeof candidate.getSnapshot === 'function';
}

/** The mailbox shed a delivery at its cap; the iterator throws this after yielding what it had. */
export class DeliveryDroppedError extends McpActorsError {
  override readonly name = 'DeliveryDroppedError';
  readonly code = 'delivery_dropped';
  constructor(/** The stream or listener that shed the delivery. */ readonly ref: SubscriptionRef, /** The mailbox cap that was reached. */ readonly cap: number) {
    super(`${ref.kind} ${String(ref.id)} shed a delivery at its mailbox cap of ${cap}`);
  }
}

/** A subscriber callback threw or its promise rejected; the stream goes on. */
export class SubscriberCallbackError extends McpActorsError {
  override readonly name = 'SubscriberCallbackError';
  readonly code = 'subscriber_callback_failed';
  constructor(/** The stream or listener whose subscriber failed. */ readonly ref: SubscriptionRef, /** The type of the message the callback failed on. */ readonly messageType: SubscriberMessage['type'], options: { cause: unknown }) {
    super(`the subscriber of ${ref.kind} ${String(ref.id)} failed on a ${messageType} message`, options);
  }
}

/** Default report for a failing callback: a process warning, never silence. */
export const warnSubscriberError = (error: SubscriberCallbackError): void => {
  process.emitWarning(error);
};

export interface MailboxOptions {
  ref: SubscriptionRef;
  cap?: number;
  /** Called once, on the first shed delivery. */
  onDropped: (cap: number) => void;
  /** The subscriber went away (its actor stopped, its iterator was abandoned). */
  onSubscriberStopped: () => void;
  onSubscriberError?: (error: SubscriberCallbackError) => void;
}

export interface Mailbox {
  /** Delivers a `notification` or `reconnected` message; false when it was shed or the mailbox is closed. */
  push(message: SubscriberMessage): boolean;
  /** Delivers the `closed` message once; later pushes and closes are ignored. */
  close(reason: ClosedReason): void;
  /** Present when the subscriber is `'iterator'`. Single consumer. */
  readonly iterator: AsyncIterator<SubscriberMessage> | undefined;
}

export function createMailbox(subscriber: DeliveryTarget, options: MailboxOptions): Mailbox {
  const cap = options.cap ?? DEFAULT_MAILBOX_CAP;
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`mailbox cap must be a positive integer, got ${cap}`);
  if (subscriber === 'iterator') return new IteratorMailbox(options, cap);
  if (typeof subscriber === 'function') return new CallbackMailbox(subscriber, options, cap);
  return new ActorMailbox(subscriber, options);
}

class CallbackMailbox implements Mailbox {
  readonly iterator = undefined;
  private inFlight = 0;
  private phase: 'open' | 'shed' | 'closed' = 'open';
  private readonly report: (error: SubscriberCallbackError) => void;
  /** Made on the first async delivery: a stream whose callback never returns a promise keeps no closure for it. */
  private settle: (() => void) | undefined;

  constructor(private readonly callback: SubscriberCallback, private readonly options: MailboxOptions, private readonly cap: number) {
    this.report = options.onSubscriberError ?? warnSubscriberError;
  }

  push(message: SubscriberMessage): boolean {
    if (this.phase !== 'open') return false;
    if (this.inFlight >= this.cap) {
      this.phase = 'shed';
      this.options.onDropped(this.cap);
      return false;
    }
    this.deliver(message);
    return true;
  }

  close(reason: ClosedReason): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.deliver({ type: 'closed', ref: this.options.ref, reason });
  }

  private deliver(message: SubscriberMessage): void {
    let result: void | Promise<void>;
    try {
      result = this.callback(message);
    } catch (cause) {
      this.fail(cause, message);
      return;
    }
    if (result !== undefined && typeof result.then === 'function') {
      this.inFlight += 1;
      const settle = (this.settle ??= () => {
        this.inFlight -= 1;
      });
      result.then(settle, (cause: unknown) => {
        settle();
        this.fail(cause, message);
      });
    }
  }

  private fail(cause: unknown, message: SubscriberMessage): void {
    this.report(new SubscriberCallbackError(this.options.ref, message.type, { cause }));
  }
}

class ActorMailbox implements Mailbox {
  readonly iterator = undefined;
  private closed = false;
  private readonly watch: { unsubscribe(): void };

  constructor(private readonly actor: SubscriberActor, private readonly options: MailboxOptions) {
    const stopped = (): void => {
      if (!this.closed) this.options.onSubscriberStopped();
    };
    this.watch = actor.subscribe({ complete: stopped, error: stopped });
  }

  push(message: SubscriberMessage): boolean {
    if (this.closed) return false;
    this.actor.send(message);
    return true;
  }

  close(reason: ClosedReason): void {
    if (this.closed) return;
    this.closed = true;
    this.watch.unsubscribe();
    if (this.actor.getSnapshot().status === 'active') this.actor.send({ type: 'closed', ref: this.options.ref, reason });
  }
}

type Pull = { resolve: (result: IteratorResult<SubscriberMessage>) => void; reject: (error: unknown) => void };

class IteratorMailbox implements Mailbox, AsyncIterator<SubscriberMessage> {
  readonly iterator: AsyncIterator<SubscriberMessage> = this;
  private queue: SubscriberMessage[] = [];
  private head = 0;
  private waiting: Pull | undefined;
  /** open → closed (closed message queued) → finished (consumer saw the end or left). */
  private phase: 'open' | 'shedding' | 'closed' | 'finished' = 'open';
  private failure: DeliveryDroppedError | undefined;

  constructor(private readonly options: MailboxOptions, private readonly cap: number) {}

  push(message: SubscriberMessage): boolean {
    if (this.phase !== 'open') return false;
    if (this.waiting) {
      const pull = this.waiting;
      this.waiting = undefined;
      pull.resolve({ value: message, done: false });
      return true;
    }
    if (this.queue.length - this.head >= this.cap) {
      this.phase = 'shedding';
      this.failure = new DeliveryDroppedError(this.options.ref, this.cap);
      this.options.onDropped(this.cap);
      return false;
    }
    this.queue.push(message);
    return true;
  }

  close(reason: ClosedReason): void {
    if (this.phase === 'closed' || this.phase === 'finished') return;
    this.phase = 'closed';
    const message: SubscriberMessage = { type: 'closed', ref: this.options.ref, reason };
    if (this.waiting) {
      const pull = this.waiting;
      this.waiting = undefined;
      pull.resolve({ value: message, done: false });
    } else {
      this.queue.push(message);
    }
  }

  next(): Promise<IteratorResult<SubscriberMessage>> {
    if (this.head < this.queue.length) return Promise.resolve({ value: this.take(), done: false });
    if (this.phase === 'closed' || this.phase === 'finished') {
      this.phase = 'finished';
      const failure = this.failure;
      this.failure = undefined;
      return failure ? Promise.reject(failure) : Promise.resolve({ value: undefined, done: true });
    }
    if (this.waiting) return Promise.reject(new TypeError('the stream iterator has a single consumer'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The consumer left the loop (break, return, throw): the stream closes as `local`. */
  return(): Promise<IteratorResult<SubscriberMessage>> {
    const wasLive = this.phase === 'open' || this.phase === 'shedding';
    this.phase = 'finished';
    this.queue = [];
    this.head = 0;
    this.failure = undefined;
    if (wasLive) this.options.onSubscriberStopped();
    return Promise.resolve({ value: undefined, done: true });
  }

  private take(): SubscriberMessage {
    const message = this.queue[this.head] as SubscriberMessage;
    this.head += 1;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return message;
  }
}

/**
 * Legacy-era notification listeners: the registry behind
 * `client.subscribeNotifications`. One listener actor per listener
 * (machines/listener.machine.ts) and one URI worker per client
 * (machines/uri-worker.machine.ts); this module is their I/O bridge.
 *
 * The client calls `dispatch` for every legacy change notification. The
 * connection owns the worker and every listener actor (they join its actor
 * system and are adopted as its children), and its machine sends them the
 * connection's lifecycle events itself. The filter is authoritative: a notification reaches a listener only when `filterAllows`
 * says so, and each matching listener gets its own copy.
 *
 * Direct `resources/subscribe` / `resources/unsubscribe` calls bypass this
 * registry and are not refcounted with it: the server keeps one subscription
 * per URI per session, so an explicit unsubscribe also silences listeners on
 * that URI.
 */
import { createActor, fromPromise, type ActorRefFrom, type AnyActorRef } from 'xstate';
import type { ClosedReason } from '../../machines/closed-reason.ts';
import { memberId, URI_WORKER_ID } from '../../machines/connection-children.ts';
import { listenerMachine, type ListenerEmitted, type ListenerOutput } from '../../machines/listener.machine.ts';
import { uriWorkerMachine, type UriWorkerEmitted, type WireOp } from '../../machines/uri-worker.machine.ts';
import { NotConnectedError, RequestAbortedError, WrongEraError } from '../protocol/errors.ts';
import { filterAllows, validateFilter, type NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { ListenerClosedError, ListenerNotFoundError, SubscribeFailedError } from './listener-errors.ts';
import { createMailbox, type Mailbox, type SubscriberCallbackError, type DeliveryTarget } from './mailbox.ts';
import type { SubscriberMessage, SubscriptionRef } from './messages.ts';
import type { Inspector } from '../runtime/actor-options.ts';
import type { ChildOwner, RequestPort } from './ports.ts';

export { ListenerClosedError, ListenerNotFoundError, SubscribeFailedError } from './listener-errors.ts';
export type { Subscriber, SubscriberActor, SubscriberCallback } from './mailbox.ts';

/** What `subscribeNotifications` resolves with; pass it to `unsubscribeNotifications`. */
export interface ListenerRef extends SubscriptionRef {
  readonly kind: 'listener';
  readonly id: string;
  /** The validated filter this listener delivers by. */
  readonly filter: NotificationFilter;
  /** Unsubscribes the listener (as `unsubscribeNotifications`); nothing if it is already gone: `await using listener = …`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `subscribeNotifications(filter)` (no subscriber) resolves with: the reference, iterable for its messages. */
export type IterableListenerRef = ListenerRef & AsyncIterable<SubscriberMessage>;

/** A listener that ended meanwhile has nothing left to dispose of. */
const ignoreGone = (error: unknown): void => {
  if (!(error instanceof ListenerNotFoundError)) throw error;
};

export interface SubscribeNotificationsOptions {
  /**
   * Aborting removes the listener like `unsubscribeNotifications` (its
   * subscriber receives `closed` with reason `local`), or withdraws a pending
   * registration, which rejects with RequestAbortedError.
   */
  signal?: AbortSignal;
}

export interface NotificationListenersOptions {
  /** Most deliveries in flight per listener (see mailbox.ts); past it the listener closes with `delivery_dropped`. */
  mailboxCap?: number;
  /** Where a throwing subscriber callback is reported; a process warning by default. */
  onSubscriberError?: (error: SubscriberCallbackError) => void;
  /**
   * The connection's current generation when the registry is created after the
   * connection became ready; leave it out when the worker hears that
   * `connection.ready` itself (registrations then wait for it).
   */
  generation?: number;
  /** Passed to the worker and every listener actor when the owner is no actor (with one, they are in its system and its inspector sees them). */
  inspect?: Inspector;
}

/** The URI bookkeeping of the worker, for diagnostics and tests. */
export interface UriSubscriptionState {
  /** Held URI → ids of the listeners holding it. */
  holders: Record<string, string[]>;
  /** Held URIs with no subscription in the current server session. */
  lost: string[];
}

interface Entry {
  ref: ListenerRef;
  actor: ActorRefFrom<typeof listenerMachine>;
  mailbox: Mailbox;
  registration: { resolve(ref: ListenerRef): void; reject(error: unknown): void };
  signal: AbortSignal | undefined;
  stopWatchingSignal(): void;
}

/** The registry's connection: its requests, and the owner of the worker and the listener actors. */
export type ListenerConnection = RequestPort & ChildOwner;

export class NotificationListeners {
  readonly #port: ListenerConnection;
  readonly #options: NotificationListenersOptions;
  readonly #entries = new Map<string, Entry>();
  /** Listener id → callers of `unsubscribeNotifications` waiting for its URIs to be released. */
  readonly #releasing = new Map<string, (() => void)[]>();
  readonly #worker;
  #nextId = 1;
  #closedReason: ClosedReason | undefined;

  constructor(port: ListenerConnection, options: NotificationListenersOptions = {}) {
    this.#port = port;
    this.#options = options;
    const wire = fromPromise<void, WireOp>(async ({ input }) => {
      await port.request(input.op === 'subscribe' ? 'resources/subscribe' : 'resources/unsubscribe', { uri: input.uri });
    });
    this.#worker = createActor(uriWorkerMachine.provide({ actors: { wire } }), {
      input: { generation: options.generation },
      ...this.#actorOptions(),
    });
    this.#worker.on('*', (event) => this.#onWorker(event));
    // The worker hears the connection close first (machines/connection-children.ts): from then on nothing is released or registered.
    this.#worker.subscribe({ complete: () => this.#onClosed(this.#worker.getSnapshot().output ?? { type: 'local' }) });
    port.adopt(this.#worker, URI_WORKER_ID);
    this.#worker.start();
  }

  /** The connection actor's system when the owner is one (a child's inspection and `_parent`), else the inspector option. */
  #actorOptions(): { parent: AnyActorRef } | { inspect?: Inspector } {
    const parent = this.#port.parent;
    if (parent) return { parent };
    return this.#options.inspect ? { inspect: this.#options.inspect } : {};
  }

  /** The generation the worker's subscriptions belong to: it hears every `connection.ready`. */
  get #generation(): number | undefined {
    return this.#worker.getSnapshot().context.generation;
  }

  /**
   * Registers a listener; resolves once every URI in the filter is subscribed
   * on the server. With `'iterator'` (the client's call without a subscriber) the reference is also the async iterable
   * of its messages, ending after `closed`.
   */
  subscribeNotifications(filter: unknown, subscriber: 'iterator', options?: SubscribeNotificationsOptions): Promise<IterableListenerRef>;
  subscribeNotifications(filter: unknown, subscriber: DeliveryTarget, options?: SubscribeNotificationsOptions): Promise<ListenerRef>;
  subscribeNotifications(filter: unknown, subscriber: DeliveryTarget, options: SubscribeNotificationsOptions = {}): Promise<ListenerRef> {
    if (this.#closedReason) return Promise.reject(new ListenerClosedError(this.#closedReason));
    const era = this.#port.era;
    if (era === 'modern') return Promise.reject(new WrongEraError('modern', 'subscribeNotifications'));
    if (era === undefined) return Promise.reject(new NotConnectedError('not connected', 'subscribeNotifications'));
    let validated: NotificationFilter;
    try {
      validated = validateFilter(filter, { allowTaskIds: false });
    } catch (error) {
      return Promise.reject(error);
    }
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new RequestAbortedError('subscribeNotifications', { cause: signal.reason }));

    const id = `listener-${this.#nextId++}`;
    const uris = validated.resourceSubscriptions ?? [];
    return new Promise<ListenerRef>((resolve, reject) => {
      const actor = createActor(listenerMachine, { id, input: { id, uris, generation: this.#generation }, ...this.#actorOptions() });
      const plainRef: ListenerRef = {
        kind: 'listener',
        id,
        filter: validated,
        [Symbol.asyncDispose]: () => this.unsubscribeNotifications({ id }).catch(ignoreGone),
      };
      const ref: ListenerRef = Object.freeze(
        subscriber === 'iterator' ? { ...plainRef, [Symbol.asyncIterator]: () => mailbox.iterator! } : plainRef,
      );
      // Events from the subscriber's side reach the listener only while it is this registry's.
      const tell = (event: Parameters<typeof actor.send>[0]) => {
        if (this.#entries.get(id)?.actor === actor) actor.send(event);
      };
      const mailbox = createMailbox(subscriber, {
        ref,
        cap: this.#options.mailboxCap,
        onDropped: (cap) => tell({ type: 'delivery.dropped', cap }),
        onSubscriberStopped: () => tell({ type: 'subscriber.stopped' }),
        onSubscriberError: this.#options.onSubscriberError,
      });
      const onAbort = () => tell({ type: 'close' });
      signal?.addEventListener('abort', onAbort, { once: true });
      const entry: Entry = {
        ref,
        actor,
        mailbox,
        registration: { resolve, reject },
        signal,
        stopWatchingSignal: () => signal?.removeEventListener('abort', onAbort),
      };
      this.#entries.set(id, entry);
      actor.on('*', (event) => this.#deliver(entry, event));
      actor.subscribe({ complete: () => this.#onListenerDone(entry) });
      this.#port.adopt(actor, memberId(id));
      actor.start();
      this.#worker.send({ type: 'uris.acquire', listenerId: id, uris });
      if (typeof subscriber === 'object' && subscriber.getSnapshot().status !== 'active') tell({ type: 'subscriber.stopped' });
    });
  }

  /** Removes a listener (its subscriber receives `closed` with reason `local`); resolves once its URIs are released. */
  unsubscribeNotifications(ref: Pick<ListenerRef, 'id'>): Promise<void> {
    const entry = this.#entries.get(String(ref.id));
    if (!entry || entry.actor.getSnapshot().value === 'registering') return Promise.reject(new ListenerNotFoundError(ref.id));
    const released = new Promise<void>((resolve) => this.#releasing.set(entry.ref.id, [...(this.#releasing.get(entry.ref.id) ?? []), resolve]));
    entry.actor.send({ type: 'close' });
    return released;
  }

  /** Called by the client for every legacy change notification; each listener it selects gets its own copy of the params. */
  dispatch(method: string, params: JsonObject | undefined): void {
    const payload = params ?? {};
    const selected = [...this.#entries.values()].filter((entry) => filterAllows(entry.ref.filter, method, payload));
    // Copies are taken before anyone sees the params (a subscriber may change them as it receives them); the last gets the parsed object.
    const last = selected.length - 1;
    selected.forEach((entry, index) => entry.actor.send({ type: 'notification.received', method, params: index === last ? payload : structuredClone(payload) }));
  }

  /** The connection closed (the worker ended first): every listener is closing with `reason`; later registrations are refused. */
  #onClosed(reason: ClosedReason): void {
    this.#closedReason = reason;
    for (const waiting of this.#releasing.values()) for (const resolve of waiting) resolve();
    this.#releasing.clear();
  }

  /** The worker's URI bookkeeping right now. */
  uriState(): UriSubscriptionState {
    const { holders, lost } = this.#worker.getSnapshot().context;
    return { holders: structuredClone(holders), lost: [...lost] };
  }

  #broadcast(event: Parameters<Entry['actor']['send']>[0]): void {
    for (const entry of [...this.#entries.values()]) entry.actor.send(event);
  }

  #deliver({ ref, mailbox }: Entry, event: ListenerEmitted): void {
    switch (event.type) {
      case 'deliver.notification':
        mailbox.push({ type: 'notification', ref, method: event.method, params: event.params });
        break;
      case 'deliver.reconnected':
        mailbox.push({ type: 'reconnected', ref, report: event.report });
        break;
      case 'deliver.closed':
        mailbox.close(event.reason);
        break;
    }
  }

  #onWorker(event: UriWorkerEmitted): void {
    switch (event.type) {
      case 'acquire.done': {
        const entry = this.#entries.get(event.listenerId);
        entry?.actor.send({ type: 'registration.done' });
        if (entry?.actor.getSnapshot().status === 'active') entry.registration.resolve(entry.ref);
        break;
      }
      case 'acquire.failed':
        this.#entries.get(event.listenerId)?.actor.send({ type: 'registration.failed', uri: event.uri, cause: event.cause });
        break;
      case 'release.done': {
        for (const resolve of this.#releasing.get(event.listenerId) ?? []) resolve();
        this.#releasing.delete(event.listenerId);
        break;
      }
      case 'resubscribe.done':
        this.#broadcast({ type: 'resubscribe.done', generation: event.generation, report: event.report });
        break;
      case 'acquire.cancelled':
        break; // the listener already ended itself; its release follows
    }
  }

  #onListenerDone(entry: Entry): void {
    const output = entry.actor.getSnapshot().output as ListenerOutput;
    this.#entries.delete(entry.ref.id);
    this.#port.release(entry.actor);
    entry.stopWatchingSignal();
    // A subscriber that left gets no `closed` message; the mailbox still stops watching it.
    if (output.type === 'closed') entry.mailbox.close(output.reason);
    if (output.type === 'rejected') entry.registration.reject(this.#rejectionError(entry, output.rejection));
    // A failed subscribe was already rolled back by the worker; every other end releases what the listener holds.
    if (!(output.type === 'rejected' && output.rejection.type === 'subscribe_failed') && !this.#closedReason) {
      this.#worker.send({ type: 'uris.release', listenerId: entry.ref.id });
    }
  }

  #rejectionError(entry: Entry, rejection: Extract<ListenerOutput, { type: 'rejected' }>['rejection']): Error {
    switch (rejection.type) {
      case 'subscribe_failed':
        return new SubscribeFailedError(rejection.uri, rejection.cause);
      case 'closed':
        return new ListenerClosedError(rejection.reason);
      case 'withdrawn':
        return entry.signal?.aborted
          ? new RequestAbortedError('subscribeNotifications', { cause: entry.signal.reason })
          : new ListenerClosedError({ type: 'local' });
    }
  }
}

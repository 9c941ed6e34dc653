/**
 * Actor logic a host's own xstate machine can `invoke` or `spawnChild`: a
 * modern listen stream, a legacy notification listener, and the change
 * cache. Each is `fromEventObservable` logic over the public client API, so
 * the actor lives in the host's actor system: its messages reach the parent
 * as events through the system (the Stately inspector shows the child under
 * the host and each delivery as an event from it), and stopping the child
 * (leaving the invoking state, `stopChild`) closes what it opened.
 *
 * A stream or listener child first sends `acknowledged` (with the filter
 * the server honored, or the listener's filter) once it is live, so a host
 * that fetches a list on it misses no change; then its SubscriberMessages.
 * The child completes (`onDone`) after its last message (`closed` for a
 * stream or listener, the cache's `completed` state); it errs (`onError`)
 * only when opening was refused before anything started: a filter that does
 * not validate, a wrong era, a client that is not connected.
 */
import { fromEventObservable, type Observer, type Subscribable, type Subscription } from 'xstate';
import { createChangeCache, type ChangeCacheOptions } from '../cache/change-cache.ts';
import type { CacheEvent } from '../cache/types.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { McpClient } from './client.ts';
import type { ListenerRef, SubscribeNotificationsOptions } from './listeners.ts';
import type { SubscriberMessage, SubscriptionRef } from './messages.ts';
import type { ListenOptions } from './subscription.ts';

/**
 * A source that pushes to one observer until it ends or is torn down.
 * `start` returns the teardown; `next`/`complete`/`error` after the end
 * or after the teardown are dropped, so a child stopped by its parent
 * sends it nothing more.
 */
function feed<T>(start: (observer: Required<Observer<T>>) => () => void): Subscribable<T> {
  const subscribe = (
    observerOrNext: Observer<T> | ((value: T) => void),
    error?: (error: unknown) => void,
    complete?: () => void,
  ): Subscription => {
    const target: Observer<T> = typeof observerOrNext === 'function' ? { next: observerOrNext, error, complete } : observerOrNext;
    let open = true;
    const teardown = start({
      next: (value) => {
        if (open) target.next?.(value);
      },
      error: (reason) => {
        if (!open) return;
        open = false;
        target.error?.(reason);
      },
      complete: () => {
        if (!open) return;
        open = false;
        target.complete?.();
      },
    });
    return {
      unsubscribe: () => {
        open = false;
        teardown();
      },
    };
  };
  return { subscribe };
}

/**
 * What a stream or listener child sends its parent: `acknowledged` once it is live (a stream's honored
 * filter; a listener's filter), then each SubscriberMessage until `closed`.
 */
export type SubscriptionEvent = { type: 'acknowledged'; ref: SubscriptionRef; filter: NotificationFilter } | SubscriberMessage;

/** Forwards a stream's or listener's messages and completes after `closed`. */
const forwardUntilClosed = (observer: Required<Observer<SubscriptionEvent>>) => (message: SubscriberMessage) => {
  observer.next(message);
  if (message.type === 'closed') observer.complete();
};

/** A stream or listener once opened, as the child needs it. */
interface Opened {
  ref: SubscriptionRef;
  /** Resolves with the filter in force once live; never resolves for a refusal (the `closed` message says it). */
  live: Promise<NotificationFilter>;
  close(): void;
}

/** One subscription's events: `acknowledged` once live, its messages until `closed`; the teardown closes it. */
const subscriptionFeed = (open: (deliver: (message: SubscriberMessage) => void) => Promise<Opened>): Subscribable<SubscriptionEvent> =>
  feed((observer) => {
    let opened: Opened | undefined;
    let stopped = false;
    open(forwardUntilClosed(observer)).then(
      (handle) => {
        opened = handle;
        if (stopped) return handle.close();
        void handle.live.then((filter) => observer.next({ type: 'acknowledged', ref: handle.ref, filter }));
      },
      (error: unknown) => observer.error(error),
    );
    return () => {
      stopped = true;
      opened?.close();
    };
  });

/** Input of `listenLogic`. */
export interface ListenLogicInput {
  /** A connected client in the modern era. */
  client: McpClient;
  /** What the stream asks for, as `listen` takes it. */
  filter: NotificationFilter;
  /** The stream's options, as `listen` takes them. */
  options?: ListenOptions;
}

/**
 * A modern listen stream as a child actor: every SubscriberMessage of the
 * stream (`notification`, `reconnected`, `closed`) is sent to the parent as
 * an event; stopping the child closes the stream (reason `local`).
 */
export const listenLogic = fromEventObservable<SubscriptionEvent, ListenLogicInput>(({ input }) =>
  subscriptionFeed(async (deliver) => {
    const stream = await input.client.listen(input.filter, deliver, input.options);
    return {
      ref: stream.ref,
      // A refused acknowledgment arrives as the `closed` message: `live` then never resolves.
      live: stream.acknowledged.then(() => stream.honoredFilter ?? stream.requestedFilter, () => new Promise<never>(() => undefined)),
      close: () => stream.close(),
    };
  }),
);

/** Input of `listenerLogic`. */
export interface ListenerLogicInput {
  /** A connected client in the legacy era. */
  client: McpClient;
  /** The listener's filter, as `subscribeNotifications` takes it. */
  filter: NotificationFilter;
  /** The listener's options, as `subscribeNotifications` takes them. */
  options?: SubscribeNotificationsOptions;
}

/**
 * A legacy notification listener as a child actor: its SubscriberMessages go
 * to the parent as events; stopping the child unsubscribes it (reason `local`).
 */
export const listenerLogic = fromEventObservable<SubscriptionEvent, ListenerLogicInput>(({ input }) =>
  subscriptionFeed(async (deliver) => {
    const listener: ListenerRef = await input.client.subscribeNotifications(input.filter, deliver, input.options);
    return {
      ref: listener,
      live: Promise.resolve(listener.filter),
      close: () => void input.client.unsubscribeNotifications(listener).catch(() => undefined),
    };
  }),
);

/** Input of `changeCacheLogic`: the client and the cache's options. */
export interface ChangeCacheLogicInput extends ChangeCacheOptions {
  /** The client whose server the cache keeps current. */
  client: McpClient;
}

/**
 * The change cache as a child actor: every CacheEvent (`state`,
 * `notification`, `invalidated`, `refetching`, `replaced`,
 * `refetch_failed`) is sent to the parent as an event, so a host keeps its
 * own copy from `replaced`; the child completes when the cache reaches
 * `completed` or `closed` (the client closed), and stopping it closes the cache.
 */
export const changeCacheLogic = fromEventObservable<CacheEvent, ChangeCacheLogicInput>(({ input }) =>
  feed((observer) => {
    const { client, ...options } = input;
    const cache = createChangeCache(client, options);
    const unsubscribe = cache.subscribe((event) => {
      observer.next(event);
      if (event.type === 'state' && (event.state === 'completed' || event.state === 'closed')) observer.complete();
    });
    return () => {
      unsubscribe();
      void cache.close();
    };
  }),
);

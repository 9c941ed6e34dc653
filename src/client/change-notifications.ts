/**
 * The server's change notifications, as the client hands them out: modern
 * `subscriptions/listen` streams, and legacy notification listeners (the
 * registry of listeners.ts, fed every legacy notification the connection
 * routes). Each goes to a subscriber, or is itself async-iterable when none
 * is given. `McpClient` implements `ChangeNotifications` by handing each call
 * to `changeNotifications(…)`: the documentation lives on the interface, and
 * the client's methods show it (TypeScript and the README's API reference
 * take a member's TSDoc from the interface it implements).
 */
import { NotConnectedError } from '../protocol/errors.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { Connection } from './connection.ts';
import { NotificationListeners, type IterableListenerRef, type ListenerRef, type SubscribeNotificationsOptions } from './listeners.ts';
import { isSubscriber, type DeliveryTarget, type Subscriber } from './mailbox.ts';
import { openSubscription } from './open-subscription.ts';
import type { IterableListenStream, ListenOptions, ListenStream } from './subscription.ts';

/** Streams and listeners of the server's change notifications, as `McpClient` offers them. */
export interface ChangeNotifications {
  /**
   * Modern era: opens a `subscriptions/listen` stream owned by its own actor
   * and resolves once the server acknowledged it (the honored filter is on
   * the stream). Without a subscriber the stream is async-iterable (`for
   * await` its messages); with one (a callback, or an xstate actor that
   * receives them as events) the messages go there. On a legacy connection it
   * rejects with WrongEraError: use `subscribeNotifications`.
   */
  listen(filter: NotificationFilter, subscriber: Subscriber, options?: ListenOptions): Promise<ListenStream>;
  listen(filter: NotificationFilter, options?: ListenOptions): Promise<IterableListenStream>;

  /**
   * Legacy era: registers a notification listener whose filter decides what
   * its subscriber receives; resolves once every URI it names is subscribed.
   * Without a subscriber the reference is async-iterable, as a listen stream
   * is. On a modern connection it rejects with WrongEraError: use `listen`.
   */
  subscribeNotifications(filter: NotificationFilter, subscriber: Subscriber, options?: SubscribeNotificationsOptions): Promise<ListenerRef>;
  subscribeNotifications(filter: NotificationFilter, options?: SubscribeNotificationsOptions): Promise<IterableListenerRef>;

  /** Removes a listener and releases the URIs it acquired; an unknown reference rejects with ListenerNotFoundError. */
  unsubscribeNotifications(ref: Pick<ListenerRef, 'id'>): Promise<void>;
}

/**
 * `ChangeNotifications` with one signature a call (a subscriber or the
 * options second): what the overloads of `McpClient` hand on.
 */
export interface ChangeNotificationCalls {
  listen(filter: NotificationFilter, second?: Subscriber | ListenOptions, third?: ListenOptions): Promise<ListenStream>;
  subscribeNotifications(filter: NotificationFilter, second?: Subscriber | SubscribeNotificationsOptions, third?: SubscribeNotificationsOptions): Promise<ListenerRef>;
  unsubscribeNotifications(ref: Pick<ListenerRef, 'id'>): Promise<void>;
}

/**
 * Streams and listeners on `connection`, whose actor has started (the
 * listeners' URI worker is adopted as its child at once); `options.mailboxCap`
 * is each one's most deliveries in flight.
 */
export function changeNotifications(connection: Connection, options: { readonly mailboxCap?: number | undefined }): ChangeNotificationCalls {
  const listeners = new NotificationListeners(connection, {
    ...(options.mailboxCap !== undefined ? { mailboxCap: options.mailboxCap } : {}),
  });
  connection.router.onNotification('*', (params, method) => {
    if (connection.era === 'legacy') listeners.dispatch(method, params);
  });

  /** Opening a stream or a listener is a request: while not connected it fails fast, as requests do. */
  const assertReady = (operation: string): void => {
    if (!connection.ready) throw new NotConnectedError(connection.stateName(), operation);
  };

  return {
    async listen(filter, second, third) {
      assertReady('subscriptions/listen');
      const [target, listenOptions] = deliveryOf(second, third);
      const mailboxCap = options.mailboxCap;
      return openSubscription(connection, filter, target, { ...(mailboxCap !== undefined ? { mailboxCap } : {}), ...listenOptions });
    },
    async subscribeNotifications(filter, second, third) {
      assertReady('subscribeNotifications');
      const [target, listenerOptions] = deliveryOf(second, third);
      return listeners.subscribeNotifications(filter, target, listenerOptions);
    },
    unsubscribeNotifications: (ref) => listeners.unsubscribeNotifications(ref),
  };
}

/** The argument after a filter is a subscriber or the options: no subscriber means the stream is iterated. */
function deliveryOf<O extends object>(second: Subscriber | O | undefined, third: O | undefined): [DeliveryTarget, O | undefined] {
  return isSubscriber(second) ? [second, third] : ['iterator', second];
}

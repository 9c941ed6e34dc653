/**
 * Where one listener's messages go, and how the registry learns that the
 * subscriber went away. The registry depends only on `OpenSink`; this module
 * gives the callback and xstate-actor subscribers until the shared mailbox
 * (src/client/mailbox.ts) takes over.
 */
import type { AnyActorRef } from 'xstate';
import type { SubscriberMessage } from './messages.ts';

export interface ListenerSink {
  deliver(message: SubscriberMessage): void;
  /** Stops watching the subscriber; nothing is delivered afterwards. */
  close(): void;
}

export interface SinkEvents {
  /** The subscriber is gone (actor stopped, iterator ended): remove the listener. */
  exited(): void;
  /** A delivery was shed at the mailbox cap: close the listener with `delivery_dropped`. */
  dropped(cap: number): void;
}

export type NotificationCallback = (message: SubscriberMessage) => void;
export type Subscriber = NotificationCallback | AnyActorRef;

export type OpenSink = (subscriber: Subscriber, events: SinkEvents) => ListenerSink;

const isActor = (subscriber: Subscriber): subscriber is AnyActorRef => typeof subscriber !== 'function';

export const openSink: OpenSink = (subscriber, events) => {
  if (!isActor(subscriber)) return { deliver: subscriber, close: () => {} };
  let open = true;
  const exited = () => {
    if (!open) return;
    open = false;
    events.exited();
  };
  const watch = subscriber.subscribe({ complete: exited, error: exited });
  if (subscriber.getSnapshot().status !== 'active') queueMicrotask(exited);
  return {
    deliver: (message) => {
      if (open) subscriber.send(message);
    },
    close: () => {
      open = false;
      watch.unsubscribe();
    },
  };
};

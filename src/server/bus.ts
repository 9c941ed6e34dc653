/**
 * Change events travel from `notify*()` to the streams through a bus, so a
 * change published on one server node reaches streams held by another node
 * sharing the bus. The default bus is in-process and synchronous; a networked
 * bus (`mcp-actors/redis`) implements the same methods, and `settled` too.
 */

/** One change a stream or session can be told about. */
export type ConcreteChange =
  | { type: 'tools_list_changed' }
  | { type: 'prompts_list_changed' }
  | { type: 'resources_list_changed' }
  | { type: 'resource_updated'; uri: string };

/**
 * A change event on the bus. `everything_changed` is what a node says when it
 * cannot prove it saw every event: every stream and session gets each list
 * change it may receive and a `resources/updated` for every URI it follows.
 */
export type ChangeEvent = ConcreteChange | { type: 'everything_changed' };

/** How an event reached this node; a bus that omits it delivers local events. */
export interface ChangeDelivery {
  /** Published by another node (or a resync standing in for what others published): the server runs `onRemoteChange` first. */
  remote: boolean;
}

/**
 * Applies one event on a subscriber's node. It returns a promise when applying
 * finishes later (the server awaits `onRemoteChange` first); a bus with
 * `settled` counts the event applied once that promise settles.
 */
export type ChangeHandler = (event: ChangeEvent, delivery?: ChangeDelivery) => void | Promise<void>;

/** What carries change events between the servers sharing it, each subscriber getting every event once, in one order. */
export interface ChangeBus {
  /** Sends a change event to every subscriber on every node sharing the bus, this node's included. */
  publish(event: ChangeEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(handler: ChangeHandler): () => void;
  /**
   * The read barrier (read-your-writes across nodes): resolves once every
   * event published to the bus, on any node, before the call has been applied
   * on this node, the handlers' promises (so `onRemoteChange`) settled. The
   * server awaits it before answering the reads a notification tells clients
   * to repeat, so a refetch landing on a node that has not read the event yet
   * waits for it instead of answering from the old catalog. It never rejects.
   * A bus that delivers synchronously (the in-process one) needs none.
   */
  settled?(): Promise<void>;
}

/** The default bus: synchronous, for the servers of one process that are given the same instance. */
export function createInProcessBus(): ChangeBus {
  const handlers = new Set<ChangeHandler>();
  return {
    publish(event) {
      for (const handler of handlers) handler(event);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
}

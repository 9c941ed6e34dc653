/**
 * Change events travel from `notify*()` to the streams through a bus, so a
 * change published on one server node reaches streams held by another node
 * sharing the bus. The default bus is in-process and synchronous; a networked
 * bus (`mcp-actors/redis`) implements the same two methods.
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

/** What carries change events between the servers sharing it, each subscriber getting every event once, in one order. */
export interface ChangeBus {
  publish(event: ChangeEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(handler: (event: ChangeEvent, delivery?: ChangeDelivery) => void): () => void;
}

/** The default bus: synchronous, for the servers of one process that are given the same instance. */
export function createInProcessBus(): ChangeBus {
  const handlers = new Set<(event: ChangeEvent) => void>();
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

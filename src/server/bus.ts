/**
 * Change events travel from `notify*()` to the streams through a bus, so a
 * change published on one server node reaches streams held by another node
 * sharing the bus. The default bus is in-process and synchronous; a networked
 * bus implements the same two methods.
 */
export type ChangeEvent =
  | { type: 'tools_list_changed' }
  | { type: 'prompts_list_changed' }
  | { type: 'resources_list_changed' }
  | { type: 'resource_updated'; uri: string };

export interface ChangeBus {
  publish(event: ChangeEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(handler: (event: ChangeEvent) => void): () => void;
}

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

import type { AnyActorRef } from 'xstate';
import { audience } from '../../machines/connection-children.ts';
import type { ConnectionLifecycleEvent } from '../../machines/connection-lifecycle.ts';
import type { ChildOwner } from '../../src/client/ports.ts';

/**
 * Plays the connection actor's part for unit tests of streams and listeners
 * with no connection: it keeps the children the code under test adopts, by
 * system id as the connection's system does, and tells them a lifecycle
 * event in the order the connection machine does (the machine's own
 * `audience`). The real ownership is tested through the client
 * (test/client/ownership.test.ts) and in the machine
 * (test/machines/connection-children.test.ts).
 */
export class AnnouncingOwner implements ChildOwner {
  readonly parent: AnyActorRef | undefined = undefined;
  readonly #children = new Map<string, AnyActorRef>();

  adopt(child: AnyActorRef, systemId: string): void {
    this.#children.set(systemId, child);
  }

  release(child: AnyActorRef): void {
    for (const [id, registered] of this.#children) if (registered === child) this.#children.delete(id);
  }

  /** What the connection machine's `announce` sends its children. */
  announce(event: ConnectionLifecycleEvent): void {
    for (const child of audience(Object.fromEntries(this.#children), event.type)) child.send(event);
  }
}

import type { AnyActorRef } from 'xstate';
import { audience, childrenAfter, NO_CHILDREN, type ChildRole, type ConnectionChildren } from '../../machines/connection-children.ts';
import type { ConnectionLifecycleEvent } from '../../machines/connection-lifecycle.ts';
import type { ChildOwner } from '../../src/client/ports.ts';

/**
 * Plays the connection actor's part for unit tests of streams and listeners
 * with no connection: it keeps the children the code under test adopts and
 * tells them a lifecycle event in the order the connection machine does
 * (the machine's own `audience`). The real ownership is tested through the
 * client (test/client/ownership.test.ts).
 */
export class AnnouncingOwner implements ChildOwner {
  readonly parent: AnyActorRef | undefined = undefined;
  #children: ConnectionChildren = NO_CHILDREN;

  adopt(child: AnyActorRef, role: ChildRole): void {
    this.#children = childrenAfter(this.#children, { type: 'child.adopt', child, role });
  }

  release(child: AnyActorRef): void {
    this.#children = childrenAfter(this.#children, { type: 'child.release', child });
  }

  /** What the connection machine's `announce` sends its children. */
  announce(event: ConnectionLifecycleEvent): void {
    for (const child of audience(this.#children, event.type)) child.send(event);
  }
}

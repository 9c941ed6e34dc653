/**
 * The actors a connection owns (DESIGN.md: the connection actor owns the
 * subscription actors, the listener actors and the URI worker) and who hears
 * which lifecycle event, in what order. The connection machine keeps these
 * refs in its context and sends each lifecycle event to them itself, with
 * `sendTo`, on the transition that announces it: no code in src/ forwards
 * lifecycle events by hand.
 *
 * A child is adopted when it starts and released when it ends (src/ reports
 * both as `child.adopt` / `child.release`); once the connection is closed
 * it has no children left to tell.
 */
import type { AnyActorRef } from 'xstate';

/**
 * What a child is to the connection: a `member` (a listen stream or a legacy
 * listener) or the client's one `uriWorker`.
 */
export type ChildRole = 'member' | 'uriWorker';

/** The connection's children, kept apart by role because the order they hear an event in depends on it. */
export interface ConnectionChildren {
  /** Streams and listeners, in the order they were adopted. */
  members: AnyActorRef[];
  uriWorker: AnyActorRef | undefined;
}

/** What src/ reports about the actors built on the connection. */
export type ChildEvent =
  /** An actor that must hear the connection's lifecycle started. */
  | { type: 'child.adopt'; child: AnyActorRef; role: ChildRole }
  /** It ended: it hears nothing more. */
  | { type: 'child.release'; child: AnyActorRef };

/** No children yet. */
export const NO_CHILDREN: ConnectionChildren = { members: [], uriWorker: undefined };

/** The children after `event`. */
export function childrenAfter(children: ConnectionChildren, event: ChildEvent): ConnectionChildren {
  if (event.type === 'child.adopt') {
    return event.role === 'uriWorker' ? { ...children, uriWorker: event.child } : { ...children, members: [...children.members, event.child] };
  }
  if (children.uriWorker === event.child) return { ...children, uriWorker: undefined };
  const index = children.members.indexOf(event.child);
  if (index < 0) return children;
  return { ...children, members: children.members.toSpliced(index, 1) };
}

/**
 * Who hears a lifecycle event of type `type`, in order. The URI worker hears
 * it first, except `connection.ready`: the listeners must be resubscribing
 * before the worker reports its resubscription (a worker holding no URI
 * reports at once), and on everything else the worker must have stopped
 * before listeners that close ask it to release their URIs.
 */
export function audience(children: ConnectionChildren, type: string): AnyActorRef[] {
  const worker = children.uriWorker ? [children.uriWorker] : [];
  return type === 'connection.ready' ? [...children.members, ...worker] : [...worker, ...children.members];
}

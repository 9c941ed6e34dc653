/**
 * The actors a connection owns (DESIGN.md: the connection actor owns the
 * subscription actors, the listener actors and the URI worker) and who hears
 * which lifecycle event, in what order.
 *
 * Each child is registered in the connection actor's system under a system
 * id that says its role (`uri-worker`, or `member:<id>` for a listen stream
 * or a legacy listener) for as long as it runs. The connection machine finds
 * them there (`system.getAll()`) and sends each lifecycle event to them
 * itself, with `sendTo`, on the transition that announces it: no code in
 * src/ forwards lifecycle events by hand. Registration costs no transition
 * of the connection actor (10,000 streams open in one burst; a transition
 * each was measured at ~70 µs, twice per stream).
 */
import type { AnyActorRef } from 'xstate';

/** The system id of the client's one URI worker. */
export const URI_WORKER_ID = 'uri-worker';

const MEMBER_PREFIX = 'member:';

/** The system id of a listen stream or a legacy listener, from an id unique on its connection. */
export const memberId = (id: string | number): string => `${MEMBER_PREFIX}${id}`;

/**
 * Who hears a lifecycle event of type `type`, in order, among the actors of
 * the connection's system. The URI worker hears it first, except
 * `connection.ready`: the listeners must be resubscribing before the worker
 * reports its resubscription (a worker holding no URI reports at once), and
 * on everything else the worker must have stopped before listeners that
 * close ask it to release their URIs. Children that already ended are left out,
 * and so are the members after an era change announced in the same step
 * (`membersEnding`): each stream and listener ends on leaving its era, but
 * the announcement reaches it only after this audience is chosen.
 */
export function audience(registered: Record<string, AnyActorRef>, type: string, options: { membersEnding?: boolean } = {}): AnyActorRef[] {
  // A child that reached its final state may stay registered until its owner releases it: it hears nothing more.
  const running = (actor: AnyActorRef) => actor.getSnapshot().status === 'active';
  const worker = registered[URI_WORKER_ID];
  // Members told of an era change in the same step end on it, once it reaches them: they hear nothing after it.
  const members = options.membersEnding
    ? []
    : Object.keys(registered).flatMap((id) => (id.startsWith(MEMBER_PREFIX) ? [registered[id]!] : [])).filter(running);
  if (!worker || !running(worker)) return members;
  return type === 'connection.ready' ? [...members, worker] : [worker, ...members];
}

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
 * The events the URI worker hears after the members. Its reaction to them can
 * end a listener (the rollback of a failed registration finishes at once when
 * the transport is lost, or a reconnect interrupts it, and the listener is
 * rejected), which must have heard the event by then: an audience is chosen
 * before anyone hears it, and nothing is sent to an actor that stopped. On
 * `connection.ready` the listeners must also be resubscribing before the worker
 * reports its resubscription (a worker holding no URI reports at once).
 */
const WORKER_LAST: ReadonlySet<string> = new Set(['connection.ready', 'connection.lost']);

/**
 * Who hears a lifecycle event of type `type`, in order, among the actors of
 * the connection's system. The URI worker hears `connection.ready` and
 * `connection.lost` last (`WORKER_LAST`) and everything else first: on an
 * era change or a close it must have stopped before listeners that close on
 * it ask it to release their URIs, and its reaction to those ends no
 * listener. Children that already ended are left out, and so are the members
 * after an era change announced in the same step (`membersEnding`): each
 * stream and listener ends on leaving its era, but the announcement reaches
 * it only after this audience is chosen.
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
  return WORKER_LAST.has(type) ? [...members, worker] : [worker, ...members];
}

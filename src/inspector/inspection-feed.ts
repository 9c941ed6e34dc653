/**
 * Turns xstate inspection events into the local inspector page's feed: one
 * message per fact (an actor appeared, its state changed, it received an
 * event, it stopped). Only state-machine actors are shown (callback and
 * promise actors have no statechart). It keeps each actor's latest view so a
 * page that opens late starts from the present, and nothing else: no
 * snapshot context (resource contents) ever leaves the process. An actor is
 * listed from its first snapshot, which carries its machine.
 */
import { StateMachine, type ActorRefLike, type AnyStateMachine, type InspectionEvent, type StateValue } from 'xstate';
import { activePaths, outlineOf, type MachineOutline } from './machine-outline.ts';

/** One message of the feed, sent to the page as a Server-Sent Event `data:` line. */
export type FeedMessage =
  | { type: 'actor'; session: string; name: string; machine: MachineOutline }
  | { type: 'state'; session: string; states: string[]; status: string }
  | { type: 'event'; session: string; event: string; at: number };

/** How many recent events each actor keeps for a page that opens late. */
export const RECENT_EVENTS = 20;
/** How many stopped actors stay listed, so a reconnect's replaced children remain visible for a while. */
const STOPPED_KEPT = 20;

interface ActorView {
  actor: Extract<FeedMessage, { type: 'actor' }>;
  state: Extract<FeedMessage, { type: 'state' }> | undefined;
  events: Extract<FeedMessage, { type: 'event' }>[];
}

/** The feed: `observe` is the inspector the client's actors report to; `present` and `subscribe` serve pages. */
export class InspectionFeed {
  readonly #actors = new Map<string, ActorView>();
  readonly #listeners = new Set<(message: FeedMessage) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The `inspect` observer handed to createClient. */
  readonly observe = (event: InspectionEvent): void => {
    if (event.type === '@xstate.snapshot') {
      const snapshot = event.snapshot as { value?: StateValue; status: string; machine?: unknown };
      // Machine snapshots carry their machine (public API); other actors' snapshots have no statechart to draw.
      if (snapshot.value === undefined || !(snapshot.machine instanceof StateMachine)) return;
      const view = this.#actors.get(event.actorRef.sessionId) ?? this.#appeared(event.actorRef, snapshot.machine);
      view.state = { type: 'state', session: view.actor.session, states: activePaths(snapshot.value), status: snapshot.status };
      this.#emit(view.state);
      if (snapshot.status !== 'active') this.#forgetOldStopped();
    } else if (event.type === '@xstate.event') {
      const view = this.#actors.get(event.actorRef.sessionId);
      if (!view) return;
      const message: FeedMessage = { type: 'event', session: view.actor.session, event: event.event.type, at: this.now() };
      view.events.push(message);
      if (view.events.length > RECENT_EVENTS) view.events.shift();
      this.#emit(message);
    }
  };

  /** Everything a new page needs to show the present: each actor, its latest state, its recent events. */
  present(): FeedMessage[] {
    return [...this.#actors.values()].flatMap((view) => [view.actor, ...(view.state ? [view.state] : []), ...view.events]);
  }

  /** Calls `listener` with every later message; returns the unsubscribe. */
  subscribe(listener: (message: FeedMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #appeared(actorRef: ActorRefLike, machine: AnyStateMachine): ActorView {
    // Spawned children are named by their id (`subscription-…`); a root actor's id is its session id, so its machine names it.
    const id = 'id' in actorRef && typeof actorRef.id === 'string' ? actorRef.id : actorRef.sessionId;
    const name = id === actorRef.sessionId ? machine.id : id;
    const view: ActorView = { actor: { type: 'actor', session: actorRef.sessionId, name, machine: outlineOf(machine) }, state: undefined, events: [] };
    this.#actors.set(actorRef.sessionId, view);
    this.#emit(view.actor);
    return view;
  }

  #forgetOldStopped(): void {
    const stopped = [...this.#actors.values()].filter((view) => view.state && view.state.status !== 'active');
    for (const view of stopped.slice(0, Math.max(0, stopped.length - STOPPED_KEPT))) this.#actors.delete(view.actor.session);
  }

  #emit(message: FeedMessage): void {
    for (const listener of this.#listeners) listener(message);
  }
}

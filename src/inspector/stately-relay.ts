/**
 * Turns xstate inspection events into the messages the Stately inspector
 * reads (the shapes `@statelyai/inspect` 0.7 sends: `@xstate.actor`,
 * `@xstate.snapshot`, `@xstate.event`), with everything that may carry
 * resource contents withheld: a snapshot keeps its state value and status,
 * its context becomes `{ withheld: 'context' }` (output and errors are
 * dropped), and an event keeps only its `type`. A machine's definition (its
 * config, the same states as diagrams/, minus its initial context) goes with
 * its actor's registration. It keeps each live actor's latest snapshot, so a
 * page that connects late gets a registration for every actor that exists,
 * in its present state.
 */
import { StateMachine, type ActorRefLike, type AnyStateMachine, type InspectionEvent, type StateValue } from 'xstate';

/** The `_version` the messages carry: the `@statelyai/inspect` release whose message shapes they follow. */
export const STATELY_PROTOCOL_VERSION = '0.7.2';

/** What a snapshot shows: its status and state value; context always withheld. */
export interface WithheldSnapshot {
  status: string;
  value?: StateValue;
  context: { withheld: 'context' };
}

interface StatelyBase {
  sessionId: string;
  rootId: string | undefined;
  /** Milliseconds since the epoch, as a string (as `@statelyai/inspect` sends it). */
  createdAt: string;
  id: string;
  _version: string;
}

/** One message of the relay, as the Stately inspector page reads it. */
export type StatelyMessage =
  | (StatelyBase & { type: '@xstate.actor'; name: string; definition: string | undefined; parentId: string | undefined; snapshot: WithheldSnapshot })
  | (StatelyBase & { type: '@xstate.snapshot'; snapshot: WithheldSnapshot; event: { type: string } })
  | (StatelyBase & { type: '@xstate.event'; event: { type: string }; sourceId: string | undefined });

interface KnownActor {
  registration: Extract<StatelyMessage, { type: '@xstate.actor' }>;
}

const WITHHELD = { withheld: 'context' } as const;

/** The relay: `observe` takes the client's inspection events; `present` and `subscribe` serve Stately pages. */
export class StatelyRelay {
  readonly #actors = new Map<string, KnownActor>();
  readonly #listeners = new Set<(message: StatelyMessage) => void>();
  readonly #definitions = new WeakMap<AnyStateMachine, string | undefined>();
  #sequence = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The `inspect` observer handed to createClient. */
  readonly observe = (event: InspectionEvent): void => {
    // An actor is registered at its first snapshot or event: at `@xstate.actor` its snapshot does not exist yet.
    if (event.type === '@xstate.snapshot') {
      const known = this.#known(event.actorRef, event.rootId);
      const snapshot = withheld(event.snapshot);
      known.registration = { ...known.registration, snapshot };
      this.#emit({ ...this.#base(event.actorRef.sessionId, event.rootId), type: '@xstate.snapshot', snapshot, event: { type: event.event.type } });
      if (snapshot.status !== 'active') this.#actors.delete(event.actorRef.sessionId);
    } else if (event.type === '@xstate.event') {
      this.#known(event.actorRef, event.rootId);
      this.#emit({ ...this.#base(event.actorRef.sessionId, event.rootId), type: '@xstate.event', event: { type: event.event.type }, sourceId: event.sourceRef?.sessionId });
    }
  };

  /** A registration for every live actor, in the order they appeared, each in its latest snapshot. */
  present(): StatelyMessage[] {
    return [...this.#actors.values()].map((known) => known.registration);
  }

  /** Calls `listener` with every later message; returns the unsubscribe. */
  subscribe(listener: (message: StatelyMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #known(actorRef: ActorRefLike, rootId: string): KnownActor {
    const existing = this.#actors.get(actorRef.sessionId);
    if (existing) return existing;
    const snapshot = actorRef.getSnapshot() as unknown;
    const machine = typeof snapshot === 'object' && snapshot !== null && 'machine' in snapshot && snapshot.machine instanceof StateMachine ? snapshot.machine : undefined;
    // Spawned children are named by their id (`subscription-…`); a root actor's id is its session id, so its machine names it.
    const id = 'id' in actorRef && typeof actorRef.id === 'string' ? actorRef.id : actorRef.sessionId;
    // `_parent` is declared on xstate's public ActorRef interface; it is how Stately nests children under their parent.
    const parent = '_parent' in actorRef && typeof actorRef._parent === 'object' && actorRef._parent !== null && 'sessionId' in actorRef._parent ? String(actorRef._parent.sessionId) : undefined;
    const known: KnownActor = {
      registration: {
        ...this.#base(actorRef.sessionId, rootId),
        type: '@xstate.actor',
        name: id === actorRef.sessionId && machine ? machine.id : id,
        definition: machine ? this.#definition(machine) : undefined,
        parentId: parent,
        snapshot: withheld(snapshot),
      },
    };
    this.#actors.set(actorRef.sessionId, known);
    this.#emit(known.registration);
    return known;
  }

  #definition(machine: AnyStateMachine): string | undefined {
    if (!this.#definitions.has(machine)) this.#definitions.set(machine, definitionOf(machine));
    return this.#definitions.get(machine);
  }

  #base(sessionId: string, rootId: string | undefined): StatelyBase {
    return { sessionId, rootId, createdAt: String(this.now()), id: String(++this.#sequence), _version: STATELY_PROTOCOL_VERSION };
  }

  #emit(message: StatelyMessage): void {
    for (const listener of this.#listeners) listener(message);
  }
}

/** A snapshot's status and state value; nothing else of it leaves the process. */
function withheld(snapshot: unknown): WithheldSnapshot {
  const view = (typeof snapshot === 'object' && snapshot !== null ? snapshot : {}) as { status?: unknown; value?: StateValue };
  return { status: typeof view.status === 'string' ? view.status : 'active', ...(view.value !== undefined ? { value: view.value } : {}), context: WITHHELD };
}

/** The machine's config as JSON, without its initial context; functions become `{ type: name }` as Stately expects. */
function definitionOf(machine: AnyStateMachine): string | undefined {
  const { context: _context, ...config } = machine.config as Record<string, unknown>;
  try {
    return JSON.stringify(config, (_key, value: unknown) => (typeof value === 'function' ? { type: value.name || 'anonymous' } : value));
  } catch {
    // A definition that cannot be serialised (a cycle) is left out; the page still shows states and events.
    return undefined;
  }
}

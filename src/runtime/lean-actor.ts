/**
 * An actor for machines that may run by the ten thousand: it runs a machine
 * from machines/ with xstate's own logic (`machine.getInitialSnapshot`,
 * `machine.transition`), so every state, guard, action, delayed transition
 * and emitted event means what it means under `createActor`, but without
 * xstate's actor object. That object costs ~1.9 KB per actor (its mailbox,
 * scope closures, bound methods, observer and listener sets, options copy)
 * before the snapshot; this one costs the snapshot and a few fields.
 *
 * What it does like an xstate actor: one event at a time (events sent while
 * one is processed wait in order), deferred actions and emitted events run
 * after the transition that produced them and before observers hear of it,
 * delayed events (`after`) on the given clock, cancelled when their state is
 * left or the machine is done, inspection events (`@xstate.actor`, `.event`,
 * `.snapshot`, `.microstep`, `.action`) to an `inspect` observer, so the
 * Stately inspector shows it as it shows any actor.
 *
 * What it does not: host children. A machine with `invoke` or `spawn` throws
 * when it would create one; the machines run here say what their I/O must do
 * with emitted events instead.
 */
import type { AnyActorScope, AnyMachineSnapshot, AnyStateMachine, EmittedFrom, EventFromLogic, InputFrom, InspectionEvent, Observer, SnapshotFrom, Subscription } from 'xstate';

/** What drives delayed transitions (xstate's `SimulatedClock` is one). */
export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

export type Inspector = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** Who runs the actor: carries out what it emits and watches its snapshots (an object, so a host can be its own). */
export interface LeanActorHost<TMachine extends AnyStateMachine> {
  /** Every emitted event, in order, after the transition that emitted it. */
  onEmit(event: EmittedFrom<TMachine>): void;
  /** Every snapshot, after the emitted events of its transition. */
  onSnapshot(snapshot: SnapshotFrom<TMachine>): void;
  /** Drives delayed transitions; the real timers by default. */
  readonly clock?: Clock | undefined;
  readonly inspect?: Inspector | undefined;
}

const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};

/** The `system` a transition reaches for: delayed events become the actor's own timers. */
interface LeanSystem {
  _sendInspectionEvent(event: InspectionEvent): void;
  scheduler: {
    schedule(source: LeanActor<AnyStateMachine>, target: LeanActor<AnyStateMachine>, event: { type: string }, delay: number, id: string | undefined): void;
    cancel(source: LeanActor<AnyStateMachine>, id: string): void;
  };
  _bookId(): never;
}

let unnamedDelays = 0;

const scheduler: LeanSystem['scheduler'] = {
  // `after` names its delays; an unnamed delayed raise gets a name of its own, so two never replace each other.
  schedule: (_source, target, event, delay, id) => target.startTimer(id ?? `lean.delay.${unnamedDelays++}`, event, delay),
  cancel: (source, id) => source.cancelTimer(id),
};

const noChildren = (): never => {
  throw new Error('a LeanActor does not host child actors: say what the I/O must do with an emitted event instead');
};

/** Shared by every actor nobody inspects. */
const quietSystem: LeanSystem = { _sendInspectionEvent: () => undefined, scheduler, _bookId: noChildren };

let sessions = 0;

export class LeanActor<TMachine extends AnyStateMachine> {
  readonly logic: TMachine;
  readonly #serial = sessions++;
  #snapshot: AnyMachineSnapshot;
  /** Events sent while one is processed; allocated on the first. */
  #queue: EventFromLogic<TMachine>[] | undefined;
  #busy = false;
  /** False until start(): the initial state's actions wait for it, as in an xstate actor. */
  #started = false;
  /** What the current transition deferred (its emitted events and timers). */
  #deferred: (() => void)[] | undefined;
  /** Pending delayed events by id; allocated on the first. */
  #timers: Map<string, unknown> | undefined;
  #observers: Observer<SnapshotFrom<TMachine>>[] | undefined;
  readonly #host: LeanActorHost<TMachine>;
  readonly #system: LeanSystem;

  constructor(machine: TMachine, input: InputFrom<TMachine>, host: LeanActorHost<TMachine>) {
    this.logic = machine;
    this.#host = host;
    // The system is where xstate's transition reports microsteps: an inspected actor gets its own.
    this.#system = host.inspect ? { _sendInspectionEvent: (event) => this.#inspect(event), scheduler, _bookId: noChildren } : quietSystem;
    this.#inspect({ type: '@xstate.actor', actorRef: this });
    // Until start(): its entry actions wait, and events sent meanwhile queue.
    this.#busy = true;
    this.#snapshot = machine.getInitialSnapshot(this.#scope(), input);
  }

  /** Runs the initial state's entry actions, then whatever was sent before. Call once. */
  start(): this {
    if (this.#started) return this;
    this.#started = true;
    this.#inspect({ type: '@xstate.event', sourceRef: undefined, actorRef: this, event: { type: 'xstate.init' } });
    this.#settle({ type: 'xstate.init' });
    this.#drain();
    return this;
  }

  get id(): string {
    return this.sessionId;
  }

  get sessionId(): string {
    return `lean:${this.#serial}`;
  }

  /** Where xstate would create a child (in its parent's system): this one refuses. */
  get system(): LeanSystem {
    return this.#system;
  }

  getSnapshot(): SnapshotFrom<TMachine> {
    return this.#snapshot as SnapshotFrom<TMachine>;
  }

  send(event: EventFromLogic<TMachine>): void {
    if (this.#snapshot.status !== 'active') return;
    if (this.#busy) {
      (this.#queue ??= []).push(event);
      return;
    }
    this.#busy = true;
    try {
      this.#process(event);
    } finally {
      this.#drain();
    }
  }

  /** As an xstate actor's: `next` for every snapshot, then `complete` when done or `error`; a late subscriber hears how it ended. */
  subscribe(observer: Observer<SnapshotFrom<TMachine>> | ((snapshot: SnapshotFrom<TMachine>) => void)): Subscription {
    const entry = typeof observer === 'function' ? { next: observer } : observer;
    if (this.#snapshot.status !== 'active') {
      finish(entry, this.#snapshot);
      return { unsubscribe: () => undefined };
    }
    (this.#observers ??= []).push(entry);
    return {
      unsubscribe: () => {
        const index = this.#observers?.indexOf(entry) ?? -1;
        if (index >= 0) this.#observers!.splice(index, 1);
      },
    };
  }

  /** For the scheduler: a delayed event (`after`), replacing any pending one with the same id. */
  startTimer(id: string, event: { type: string }, delay: number): void {
    this.cancelTimer(id);
    const clock = this.#host.clock ?? realClock;
    const timers = (this.#timers ??= new Map());
    timers.set(
      id,
      clock.setTimeout(() => {
        this.#timers?.delete(id);
        this.send(event as EventFromLogic<TMachine>);
      }, delay),
    );
  }

  /** For the scheduler: drops a pending delayed event. */
  cancelTimer(id: string): void {
    const timers = this.#timers;
    if (!timers?.has(id)) return;
    (this.#host.clock ?? realClock).clearTimeout(timers.get(id));
    timers.delete(id);
    if (timers.size === 0) this.#timers = undefined;
  }

  #process(event: EventFromLogic<TMachine>): void {
    this.#inspect({ type: '@xstate.event', sourceRef: undefined, actorRef: this, event });
    try {
      this.#snapshot = this.logic.transition(this.#snapshot, event, this.#scope());
    } catch (error) {
      // As an xstate actor does: a throwing guard or action puts the actor in error, and what it deferred never runs.
      this.#deferred = undefined;
      this.#fail(error);
    }
    this.#settle(event);
  }

  /** Processes what was sent meanwhile, in order, while the machine runs. */
  #drain(): void {
    try {
      let next: EventFromLogic<TMachine> | undefined;
      while (this.#snapshot.status === 'active' && (next = this.#queue?.shift())) this.#process(next);
    } finally {
      this.#queue = undefined;
      this.#busy = false;
    }
  }

  #fail(error: unknown): void {
    this.#snapshot = { ...this.#snapshot, status: 'error', error, output: undefined };
  }

  /** Runs what the transition deferred, then tells the host and the observers; ends the actor's timers if it is over. */
  #settle(event: { type: string }): void {
    let deferred: (() => void) | undefined;
    while ((deferred = this.#deferred?.shift())) {
      try {
        deferred();
      } catch (error) {
        // As in an xstate actor: only an initial custom action can throw here, and it puts the actor in error.
        this.#deferred = undefined;
        this.#fail(error);
      }
    }
    this.#deferred = undefined;
    const snapshot = this.#snapshot;
    const typed = snapshot as SnapshotFrom<TMachine>;
    if (snapshot.status !== 'active') for (const id of [...(this.#timers?.keys() ?? [])]) this.cancelTimer(id);
    try {
      this.#host.onSnapshot(typed);
    } catch (error) {
      reportLater(error);
    }
    const observers = this.#observers;
    if (observers) {
      if (snapshot.status !== 'error') for (const observer of [...observers]) notify(observer, typed);
      if (snapshot.status !== 'active') {
        this.#observers = undefined;
        for (const observer of observers) finish(observer, snapshot);
      }
    }
    this.#inspect({ type: '@xstate.snapshot', actorRef: this, event, snapshot });
  }

  /**
   * The scope one transition runs in (xstate's ActorScope for a machine
   * without children). Made per transition, not kept: xstate swaps its
   * `actionExecutor` while it runs, and lifecycle events are rare.
   */
  #scope(): AnyActorScope {
    // The actor stands in for xstate's `self`, and its LeanSystem for xstate's system: the parts a machine without children reaches.
    const sessionId = this.sessionId;
    const scope = { self: this, id: sessionId, sessionId, system: this.#system, logger: console.log, stopChild: noChildren } as unknown as AnyActorScope;
    // Assigned rather than written in the literal: tsx names literal closures through __name, a cost per transition.
    scope.defer = (fn) => (this.#deferred ??= []).push(fn);
    scope.emit = (event) => {
      // As xstate treats its emitted-event handlers: a throwing one is reported, the actor goes on.
      try {
        this.#host.onEmit(event as EmittedFrom<TMachine>);
      } catch (error) {
        reportLater(error);
      }
    };
    scope.actionExecutor = (action) => {
      if (this.#started) this.#execute(action);
      else (this.#deferred ??= []).push(() => this.#execute(action));
    };
    return scope;
  }

  #execute(action: Parameters<AnyActorScope['actionExecutor']>[0]): void {
    this.#inspect({ type: '@xstate.action', actorRef: this, action: { type: action.type, params: action.params } });
    action.exec?.(action.info, action.params);
  }

  #inspect(event: object): void {
    const inspect = this.#host.inspect;
    if (!inspect) return;
    const rooted = { ...event, rootId: this.sessionId } as InspectionEvent;
    if (typeof inspect === 'function') inspect(rooted);
    else inspect.next?.(rooted);
  }
}

/** As xstate does with what throws in an observer or a handler: report it outside the actor, which goes on. */
function reportLater(error: unknown): void {
  setTimeout(() => {
    throw error;
  });
}

function notify<T>(observer: Observer<T>, snapshot: T): void {
  try {
    observer.next?.(snapshot);
  } catch (error) {
    reportLater(error);
  }
}

/** Tells an observer how the actor ended: `complete` when done, `error` (or an unhandled report) when it failed. */
function finish(observer: Observer<never>, snapshot: { status: string; error?: unknown }): void {
  try {
    if (snapshot.status === 'error') {
      if (observer.error) observer.error(snapshot.error);
      else reportLater(snapshot.error);
    } else observer.complete?.();
  } catch (error) {
    reportLater(error);
  }
}

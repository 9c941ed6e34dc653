/**
 * An actor for machines that may run by the ten thousand: it runs a machine
 * from machines/ with xstate's own logic (`machine.getInitialSnapshot`,
 * `machine.transition`), so every state, guard, action, delayed transition
 * and emitted event means what it means under `createActor`, but without
 * xstate's actor object. That object costs ~1.9 KB per actor (its mailbox,
 * scope closures, bound methods, observer and listener sets, options copy)
 * before the snapshot; this one costs the snapshot and a few fields.
 *
 * What it does like a root xstate actor: one event at a time (events sent
 * while one is processed wait in order), deferred actions and emitted events
 * run after the transition that produced them and before observers hear of
 * it, delayed events (`after`, delayed `raise`/`sendTo`) on the given clock,
 * cancelled when their state is left or the actor is over, `sendTo` to
 * itself or to any other actor, `stop()`, and the inspection events
 * (`@xstate.actor`, `.event`, `.snapshot`, `.microstep`, `.action`) to an
 * `inspect` observer, so the Stately inspector shows it as any actor.
 * test/runtime/lean-differential.test.ts holds it to that against
 * `createActor`.
 *
 * It can be the child of an xstate actor (its host names the parent, as the
 * connection actor owns every listen stream): it then takes the parent's
 * `sendTo` (`_send`), names the parent as `_parent`, and reports its
 * inspection events through the parent's system, so an inspector shows it
 * under the parent. What it does not: host children of its own or talk to
 * its parent. A machine that would (`invoke`, `spawnChild`, `stopChild`,
 * `sendParent`, `sendTo` a child id) is refused when the actor is created
 * (lean-refusals.ts). Whatever it needs of xstate beyond the documented API
 * is in xstate-internals.ts.
 */
import type { AnyActorRef, AnyActorScope, AnyMachineSnapshot, AnyStateMachine, EmittedFrom, EventFromLogic, EventObject, InputFrom, InspectionEvent, Observer, SnapshotFrom, Subscription } from 'xstate';
import { finish, notify, realClock, reportLater, type LeanActorHost } from './lean-host.ts';
import { childRefusal, refuseUnsupported } from './lean-refusals.ts';
import {
  childRefusingSystem,
  failedSnapshot,
  initEvent,
  inspectThroughParent,
  leanScope,
  leanSystem,
  runAction,
  stopEvent,
  type LeanChild,
  type LeanSystem,
} from './xstate-internals.ts';

export type { Clock, Inspector } from './actor-options.ts';
export type { LeanActorHost } from './lean-host.ts';

let sessions = 0;
/** `after` names its delays; an unnamed delayed event gets a name of its own, so two never replace each other. */
let unnamedDelays = 0;

/** A machine run without xstate's actor object: see the module comment. */
export class LeanActor<TMachine extends AnyStateMachine> implements LeanChild {
  /** The machine it runs. */
  readonly logic: TMachine;
  readonly #serial = sessions++;
  #snapshot: AnyMachineSnapshot;
  /** Events sent while one is processed; allocated on the first. */
  #queue: EventObject[] | undefined;
  #busy = false;
  /** False until start() (or stop()): the initial state's actions wait for it, as in an xstate actor. */
  #started = false;
  /** What the current transition deferred (its emitted events and timers). */
  #deferred: (() => void)[] | undefined;
  /** Pending delayed events by id; allocated on the first. */
  #timers: Map<string, unknown> | undefined;
  #observers: Observer<SnapshotFrom<TMachine>>[] | undefined;
  /** Until start(): xstate's init event carries it. */
  #input: unknown;
  readonly #host: LeanActorHost<TMachine>;

  /** The system every LeanActor's transitions see: it routes each call to the actor it names. */
  static readonly #system: LeanSystem = leanSystem({
    inspect: (event) => LeanActor.#own(event.actorRef).#inspect(event),
    relay: (source, target, event) => LeanActor.#own(source).#relay(target, event),
    schedule: (source, target, event, delay, id) => LeanActor.#own(source).#startTimer(id ?? `lean.delay.${unnamedDelays++}`, target, event, delay),
    cancel: (source, id) => LeanActor.#own(source).#cancelTimer(id),
    cancelAll: (actor) => LeanActor.#own(actor).#cancelTimers(),
  });

  /** xstate passes the scope's `self` back as source or target: always a LeanActor here. */
  static #own(actor: object | undefined): LeanActor<AnyStateMachine> {
    if (actor && #serial in actor) return actor;
    throw new TypeError('a lean actor system was handed an actor it does not run');
  }

  /** @throws LeanActorUnsupportedError if the machine needs what a LeanActor does not do (children, a parent). */
  constructor(machine: TMachine, input: InputFrom<TMachine>, host: LeanActorHost<TMachine>) {
    refuseUnsupported(machine);
    this.logic = machine;
    this.#host = host;
    this.#input = input;
    this.#inspect({ type: '@xstate.actor', actorRef: this });
    // Until start(): its entry actions wait, and events sent meanwhile queue.
    this.#busy = true;
    try {
      this.#snapshot = machine.getInitialSnapshot(this.#scope(), input);
    } catch (error) {
      // As an xstate actor: a throwing context factory or initial guard is an actor in error, not a throw.
      this.#snapshot = failedSnapshot({}, error) as AnyMachineSnapshot;
    }
  }

  /** Runs the initial state's entry actions, then whatever was sent before. Call once. */
  start(): this {
    if (this.#started) return this;
    this.#started = true;
    const init = initEvent(this.#input);
    this.#input = undefined;
    this.#inspect({ type: '@xstate.event', sourceRef: undefined, actorRef: this, event: init });
    if (this.#snapshot.status === 'error') this.#report();
    else this.#settle(init);
    this.#drain();
    return this;
  }

  /**
   * Stops it, as an xstate actor's `stop()`: after the event being processed,
   * if any, dropping what waits; status `stopped`, timers cancelled,
   * observers completed. Unlike xstate's, a LeanActor stopped before start()
   * says so too (xstate's keeps an `active` snapshot that never runs).
   */
  stop(): this {
    if (this.#snapshot.status !== 'active') return this;
    if (this.#started && this.#busy) {
      this.#queue = [stopEvent];
      return this;
    }
    if (!this.#started) {
      // Never started: its initial entry actions never run.
      this.#started = true;
      this.#deferred = undefined;
    }
    this.#queue = undefined;
    this.#busy = true;
    try {
      this.#process(stopEvent);
    } finally {
      this.#drain();
    }
    return this;
  }

  /** Its id, which is its session id (it has no parent to name it). */
  get id(): string {
    return this.sessionId;
  }

  /** Unique among the LeanActors of this process: `lean:<n>`. */
  get sessionId(): string {
    return `lean:${this.#serial}`;
  }

  /** The xstate actor that owns it, if any (its host's `parent`). */
  get _parent(): AnyActorRef | undefined {
    return this.#host.parent;
  }

  /** How its parent's `sendTo` delivers (the parent's system inspected the event already). */
  _send(event: EventObject): void {
    this.#receive(event);
  }

  /** Where xstate creates a child (in its parent's system): this one refuses, naming the state. */
  get system(): LeanSystem {
    return childRefusingSystem(LeanActor.#system, () => childRefusal(this.logic, this.#snapshot.value));
  }

  /** The current snapshot. */
  getSnapshot(): SnapshotFrom<TMachine> {
    return this.#snapshot as SnapshotFrom<TMachine>;
  }

  /** Sends an event: processed now, or after the one being processed; ignored once the actor is over. */
  send(event: EventFromLogic<TMachine>): void {
    // As xstate's relay does: the event is inspected when sent, even if it will be ignored.
    this.#inspect({ type: '@xstate.event', sourceRef: undefined, actorRef: this, event });
    this.#receive(event);
  }

  /** As an xstate actor's: `next` for every snapshot, then `complete` when done or stopped, or `error`; a late subscriber hears how it ended. */
  subscribe(observer: Observer<SnapshotFrom<TMachine>> | ((snapshot: SnapshotFrom<TMachine>) => void)): Subscription {
    const entry = typeof observer === 'function' ? { next: observer } : observer;
    if (this.#snapshot.status !== 'active') {
      // As xstate: a stopped actor tells a late subscriber nothing.
      if (this.#snapshot.status !== 'stopped') finish(entry, this.#snapshot);
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

  /** xstate's mailbox: one event at a time. */
  #receive(event: EventObject): void {
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

  /** A `sendTo` of its own: inspected here as xstate's system does, then to itself (queued) or to the other actor. */
  #relay(target: AnyActorRef, event: EventObject): void {
    this.#inspect({ type: '@xstate.event', sourceRef: this, actorRef: target, event });
    if (target === (this as unknown)) this.#receive(event);
    else target.send(event);
  }

  /**
   * A delayed event; when it fires it is relayed as an immediate one. As
   * xstate's scheduler: a second one with the same id takes the id over
   * without clearing the first, which still fires (and, firing, forgets
   * whichever holds the id).
   */
  #startTimer(id: string, target: AnyActorRef, event: EventObject, delay: number): void {
    const clock = this.#host.clock ?? realClock;
    const timers = (this.#timers ??= new Map());
    timers.set(
      id,
      clock.setTimeout(() => {
        this.#timers?.delete(id);
        this.#relay(target, event);
      }, delay),
    );
  }

  #cancelTimer(id: string): void {
    const timers = this.#timers;
    if (!timers?.has(id)) return;
    (this.#host.clock ?? realClock).clearTimeout(timers.get(id));
    timers.delete(id);
    if (timers.size === 0) this.#timers = undefined;
  }

  #cancelTimers(): void {
    for (const id of [...(this.#timers?.keys() ?? [])]) this.#cancelTimer(id);
  }

  #process(event: EventObject): void {
    let next: AnyMachineSnapshot;
    try {
      next = this.logic.transition(this.#snapshot, event, this.#scope());
    } catch (error) {
      // As an xstate actor: a throwing guard or action puts the actor in error, what it deferred never runs, and no snapshot is inspected.
      this.#deferred = undefined;
      this.#snapshot = failedSnapshot(this.#snapshot, error);
      this.#report();
      return;
    }
    this.#snapshot = next;
    this.#settle(event);
  }

  /** Processes what was sent meanwhile, in order, while the machine runs. */
  #drain(): void {
    try {
      let next: EventObject | undefined;
      while (this.#snapshot.status === 'active' && (next = this.#queue?.shift())) this.#process(next);
    } finally {
      this.#queue = undefined;
      this.#busy = false;
    }
  }

  /** Runs what the transition deferred, then tells the host and the observers, then the inspector. */
  #settle(event: EventObject): void {
    let deferred: (() => void) | undefined;
    while ((deferred = this.#deferred?.shift())) {
      try {
        deferred();
      } catch (error) {
        // As in an xstate actor: only an initial custom action can throw here, and it puts the actor in error.
        this.#deferred = undefined;
        this.#snapshot = failedSnapshot(this.#snapshot, error);
      }
    }
    this.#deferred = undefined;
    const snapshot = this.#snapshot;
    this.#report();
    this.#inspect({ type: '@xstate.snapshot', actorRef: this, event, snapshot });
  }

  /** Tells the host and the observers of the current snapshot; ends the actor's timers if it is over. */
  #report(): void {
    const snapshot = this.#snapshot;
    const typed = snapshot as SnapshotFrom<TMachine>;
    if (snapshot.status !== 'active') this.#cancelTimers();
    try {
      this.#host.onSnapshot(typed);
    } catch (error) {
      reportLater(error);
    }
    const observers = this.#observers;
    if (!observers) return;
    // As xstate: `next` for an active or done snapshot, then `complete` or `error` once it is over.
    if (snapshot.status === 'active' || snapshot.status === 'done') for (const observer of [...observers]) notify(observer, typed);
    if (snapshot.status !== 'active') {
      this.#observers = undefined;
      for (const observer of observers) finish(observer, snapshot);
    }
  }

  /** The scope of one transition: made per transition, not kept (xstate swaps its `actionExecutor` while it runs). */
  #scope(): AnyActorScope {
    return leanScope(
      this,
      LeanActor.#system,
      (fn) => (this.#deferred ??= []).push(fn),
      (event) => {
        // As xstate treats its emitted-event handlers: a throwing one is reported, the actor goes on.
        try {
          this.#host.onEmit(event as EmittedFrom<TMachine>);
        } catch (error) {
          reportLater(error);
        }
      },
      (action) => {
        if (this.#started) this.#execute(action);
        else (this.#deferred ??= []).push(() => this.#execute(action));
      },
    );
  }

  #execute(action: Parameters<AnyActorScope['actionExecutor']>[0]): void {
    this.#inspect({ type: '@xstate.action', actorRef: this, action: { type: action.type, params: action.params } });
    runAction(action);
  }

  #inspect(event: object): void {
    const parent = this.#host.parent;
    if (parent) return inspectThroughParent(parent, event as InspectionEvent);
    const inspect = this.#host.inspect;
    if (!inspect) return;
    const rooted = { ...event, rootId: this.sessionId } as InspectionEvent;
    if (typeof inspect === 'function') inspect(rooted);
    else inspect.next?.(rooted);
  }
}

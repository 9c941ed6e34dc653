/**
 * The fence: every place the lean runtime (lean-actor.ts) depends on xstate
 * beyond its documented API. xstate runs a machine through
 * `machine.getInitialSnapshot(scope)` and `machine.transition(snapshot,
 * event, scope)`, whose `scope` (an `ActorScope`) is normally built by
 * `createActor`; the lean runtime builds it itself, so it must provide what
 * xstate's transition code reaches for inside that scope and its `system`,
 * including members xstate marks `@internal` (the `_`-prefixed ones, absent
 * from its type declarations).
 *
 * A new xstate release may rename or reshape any member below. What breaks
 * then is said beside each; test/runtime/lean-differential.test.ts runs every
 * machine the lean runtime hosts under both runtimes and compares them, and
 * `npm run test:xstate-latest` runs it against the newest xstate 5.x.
 * Outside src/runtime/, only the connection (registering and releasing its
 * children) and the subscription stream (its reference as a child) import it.
 */
import { Actor, type AnyActorRef, type AnyActorScope, type EventObject, type ExecutableActionObject, type InspectionEvent, type Subscription } from 'xstate';
import { realClock } from './lean-host.ts';

/** xstate's ActorSystem type (not exported under a name of its own). */
type AnyActorSystem = AnyActorScope['system'];

/** What the lean runtime does where xstate's actor system would act, for the actor given as `source`/`target`. */
export interface LeanSystemPort {
  /** An inspection event reported from inside a transition (its `actorRef` is the actor). */
  inspect(event: InspectionEvent): void;
  /** An event a `sendTo`/`forwardTo` sends now, from `source` to `target`. */
  relay(source: AnyActorRef | undefined, target: AnyActorRef, event: EventObject): void;
  /** A delayed event (`after`, a delayed `raise` or `sendTo`): a timer of `source`'s, under `id` (or a name of its own). */
  schedule(source: AnyActorRef, target: AnyActorRef, event: EventObject, delay: number, id: string | undefined): void;
  /** Drops `source`'s pending delayed event `id` (`cancel`, leaving a state with `after`). */
  cancel(source: AnyActorRef, id: string): void;
  /** Every pending delayed event of `actor` (xstate calls it when an actor stops). */
  cancelAll(actor: AnyActorRef): void;
}

/** The `@internal` members of xstate's ActorSystem that transition code calls. */
interface SystemInternals {
  /**
   * `macrostep` reports every microstep through it (`@xstate.microstep`;
   * the lean runtime sends its other inspection events itself); missing or
   * renamed, every transition throws.
   */
  _sendInspectionEvent(event: InspectionEvent): void;
  /**
   * A `sendTo`/`forwardTo` without delay delivers through it (and a fired
   * delayed event in xstate's own scheduler); missing, such an action ends
   * the actor in `error` with "_relay is not a function" (issue 15).
   */
  _relay(source: AnyActorRef | undefined, target: AnyActorRef, event: EventObject): void;
  /**
   * `createActor` books a child's session id from its parent's system before
   * anything else: where a lean actor refuses a child made at run time
   * (`spawn` inside `assign`, `enqueue.spawnChild`; see `childRefusingSystem`).
   * Renamed, such a child fails with a TypeError instead of the typed refusal.
   */
  _bookId(): string;
  /**
   * `stopChild` unregisters the child (and its children) before stopping it;
   * a lean actor has none registered, and the stop itself is refused by the
   * scope's `stopChild`.
   */
  _unregister(actor: AnyActorRef): void;
}

/** The system one lean actor's transitions see (shared by every lean actor with the same port). */
export type LeanSystem = AnyActorSystem & SystemInternals;

/** xstate's ActorSystem over the lean runtime's port. */
export function leanSystem(port: LeanSystemPort): LeanSystem {
  return {
    _sendInspectionEvent: (event) => port.inspect(event),
    _relay: (source, target, event) => port.relay(source, target, event),
    // Reached only through a parent's `system` (see `childRefusingSystem`), never this one's.
    _bookId: () => {
      throw new TypeError('a lean actor system books no actor ids');
    },
    _unregister: () => undefined,
    // Public members of ActorSystem (typed, documented), so actions that read `system` see a well-formed one.
    scheduler: {
      schedule: (source, target, event, delay, id) => port.schedule(source, target, event, delay, id),
      cancel: (source, id) => port.cancel(source, id),
      cancelAll: (actor) => port.cancelAll(actor),
    },
    // A lean actor registers no `systemId`: nothing to find.
    get: () => undefined,
    getAll: () => ({}),
    inspect: (): Subscription => {
      throw new TypeError("a lean actor's inspector is its host's `inspect`, not the system's");
    },
    // Lean actors are not persisted: no scheduled events to hand over.
    getSnapshot: () => ({ _scheduledEvents: {} }),
    start: () => undefined,
    _clock: realClock,
    _logger: console.log,
  };
}

/**
 * The system a lean actor shows as its own `system`: where `createActor`
 * books a child's id from its parent's system (`parent.system._bookId()`),
 * the first thing it does, this one throws `refusal()` instead.
 */
export function childRefusingSystem(system: LeanSystem, refusal: () => Error): LeanSystem {
  return {
    ...system,
    _bookId: () => {
      throw refusal();
    },
  };
}

/**
 * A lean actor as its xstate parent's `sendTo` and an inspector see it. The
 * parent's system delivers a `sendTo` with `target._send(event)` (an
 * `@internal` member; renamed, the connection's lifecycle events stop
 * reaching its lean children and the ownership tests fail), and the Stately
 * inspector files an actor under `actorRef._parent`.
 */
export interface LeanChild {
  readonly id: string;
  readonly sessionId: string;
  readonly _parent: AnyActorRef | undefined;
  _send(event: EventObject): void;
  send(event: EventObject): void;
}

/** A lean child typed as the `ActorRef` a parent's `sendTo` takes: it has only the members above, all xstate's relay and inspector read. */
export function asChildRef(child: LeanChild): AnyActorRef {
  return child as unknown as AnyActorRef;
}

/**
 * Reports a lean child's inspection event through its parent's system, as
 * xstate does for every actor of a system: the parent's inspectors see it,
 * with the root's id as `rootId`. `_sendInspectionEvent` is the member
 * described in SystemInternals.
 */
export function inspectThroughParent(parent: AnyActorRef, event: InspectionEvent): void {
  (parent.system as AnyActorSystem & Pick<SystemInternals, '_sendInspectionEvent'>)._sendInspectionEvent(event);
}

/**
 * Registers `child` in `parent`'s actor system under `systemId`, where the
 * parent's machine finds it (`system.getAll()`, public). xstate does this
 * with `_set` (`@internal`) for an actor created with a `systemId`; a lean
 * actor is not created by xstate, and an xstate child is registered here too
 * so that every child of the connection is registered the same way. Renamed,
 * the connection's children stop hearing its lifecycle and the ownership
 * tests fail.
 */
export function registerChild(parent: AnyActorRef, systemId: string, child: AnyActorRef): void {
  (parent.system as AnyActorSystem & { _set(systemId: string, actor: AnyActorRef): void })._set(systemId, child);
}

/**
 * Removes `child` from `parent`'s system (`_unregister`, see SystemInternals); xstate does it itself when an xstate
 * child stops. An xstate child (an `Actor`; a lean one sends its parent nothing) also forgets its parent (`_parent`,
 * `@internal`): released from its `complete` observer, which xstate calls before it sends the parent
 * `xstate.done.actor.<id>`, it then sends nothing. A machine keeps the transitions it looked up for every event type
 * its state nodes ever saw, for as long as it lives (xstate's `memo`, never cleared), so one done event type per child
 * id grew the connection by ~450 B for every listener it ever had; the connection machine has no transition for them.
 * Renamed, the done events reach the connection again and the ownership test of what it hears fails.
 */
export function unregisterChild(parent: AnyActorRef, child: AnyActorRef): void {
  (parent.system as AnyActorSystem & Pick<SystemInternals, '_unregister'>)._unregister(child);
  if (child instanceof Actor && child._parent === parent) (child as { _parent: AnyActorRef | undefined })._parent = undefined;
}

/** What a lean actor stands in for as the scope's `self`: the members xstate's transition reads from it. */
export interface LeanSelf {
  readonly id: string;
  readonly sessionId: string;
  send(event: EventObject): void;
}

/**
 * The `ActorScope` of one transition. xstate types `self` as a full
 * `ActorRef`; a lean actor is not one (no `on`, `select`, `src`, `_parent`,
 * `getPersistedSnapshot`), hence the cast: an action that reaches for those
 * on `self` fails (and `sendParent`, which reads `self._parent`, is refused
 * when the actor is created). `defer`, `emit` and `actionExecutor` are given
 * by the caller, made per transition (xstate swaps `actionExecutor` while a
 * microstep runs and puts it back after).
 */
export function leanScope(
  self: LeanSelf,
  system: LeanSystem,
  defer: (fn: () => void) => void,
  emit: (event: EventObject) => void,
  actionExecutor: (action: ExecutableActionObject) => void,
): AnyActorScope {
  const scope = { self, id: self.id, sessionId: self.sessionId, system, logger: console.log } as unknown as AnyActorScope;
  // Assigned rather than written in the literal: tsx names literal closures through __name, a cost per transition.
  scope.defer = defer;
  scope.emit = emit;
  scope.actionExecutor = actionExecutor;
  // Only `stopChild` of a child reaches it, and a lean actor has none.
  scope.stopChild = stopChildRefused;
  return scope;
}

function stopChildRefused(): never {
  throw new TypeError('a lean actor has no child actors to stop');
}

/**
 * Runs one action as xstate's own `actionExecutor` does: `exec(info,
 * params)` (undefined for an action known only by name). xstate also sets
 * its unexported `executingCustomAction` flag around the call, which only
 * turns on development warnings when a custom action calls `raise()` or
 * `sendTo()` imperatively; those warnings are lost here.
 */
export function runAction(action: ExecutableActionObject): void {
  action.exec?.(action.info, action.params);
}

/**
 * The event xstate's actor processes first: `{ type: 'xstate.init', input }`
 * (its `createInitEvent`, unexported). Inspection shows it; renamed, the
 * differential test sees the init events differ.
 */
export function initEvent(input: unknown): EventObject & { input: unknown } {
  return { type: 'xstate.init', input };
}

/**
 * The event xstate's `actor.stop()` runs the machine's transition with
 * (`XSTATE_STOP`, unexported): the machine answers with a `stopped` snapshot.
 */
export const stopEvent: EventObject = { type: 'xstate.stop' };

/**
 * A snapshot in `error`, as xstate's actor makes one when a transition
 * throws (a spread with `status` and `error`; xstate has no function for it).
 */
export function failedSnapshot<T extends object>(snapshot: T, error: unknown): T {
  return { ...snapshot, status: 'error', error, output: undefined };
}

/** A built-in action as xstate builds it: a function carrying its `type` and resolved at transition time. */
export interface BuiltInAction {
  /** `xstate.assign`, `xstate.raise`, `xstate.sendTo`, `xstate.spawnChild`, …. */
  readonly type: string;
  /** `sendTo`'s target as written: an actor, a function, or a string (a child id, or `#_parent` / `#_internal`). */
  readonly to: unknown;
}

/**
 * Whether an action (as found in a state node's `entry`, `exit` or a
 * transition's `actions`, or in `machine.implementations.actions`) is one of
 * xstate's built-ins, and which. xstate tells them apart the same way (a
 * `resolve` member) and keeps `type` and `to` on the action function; a
 * release that changes this makes the creation-time check see custom actions
 * only, and the refusal tests fail.
 */
export function builtInAction(action: unknown): BuiltInAction | undefined {
  if (typeof action !== 'function' || !('resolve' in action) || !('type' in action) || typeof action.type !== 'string') return undefined;
  return { type: action.type, to: 'to' in action ? action.to : undefined };
}

/** `sendTo`'s special targets (xstate's `SpecialTargets`, an enum of strings): the parent, and the actor itself. */
export const PARENT_TARGET = '#_parent';
/** See `PARENT_TARGET`. */
export const SELF_TARGET = '#_internal';

/**
 * What a LeanActor (lean-actor.ts) tells the outside, and how: the host that
 * runs it (emitted events, snapshots, clock, inspector) and its observers,
 * whose failures are reported as xstate reports them, outside the actor.
 */
import type { AnyActorRef, AnyStateMachine, EmittedFrom, Observer, SnapshotFrom } from 'xstate';
import type { Clock, Inspector } from './actor-options.ts';

/** Who runs the actor: carries out what it emits and watches its snapshots (an object, so a host can be its own). */
export interface LeanActorHost<TMachine extends AnyStateMachine> {
  /** Every emitted event, in order, after the transition that emitted it. */
  onEmit(event: EmittedFrom<TMachine>): void;
  /** Every snapshot, after the emitted events of its transition. */
  onSnapshot(snapshot: SnapshotFrom<TMachine>): void;
  /** Drives delayed transitions; the real timers by default. */
  readonly clock?: Clock | undefined;
  /** Used only without a parent: a child's inspection events go through its parent's system. */
  readonly inspect?: Inspector | undefined;
  /** The xstate actor that owns it (the connection actor), if any: inspection events name it as `_parent`. */
  readonly parent?: AnyActorRef | undefined;
}

/** The process's timers. */
export const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};

/** As xstate does with what throws in an observer or a handler: report it outside the actor, which goes on. */
export function reportLater(error: unknown): void {
  setTimeout(() => {
    throw error;
  });
}

/** `next`, with what it throws reported outside the actor. */
export function notify<T>(observer: Observer<T>, snapshot: T): void {
  try {
    observer.next?.(snapshot);
  } catch (error) {
    reportLater(error);
  }
}

/** Tells an observer how the actor ended: `complete` when done or stopped, `error` (or an unhandled report) when it failed. */
export function finish(observer: Observer<never>, snapshot: { status: string; error?: unknown }): void {
  try {
    if (snapshot.status === 'error') {
      if (observer.error) observer.error(snapshot.error);
      else reportLater(snapshot.error);
    } else observer.complete?.();
  } catch (error) {
    reportLater(error);
  }
}

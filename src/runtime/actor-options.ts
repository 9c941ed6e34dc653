/**
 * What every actor the package creates is given from outside, whether it
 * runs under xstate's `createActor` or the lean runtime (lean-actor.ts): the
 * clock that drives its delays and the inspector that sees its events. One
 * type each, so a `SimulatedClock` or a Stately inspector fits every option.
 */
import type { InspectionEvent, Observer } from 'xstate';

/** What drives delayed transitions (xstate's `SimulatedClock` is one); the shape `createActor`'s `clock` option takes. */
export interface Clock {
  /** Calls `fn` after `ms` milliseconds; returns what `clearTimeout` takes. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timeout `setTimeout` returned. */
  clearTimeout(id: unknown): void;
}

/** Where an actor's inspection events go: an observer or a function, as `createActor`'s `inspect` option (e.g. a Stately inspector's `inspect`). */
export type Inspector = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

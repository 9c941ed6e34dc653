/**
 * Applies bus events to this node's streams and sessions, one at a time and
 * in the bus's order. A remote event first runs the application's
 * `onRemoteChange` hook (awaited), so a client that refetches after the
 * notification, on whichever node, reads the new state. Local events with
 * nothing waiting ahead of them fan out synchronously, as they always did.
 */
import type { ChangeDelivery, ChangeEvent } from './bus.ts';

/** The application's reload hook for a change published by another node. */
export type RemoteChangeHook = (event: ChangeEvent) => void | Promise<void>;

export class ChangeApplier {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly fanOut: (event: ChangeEvent) => void,
    private readonly hook: RemoteChangeHook | undefined,
    private readonly reportHookFailure: (error: unknown, event: ChangeEvent) => void,
  ) {}

  /** Returns, when the event waits for a hook, the promise that settles once it was fanned out (never rejects). */
  apply(event: ChangeEvent, delivery: ChangeDelivery | undefined): Promise<void> | undefined {
    const runHook = delivery?.remote === true && this.hook !== undefined;
    if (!runHook && this.waiting === 0) {
      this.fanOut(event);
      return undefined;
    }
    this.waiting++;
    this.tail = this.tail.then(async () => {
      try {
        if (runHook) await this.hook!(event);
      } catch (error) {
        // Announce anyway: clients refetching a stale catalog beats clients never told.
        this.reportHookFailure(error, event);
      }
      this.waiting--;
      this.fanOut(event);
    });
    return this.tail;
  }
}

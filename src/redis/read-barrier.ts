/**
 * The waiting list of the read barrier: the stream position this node has
 * applied (read, and every handler's promise settled, in read order), and
 * the reads waiting for a position. A read asks Redis for the stream's
 * newest id, then waits until the applied position reaches it, at most
 * `timeoutMs`. The bus decides when reads may wait at all (its machine's
 * `read_barrier` tag) and lets them all go when they may not.
 */
import { compareStreamIds } from './stream-protocol.ts';

/** How a wait ended: the position was reached, the bus let it go (degraded), or the timeout ran out. */
export type BarrierOutcome = 'reached' | 'released' | 'timed_out';

interface Waiter {
  /** Unknown until Redis answered with the stream's newest id. */
  target: string | undefined;
  finish(outcome: BarrierOutcome): void;
}

export class ReadBarrier {
  private applied = '0-0';
  /** Resolves once every batch read so far was applied; later batches chain on it. */
  private appliedChain: Promise<void> = Promise.resolve();
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly timeoutMs: number) {}

  /** A batch was read up to `id`; it counts as applied once `work` (the handlers' promises) settled, and every batch before it. */
  track(id: string, work: ReadonlyArray<Promise<void>>): void {
    this.appliedChain = this.appliedChain.then(async () => {
      await Promise.allSettled(work);
      this.advance(id);
    });
  }

  /**
   * Waits until the position `newest` resolves to (undefined: an empty
   * stream) is applied. A rejected `newest` (Redis went away mid-question)
   * counts as released: the node is degraded and answers from what it has.
   */
  wait(newest: Promise<string | undefined>): Promise<BarrierOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => waiter.finish('timed_out'), this.timeoutMs);
      timer.unref?.();
      const waiter: Waiter = {
        target: undefined,
        finish: (outcome) => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(timer);
          resolve(outcome);
        },
      };
      this.waiters.add(waiter);
      newest.then(
        (id) => {
          if (id === undefined || compareStreamIds(this.applied, id) >= 0) waiter.finish('reached');
          else waiter.target = id;
        },
        () => waiter.finish('released'),
      );
    });
  }

  /** Lets every waiting read go: the node can no longer tell what it owes. */
  releaseAll(): void {
    for (const waiter of [...this.waiters]) waiter.finish('released');
  }

  private advance(id: string): void {
    // Set, not max: a stream recreated after a Redis restart starts over from lower ids.
    this.applied = id;
    for (const waiter of [...this.waiters]) {
      if (waiter.target !== undefined && compareStreamIds(this.applied, waiter.target) >= 0) waiter.finish('reached');
    }
  }
}

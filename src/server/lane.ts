/**
 * A lane: one listen stream's or legacy session's share of an outbox
 * (outbox.ts). Change events wait in it, coalesced by key and bounded by
 * `maxPendingPerStream` and `maxPendingBytesPerStream`; past a bound the
 * lane is killed and its owner told, which ends the stream or session.
 */
import type { SlowConsumer } from '../../machines/listen-stream.machine.ts';
import type { Outbox } from './outbox.ts';

/** Who a lane tells that it overflowed (its stream or session, which then ends). */
export interface LaneOwner {
  overflowed(overflow: SlowConsumer): void;
}

/**
 * One owner's share of an outbox: coalesces repeats of a waiting event and
 * bounds how many distinct events, and how many bytes of them (UTF-8), may wait.
 * A legacy session's own resync waits outside the bounds (`offerUnbounded`).
 */
export class Lane {
  /** Each waiting event's key and length; made on the first (most lanes of an idle server hold nothing). */
  private pending: Map<string, number> | undefined;
  private pendingBytes = 0;
  /** Keys of waiting events queued outside the bounds (a resync's), coalesced like the others. */
  private unbounded: Set<string> | undefined;
  dead = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly maxPending: number,
    private readonly maxPendingBytes: number,
    private readonly owner: LaneOwner,
  ) {}

  /** Queues `json` unless an event with the same key is still waiting. */
  offer(key: string, json: string): void {
    if (this.dead || this.waiting(key)) return;
    const tooMany = (this.pending?.size ?? 0) >= this.maxPending;
    const bytes = Buffer.byteLength(json);
    if (tooMany || (this.pendingBytes + bytes > this.maxPendingBytes && !this.outbox.draining)) {
      this.kill();
      this.owner.overflowed({ type: 'slow_consumer', exceeded: tooMany ? 'events' : 'bytes', maxPending: this.maxPending, maxPendingBytes: this.maxPendingBytes });
      return;
    }
    (this.pending ??= new Map()).set(key, bytes);
    this.pendingBytes += bytes;
    this.outbox.push(json, this, key);
  }

  /**
   * Queues `json` as `offer` does, but outside the bounds: a session's resync, every event it listens to at once,
   * which its own subscriptions already bound (and repeats coalesce, so resyncs in a row add nothing). Counted,
   * it would end a session for listening to many resources, or for reconnecting while it had no stream.
   */
  offerUnbounded(key: string, json: string): void {
    if (this.dead || this.waiting(key)) return;
    (this.unbounded ??= new Set()).add(key);
    this.outbox.push(json, this, key);
  }

  written(key: string): void {
    if (this.unbounded?.delete(key)) {
      if (this.unbounded.size === 0) this.unbounded = undefined;
      return;
    }
    const pending = this.pending;
    if (!pending) return;
    this.pendingBytes -= pending.get(key) ?? 0;
    pending.delete(key);
    // An idle stream goes back to holding nothing.
    if (pending.size === 0) this.pending = undefined;
  }

  /** Drops this lane's waiting events; nothing more is accepted. */
  kill(): void {
    this.dead = true;
    this.pending = undefined;
    this.pendingBytes = 0;
    this.unbounded = undefined;
  }

  private waiting(key: string): boolean {
    return this.pending?.has(key) === true || this.unbounded?.has(key) === true;
  }
}

/**
 * The bounded, drain-aware write queue in front of one byte sink (a stdio
 * stdout, an HTTP response). Frames are written in order, batched per tick,
 * and never faster than the sink drains: when `write()` returns false the
 * outbox waits for 'drain' instead of piling more onto the sink.
 *
 * Change events reach it through a Lane (one per listen stream or legacy
 * session), which coalesces repeats of an event that is still waiting and
 * ends its owner when more than `maxPending` distinct events are waiting.
 * Responses and request-scoped notifications are pushed directly; producers
 * of those wait on `room()` while the queue is above its high-water mark.
 */
export interface FrameSink {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

interface Entry {
  json: string;
  lane: Lane | undefined;
  key: string | undefined;
}

/** Most bytes joined into one sink write. */
const BATCH_BYTES = 64 * 1024;

export class Outbox {
  private entries: (Entry | undefined)[] = [];
  private head = 0;
  private scheduled = false;
  private blocked = false;
  private closed = false;
  private high = false;
  private roomWaiters: (() => void)[] = [];
  private flushWaiters: (() => void)[] = [];

  constructor(
    /** Undefined parks the outbox: frames queue (lanes stay bounded) until `retarget`. */
    private sink: FrameSink | undefined,
    private readonly frame: (json: string) => string,
    readonly highWater: number,
    /** Told when the queue crosses the high-water mark, either way (stdio pauses its input). */
    private readonly onPressure?: (high: boolean) => void,
  ) {}

  get size(): number {
    return this.entries.length - this.head;
  }

  /** Nothing queued and the sink is not waiting to drain. */
  get idle(): boolean {
    return this.size === 0 && !this.blocked && this.sink !== undefined;
  }

  push(json: string, lane?: Lane, key?: string): void {
    if (this.closed) return;
    this.entries.push({ json, lane, key });
    if (!this.high && this.size >= this.highWater) {
      this.high = true;
      this.onPressure?.(true);
    }
    if (!this.scheduled && !this.blocked) {
      this.scheduled = true;
      queueMicrotask(() => this.pump());
    }
  }

  /** Resolves once the queue is below its high-water mark (at once when it already is). */
  room(): Promise<void> {
    if (this.closed || this.size < this.highWater) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Resolves once everything queued so far has been handed to the sink and the sink drained. */
  flushed(): Promise<void> {
    if (this.closed || (this.size === 0 && !this.blocked && this.sink)) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /** Writes from now on go to `sink`; undefined parks the outbox again. */
  retarget(sink: FrameSink | undefined): void {
    this.sink = sink;
    this.blocked = false;
    if (sink && this.size > 0 && !this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.pump());
    }
  }

  /** Drops whatever is still queued; later pushes are ignored. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.entries = [];
    this.head = 0;
    this.settle();
  }

  private pump(): void {
    this.scheduled = false;
    const sink = this.sink;
    while (sink && !this.blocked && !this.closed && this.head < this.entries.length) {
      let chunk = '';
      while (this.head < this.entries.length && chunk.length < BATCH_BYTES) {
        const entry = this.entries[this.head]!;
        this.entries[this.head++] = undefined;
        if (entry.lane) {
          if (entry.lane.dead) continue;
          entry.lane.written(entry.key!);
        }
        chunk += this.frame(entry.json);
      }
      if (chunk !== '' && !sink.write(chunk)) {
        this.blocked = true;
        sink.once('drain', () => {
          if (this.sink !== sink) return; // retargeted meanwhile
          this.blocked = false;
          this.pump();
        });
      }
    }
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    }
    this.settle();
  }

  private settle(): void {
    if (this.closed || this.size < this.highWater) {
      if (this.roomWaiters.length > 0) {
        const waiters = this.roomWaiters;
        this.roomWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
    if (this.high && !this.closed && this.size <= this.highWater / 2) {
      this.high = false;
      this.onPressure?.(false);
    }
    if (this.closed || (this.size === 0 && !this.blocked && this.sink)) {
      const waiters = this.flushWaiters;
      this.flushWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}

/**
 * One owner's share of an outbox: coalesces repeats of a waiting event and
 * bounds how many distinct events may wait.
 */
export class Lane {
  private readonly pending = new Set<string>();
  dead = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly maxPending: number,
    private readonly onOverflow: (maxPending: number) => void,
  ) {}

  /** Queues `json` unless an event with the same key is still waiting. */
  offer(key: string, json: string): void {
    if (this.dead || this.pending.has(key)) return;
    if (this.pending.size >= this.maxPending) {
      this.kill();
      this.onOverflow(this.maxPending);
      return;
    }
    this.pending.add(key);
    this.outbox.push(json, this, key);
  }

  written(key: string): void {
    this.pending.delete(key);
  }

  /** Drops this lane's waiting events; nothing more is accepted. */
  kill(): void {
    this.dead = true;
    this.pending.clear();
  }
}

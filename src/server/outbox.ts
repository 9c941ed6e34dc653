/**
 * The bounded, drain-aware write queue in front of one byte sink (a stdio
 * stdout, an HTTP response). Frames are written in batches, once per turn of
 * the event loop (so input keeps being read between batches), and never
 * faster than the sink drains: when `write()` returns false the outbox waits
 * for 'drain' instead of piling more onto the sink.
 *
 * Two queues feed the sink. Answers (responses and errors, `answer()`) are
 * written ahead of queued notifications (`push()`), so a request that arrives
 * during a burst is not answered behind it; notifications are never
 * reordered among themselves, and an answer never overtakes a notification
 * it names as its predecessor (a request's own progress precedes its
 * response).
 *
 * Change events reach it through a Lane (lane.ts; one per listen stream or legacy
 * session), which coalesces repeats of an event that is still waiting and
 * ends its owner when more than `maxPending` distinct events are waiting, or
 * more than `maxPendingBytes` of them while the sink does not drain (a burst
 * to a client that reads is written on the next turn, however large); a
 * session's own resync is not counted. Request-scoped notifications are
 * pushed directly; their producers wait on `room()` while the notification
 * queue is at its high-water mark, or while half of `bound.maxBytes` waits.
 *
 * The high-water mark counts frames, not bytes. An outbox with a `bound`
 * (stdio connections, HTTP answer streams, a legacy session's GET stream)
 * also bounds the UTF-8 bytes of its answers and directly pushed messages
 * (lane frames have their lane's bound, and count only there): a frame that
 * would take them past `bound.maxBytes` while the sink does not drain tells
 * the owner, which closes the outbox: everything waiting is dropped, only the
 * owner's last frame is written, nothing more is accepted. A single frame
 * larger than the bound, alone in the queue, is still written. Without it a
 * client that stops reading would keep `highWater` frames of any size, and
 * every answer of its running requests (and, on a GET stream, whose pushers
 * never wait for room, every ask of its session's batched requests).
 */
import type { Lane } from './lane.ts';
import type { QueueOverflow } from '../../machines/listen-stream.machine.ts';

export type { QueueOverflow };

/** Where an outbox writes: the part of a Node Writable it uses. */
export interface FrameSink {
  /** `done` runs once the chunk left the sink's own buffer (handed to the OS), or failed. */
  write(chunk: string, done?: (error?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  /** Characters (bytes) written but still in the sink's own buffer; a paced outbox needs it. */
  readonly writableLength?: number;
}

/**
 * How a paced outbox writes (stdio): slices of at most `sliceChars`, the next
 * one only once the last has left the sink's buffer. What the OS will not
 * take yet then waits in the outbox, where an answer can still overtake it,
 * instead of in the sink's buffer (up to its 16 KiB high-water mark and past
 * it), where nothing can.
 */
export interface Pacing {
  sliceChars: number;
}

/** The byte bound of an outbox (the limit `maxQueuedBytes`) and who is told when a client passes it. */
export interface QueueBound {
  maxBytes: number;
  /**
   * The bound was passed: the owner ends its stream or connection, and closes the outbox, with the frame to write
   * last if it has one (`close(last)`); the outbox closes itself otherwise.
   */
  overflowed(overflow: QueueOverflow): void;
}

/** How an outbox behaves beyond its high-water mark: all optional. */
export interface OutboxOptions {
  /**
   * Told when the outbox becomes backed up and when it recovers (stdio holds
   * its input back meanwhile): backed up is `highWater` answers waiting, or
   * twice `highWater` notifications (producers wait for room at `highWater`,
   * so only many producers at once get there), or half of `bound.maxBytes`.
   */
  onPressure?: (high: boolean) => void;
  pacing?: Pacing;
  bound?: QueueBound;
}

interface Entry {
  json: string;
  lane: Lane | undefined;
  key: string | undefined;
  /** Counted toward the bound (0 for a lane's frame, which its lane bounds). */
  bytes: number;
}

interface AnswerEntry {
  json: string;
  /** Sequence number of the notification this answer must follow (0: none). */
  after: number;
  bytes: number;
}

/** Most characters joined into one sink write. */
const BATCH_CHARS = 16 * 1024;

export class Outbox {
  private entries: (Entry | undefined)[] = [];
  private head = 0;
  private answers: AnswerEntry[] = [];
  /** Notifications pushed so far; the last one's sequence number. */
  private pushed = 0;
  /** Notifications taken off the queue so far (written or dropped). */
  private taken = 0;
  private scheduled: ReturnType<typeof setImmediate> | undefined;
  private blocked = false;
  private closed = false;
  private high = false;
  /** Paced writes so far: only the last one's completion unblocks (an earlier one's comes a tick late). */
  private slices = 0;
  private roomWaiters: (() => void)[] = [];
  private flushWaiters: (() => void)[] = [];
  /** UTF-8 bytes of the frames waiting that count toward `bound` (measured only when there is one). */
  private queuedBytes = 0;
  private readonly onPressure: ((high: boolean) => void) | undefined;
  private readonly pacing: Pacing | undefined;
  private readonly bound: QueueBound | undefined;

  constructor(
    /** Undefined parks the outbox: frames queue (lanes stay bounded) until `retarget`. */
    private sink: FrameSink | undefined,
    private readonly frame: (json: string) => string,
    readonly highWater: number,
    options: OutboxOptions = {},
  ) {
    this.onPressure = options.onPressure;
    this.pacing = options.pacing;
    this.bound = options.bound;
  }

  /** Notifications waiting. */
  get size(): number {
    return this.entries.length - this.head;
  }

  /** Whether the sink takes writes now (not parked, not waiting for 'drain'). */
  get draining(): boolean {
    return this.sink !== undefined && !this.blocked;
  }

  /** Whether a push is still taken: false once closed (by its owner, or past its bound, where the push that passed it is the first refused). */
  get accepts(): boolean {
    return !this.closed;
  }

  /** Nothing queued and the sink is not waiting to drain. */
  get idle(): boolean {
    return !this.waiting && !this.blocked && this.sink !== undefined;
  }

  /** Queues a notification; returns its sequence number (for `answer`'s `after`). */
  push(json: string, lane?: Lane, key?: string): number {
    if (this.closed) return this.pushed;
    const bytes = lane ? 0 : this.measure(json);
    if (this.overflows(bytes)) return this.pushed;
    this.entries.push({ json, lane, key, bytes });
    this.queuedBytes += bytes;
    this.pushed++;
    this.changed();
    return this.pushed;
  }

  /** Queues a response or error ahead of waiting notifications, but after notification number `after`. */
  answer(json: string, after = 0): void {
    if (this.closed) return;
    const bytes = this.measure(json);
    if (this.overflows(bytes)) return;
    this.answers.push({ json, after, bytes });
    this.queuedBytes += bytes;
    this.changed();
  }

  /** Resolves once the notification queue is below its high-water mark and half its byte bound (at once when it already is). */
  room(): Promise<void> {
    if (this.closed || this.hasRoom) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Resolves once everything queued so far has been handed to the sink and the sink drained (once closed: handed to it). */
  flushed(): Promise<void> {
    if (this.flushDone) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /** Writes from now on go to `sink`; undefined parks the outbox again. */
  retarget(sink: FrameSink | undefined): void {
    this.sink = sink;
    this.blocked = false;
    if (sink) this.schedule();
  }

  /**
   * Drops whatever is still queued; later pushes are ignored. `last`, if given, is still written, after what the
   * sink already holds (the error that answers the owner's request when its client did not keep up).
   */
  close(last?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.entries = [];
    this.head = 0;
    this.answers = last === undefined ? [] : [{ json: last, after: 0, bytes: 0 }];
    this.queuedBytes = 0;
    if (last !== undefined) this.schedule();
    else if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    this.settle();
  }

  private get waiting(): boolean {
    return this.size > 0 || this.answers.length > 0;
  }

  private get hasRoom(): boolean {
    return this.size < this.highWater && (this.bound === undefined || this.queuedBytes < this.bound.maxBytes / 2);
  }

  /** Closed with nothing left to hand over, or nothing queued and the sink drained. */
  private get flushDone(): boolean {
    return this.closed ? !this.waiting : this.idle;
  }

  private measure(json: string): number {
    return this.bound ? Buffer.byteLength(json) : 0;
  }

  /**
   * Whether queuing `bytes` more passes the bound while the sink does not drain (a burst to a sink that drains goes
   * out next turn, however large; a frame alone in the queue is not refused for its own size). If so, the client
   * is given up on: its owner ends it and closes this outbox.
   */
  private overflows(bytes: number): boolean {
    const bound = this.bound;
    if (!bound || this.queuedBytes === 0 || this.queuedBytes + bytes <= bound.maxBytes || this.draining) return false;
    bound.overflowed({ type: 'slow_consumer', exceeded: 'queued_bytes', maxQueuedBytes: bound.maxBytes });
    this.close();
    return true;
  }

  private changed(): void {
    const bytesHigh = this.bound !== undefined && this.queuedBytes >= this.bound.maxBytes / 2;
    if (!this.high && (this.answers.length >= this.highWater || this.size >= 2 * this.highWater || bytesHigh)) {
      this.high = true;
      this.onPressure?.(true);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.blocked || !this.sink || (this.size === 0 && this.answers.length === 0)) return;
    // A macrotask, not a microtask: between two batches the event loop reads input, so a request
    // that arrives during a burst is parsed and answered before the burst's next batch.
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.pump();
    });
  }

  private pump(): void {
    const sink = this.sink;
    // Closed, only the owner's last frame can still wait.
    if (!sink || this.blocked) return;
    // Paced: slices while the OS takes them whole, up to a batch per turn; unpaced: one batch.
    const slice = this.pacing?.sliceChars ?? BATCH_CHARS;
    for (let turn = 0; turn < BATCH_CHARS && !this.blocked; ) {
      const chunk = this.take(slice);
      if (chunk === '') break;
      turn += chunk.length;
      this.write(sink, chunk);
    }
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    }
    this.schedule();
    this.settle();
  }

  /** Frames joined up to `limit` characters (past it by one frame at most), answers first. */
  private take(limit: number): string {
    let chunk = '';
    while (chunk.length < limit) {
      const answer = this.answers.length > 0 && this.answers[0]!.after <= this.taken ? this.answers.shift() : undefined;
      if (answer) this.queuedBytes -= answer.bytes;
      const json = answer ? answer.json : this.takeNotification();
      if (json === undefined) break;
      chunk += this.frame(json);
    }
    return chunk;
  }

  private write(sink: FrameSink, chunk: string): void {
    const paced = this.pacing !== undefined;
    const slice = ++this.slices;
    const room = paced ? sink.write(chunk, () => slice === this.slices && this.unblock()) : sink.write(chunk);
    if (!room) {
      this.blocked = true;
      sink.once('drain', () => {
        if (this.sink === sink) this.unblock(); // else retargeted meanwhile
      });
    } else if (paced && (sink.writableLength ?? 0) > 0) {
      // The OS did not take the whole slice: the next waits for this one to leave the sink's buffer.
      this.blocked = true;
    }
  }

  private unblock(): void {
    if (!this.blocked) return;
    this.blocked = false;
    this.schedule();
    this.settle();
  }

  /** The next notification to write, skipping those of ended lanes; undefined when none waits. */
  private takeNotification(): string | undefined {
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      this.entries[this.head++] = undefined;
      this.taken++;
      this.queuedBytes -= entry.bytes;
      if (!entry.lane) return entry.json;
      if (entry.lane.dead) continue;
      entry.lane.written(entry.key!);
      return entry.json;
    }
    return undefined;
  }

  private settle(): void {
    if (this.closed || this.hasRoom) {
      if (this.roomWaiters.length > 0) {
        const waiters = this.roomWaiters;
        this.roomWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
    const bytesLow = this.bound === undefined || this.queuedBytes <= this.bound.maxBytes / 4;
    if (this.high && !this.closed && this.answers.length <= this.highWater / 2 && this.size <= this.highWater && bytesLow) {
      this.high = false;
      this.onPressure?.(false);
    }
    if (this.flushDone) {
      const waiters = this.flushWaiters;
      this.flushWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}

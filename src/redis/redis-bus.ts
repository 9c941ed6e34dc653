/**
 * A change bus on a Redis stream: `publish` goes out through the bus
 * machine (sent at once when live, applied locally and queued otherwise);
 * every node reads the stream in order from the last id it saw and applies
 * each entry once, its own included. A gap it cannot rule out becomes one
 * local `everything_changed`. Anyone with write access to the stream can add
 * to it: an entry not as a bus writes it is skipped, or applied where it
 * cannot be told from a genuine one, and reported through `log` with a
 * StreamEntryError; none stops the read. The machine owns the lifecycle; this
 * file does the I/O it asks for and reports what Redis said.
 */
import { randomUUID } from 'node:crypto';
import { messageOf } from '../../machines/errors.ts';
import { createActor, fromCallback, fromPromise, type Actor, type SnapshotFrom } from 'xstate';
import {
  redisBusMachine,
  type CatchUpOutput,
  type OutboundEntry,
  type RedisBusEvent,
  type RedisBusHealth,
} from '../../machines/redis-bus.machine.ts';
import type { ChangeBus, ChangeEvent, ChangeHandler } from '../server/bus.ts';
import { BusConnections, isErrorReply, type RedisClientLike } from './connection.ts';
import { DeliveryLedger, type StreamPosition } from './delivery-ledger.ts';
import { EventTooLargeError, MAX_EVENT_BYTES, StreamEntryError, type StreamEntryProblem } from './entry-errors.ts';
import { ReadBarrier } from './read-barrier.ts';
import {
  encodeChangeEvent,
  headCommand,
  newestCommand,
  parseChangeEvent,
  parseHead,
  parseNewestId,
  parseRead,
  publishCommand,
  READ_REPLY_TYPES,
  readCommand,
  streamKeys,
  type StreamEntry,
  type StreamKeys,
} from './stream-protocol.ts';

export type { RedisBusHealth };

/** Options of `createRedisBus`: the Redis to use and the stream's bounds. */
export interface RedisBusOptions {
  /** A `redis://` URL (the bus makes and closes its client), or a node-redis client of the application's (the bus duplicates it for its blocking read and leaves it open). */
  redis: string | RedisClientLike;
  /** Key prefix shared by every node of one deployment (default `mcp-actors`); used as the Redis Cluster hash tag. */
  prefix?: string;
  /** Approximate number of entries the stream keeps (`XADD MAXLEN ~`, default 10,000): the retention a node may fall behind by before it must resync. */
  maxLen?: number;
  /** Own events held while Redis is unreachable (default 1,000); past that they are covered by one `everything_changed`. */
  maxQueued?: number;
  /** How long one blocking read waits before it is issued again (default 5,000 ms). */
  blockMs?: number;
  /** How long `settled()` (a list or read on this node) waits for this node to apply what the stream holds before it answers anyway, logged (default 2,000 ms). */
  settleTimeoutMs?: number;
  /**
   * Where health changes, resyncs, barrier timeouts and stream entries the bus did not write are written (default:
   * console.warn). A line about such an entry comes with its StreamEntryError, which says what is wrong with it.
   */
  log?: (message: string, error?: StreamEntryError) => void;
}

/** The Redis bus: a `ChangeBus` with health, to close when the application ends. */
export interface RedisBus extends ChangeBus {
  /** See `ChangeBus.publish`; throws EventTooLargeError for an event over 1 MiB as JSON (a URI that long), which no node would read. */
  publish(event: ChangeEvent): void;
  /** This bus instance's origin id in the stream. */
  readonly nodeId: string;
  /** The bus's health now; `onHealth` reports each change. */
  readonly health: RedisBusHealth;
  /** The read barrier: see `ChangeBus.settled`; resolves at once while not connected, and after `settleTimeoutMs` anyway. */
  settled(): Promise<void>;
  /** Calls `listener` on every health change; returns the function that stops it. */
  onHealth(listener: (health: RedisBusHealth) => void): () => void;
  /** Stops reading and publishing; closes the connections the bus made. */
  close(): Promise<void>;
  /** `close()`, for `await using bus = await createRedisBus(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const READ_COUNT = 500;
/** Every XREAD gets bulk strings as bytes: see READ_REPLY_TYPES. */
const READ_OPTIONS = { typeMapping: READ_REPLY_TYPES };

/** A change bus over one Redis Stream for several server nodes (`createServer({ bus })`). Starts connecting at once; publishing works from the first moment (queued until Redis answers). */
export async function createRedisBus(options: RedisBusOptions): Promise<RedisBus> {
  const bus = new RedisStreamBus(options);
  await bus.start(options.redis);
  return bus;
}

class RedisStreamBus implements RedisBus {
  readonly nodeId = randomUUID();
  private readonly keys: StreamKeys;
  private readonly maxLen: number;
  private readonly blockMs: number;
  private readonly log: (message: string, error?: StreamEntryError) => void;
  private readonly ledger = new DeliveryLedger(this.nodeId);
  private readonly handlers = new Set<ChangeHandler>();
  private readonly barrier: ReadBarrier;
  /** Handlers' promises of the events delivered since the last read batch was tracked. */
  private applying: Array<Promise<void>> = [];
  private readonly healthListeners = new Set<(health: RedisBusHealth) => void>();
  private readonly actor: Actor<typeof redisBusMachine>;
  private connections: BusConnections | undefined;
  private seq = 0;
  private current: RedisBusHealth = 'connecting';

  constructor(options: RedisBusOptions) {
    this.keys = streamKeys(options.prefix ?? 'mcp-actors');
    this.maxLen = options.maxLen ?? 10_000;
    this.blockMs = options.blockMs ?? 5_000;
    this.log = options.log ?? ((message) => console.warn(message));
    this.barrier = new ReadBarrier(options.settleTimeoutMs ?? 2_000);
    const machine = redisBusMachine.provide({
      actors: {
        catchUp: fromPromise<CatchUpOutput>(({ signal }) =>
          this.catchUp(signal).catch((cause: unknown) => {
            this.log(`mcp-actors redis bus ${this.nodeId}: catching up failed: ${messageOf(cause)}`);
            throw cause;
          }),
        ),
        tail: fromCallback<RedisBusEvent>(({ sendBack }) => this.tail(sendBack)),
      },
    });
    this.actor = createActor(machine, { input: { maxQueued: options.maxQueued ?? 1_000 } });
    this.actor.on('send', ({ entries }) => entries.forEach((entry) => this.send(entry)));
    this.actor.on('apply_locally', ({ entries }) => entries.forEach((entry) => this.applyAtOnce(entry)));
    // Never sent: the ledger keeps nothing of them, or a long outage would have it keep a mark per publish.
    this.actor.on('apply_dropped', ({ entries }) => entries.forEach((entry) => this.deliverOwn(entry)));
    this.actor.on('announce_everything_changed', ({ dropped }) => {
      this.log(`mcp-actors redis bus ${this.nodeId}: ${dropped} event(s) published while Redis was away did not fit the queue; announcing that everything changed`);
      this.send({ seq: ++this.seq, payload: encodeChangeEvent({ type: 'everything_changed' }) });
    });
    this.actor.subscribe((snapshot) => this.observe(snapshot));
    this.actor.start();
  }

  async start(redis: string | RedisClientLike): Promise<void> {
    this.connections = await BusConnections.open(redis, {
      ready: () => this.actor.send({ type: 'redis.ready' }),
      lost: (cause) => this.actor.send({ type: 'redis.lost', cause }),
    });
  }

  get health(): RedisBusHealth {
    return this.current;
  }

  publish(event: ChangeEvent): void {
    const payload = encodeChangeEvent(event);
    const bytes = Buffer.byteLength(payload);
    if (bytes > MAX_EVENT_BYTES) throw new EventTooLargeError(bytes);
    this.actor.send({ type: 'publish', entry: { seq: ++this.seq, payload } });
  }

  /**
   * The read barrier: one round trip for the stream's newest id, then waits
   * until this node applied it. Resolves at once while Redis is unreachable
   * or the bus is not connected (health says so), and after
   * `settleTimeoutMs` anyway, logged.
   */
  async settled(): Promise<void> {
    const writer = this.connections?.writer;
    if (writer === undefined || !this.actor.getSnapshot().hasTag('read_barrier')) return;
    const newest = writer.sendCommand(newestCommand(this.keys)).then(parseNewestId);
    if ((await this.barrier.wait(newest)) === 'timed_out') {
      this.log(`mcp-actors redis bus ${this.nodeId}: a read waited longer than the settle timeout for this node to apply the stream; answering anyway`);
    }
  }

  subscribe(handler: ChangeHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  onHealth(listener: (health: RedisBusHealth) => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.actor.send({ type: 'close' });
    await this.connections?.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private observe(snapshot: SnapshotFrom<typeof redisBusMachine>): void {
    if (!snapshot.hasTag('read_barrier')) this.barrier.releaseAll();
    const value = snapshot.value;
    const health: RedisBusHealth = typeof value === 'string' ? value : value.live;
    if (health === this.current) return;
    const previous = this.current;
    this.current = health;
    this.log(`mcp-actors redis bus ${this.nodeId}: ${previous} -> ${health}`);
    for (const listener of [...this.healthListeners]) listener(health);
  }

  /** To every handler; one that throws is logged and costs neither the others nor the read loop. */
  private deliver(event: ChangeEvent, remote: boolean): void {
    for (const handler of [...this.handlers]) {
      try {
        const applying = handler(event, { remote });
        if (applying !== undefined) this.applying.push(applying);
      } catch (cause) {
        this.log(`mcp-actors redis bus ${this.nodeId}: a change handler threw on ${event.type}: ${messageOf(cause)}`);
      }
    }
  }

  /**
   * What was read so far counts as applied once the handlers' promises of the events delivered meanwhile settled;
   * returns those promises.
   */
  private trackRead(): ReadonlyArray<Promise<void>> {
    const work = this.applying;
    this.barrier.track(this.ledger.lastId, work);
    this.applying = [];
    return work;
  }

  private applyAtOnce(entry: OutboundEntry): void {
    if (this.ledger.applyOwnAtOnce(entry.seq, entry.payload)) this.deliverOwn(entry);
  }

  /** One of this node's own events, to its own clients. */
  private deliverOwn(entry: OutboundEntry): void {
    const event = parseChangeEvent(entry.payload);
    if (event) this.deliver(event, false);
  }

  /**
   * Hands `entry` to Redis. A resend below the highest `seq` sent before goes under a new `seq`: every node drops an
   * entry at or below the highest `seq` it read from its origin, and a later publish may have gone out while this
   * one failed. A copy of unknown outcome that did reach the stream is then seen twice: a repeated change
   * notification, where keeping the old `seq` would lose it. The last one sent keeps its `seq`, so a resend after a
   * dropped link is still applied once.
   */
  private send(queued: OutboundEntry): void {
    const writer = this.connections?.writer;
    const event = parseChangeEvent(queued.payload);
    if (!writer || !event) return;
    let entry = queued;
    if (entry.seq < this.ledger.highestSent) {
      entry = { seq: ++this.seq, payload: queued.payload };
      this.ledger.restamp(queued.seq, entry.seq);
    }
    this.ledger.sending(entry.seq, entry.payload);
    writer
      .sendCommand(publishCommand(this.keys, this.maxLen, this.nodeId, entry.seq, entry.payload))
      .catch((cause: unknown) => {
        // Closed meanwhile (close() ends the link under what is in flight): nothing is resent, and nobody is told.
        if (this.current === 'closed') return;
        // The first failure of a live link says why; the others that were in flight with it follow it.
        if (this.actor.getSnapshot().matches('live')) {
          this.log(`mcp-actors redis bus ${this.nodeId}: publishing ${event.type} failed, resent once live again: ${messageOf(cause)}`);
        }
        // Redis's error reply means nothing was written: the ledger need not wait for a copy under this seq.
        if (isErrorReply(cause)) this.ledger.refused(entry.seq);
        this.actor.send({ type: 'publish.failed', entry, cause });
      });
  }

  /** Everything may have changed: what the node tells its clients when it cannot prove it saw every event. */
  private resync(why: string): void {
    this.log(`mcp-actors redis bus ${this.nodeId}: ${why}; telling local clients that everything changed`);
    this.deliver({ type: 'everything_changed' }, true);
  }

  /** A stream entry the bus did not write as a bus does: logged with its typed error, never passed over silently. */
  private report(entryId: string, problem: StreamEntryProblem): void {
    const error = new StreamEntryError(entryId, problem);
    this.log(`mcp-actors redis bus ${this.nodeId}: ${error.message}`, error);
  }

  /** Compares the stream's head with what this node read; a gap it cannot rule out resyncs. */
  private reconciled(head: StreamPosition): boolean {
    if (this.ledger.reconcile(head) !== 'gap') return false;
    this.resync('the stream was recreated (Redis restarted without persistence, or its keys were deleted) or rewound below what this node read');
    return true;
  }

  /** Applies read entries in order; returns whether a gap had to be covered, and the handlers' work on them. */
  private consume(entries: StreamEntry[]): { gap: boolean; work: ReadonlyArray<Promise<void>> } {
    let gap = false;
    for (const entry of entries) {
      const id = entry.ok ? entry.header.id : entry.id;
      const acceptance = entry.ok ? this.ledger.accept(entry.header) : this.ledger.skip(entry.id, entry.ordinal);
      if (acceptance.gap) {
        gap = true;
        this.resync(`entries before ${id} were trimmed or lost`);
      }
      const problem = entry.ok ? acceptance.problem : entry.problem;
      if (problem) this.report(id, problem);
      if (entry.ok && acceptance.apply) this.deliver(entry.event, entry.header.origin !== this.nodeId);
    }
    return { gap, work: this.trackRead() };
  }

  /**
   * Proves continuity from the last id seen and reads the backlog. `signal` aborts when the machine leaves
   * `catching_up` (a link dropped): a catch-up still waiting on the reader then stops at its next reply, unread, so
   * it never consumes beside the next catch-up and moves the ledger back under it (a spurious resync).
   */
  private async catchUp(signal: AbortSignal): Promise<CatchUpOutput> {
    const superseded: CatchUpOutput = { gap: false };
    const reader = this.connections!.reader;
    const head = parseHead(await reader.sendCommand(headCommand(this.keys, randomUUID())));
    if (signal.aborted) return superseded;
    let gap = this.reconciled(head);
    for (;;) {
      const reply = await reader.sendCommand(readCommand(this.keys, this.ledger.lastId, READ_COUNT), READ_OPTIONS);
      if (signal.aborted) return superseded;
      const entries = parseRead(reply);
      if (this.consume(entries).gap) gap = true;
      if (entries.length < READ_COUNT) break;
    }
    if (this.ledger.missedBefore(head)) {
      gap = true;
      this.resync('entries published while this node was away were trimmed');
    }
    this.trackRead();
    return { gap };
  }

  private tail(sendBack: (event: RedisBusEvent) => void): () => void {
    let running = true;
    const reader = this.connections!.reader;
    void (async () => {
      while (running) {
        let read: { gap: boolean; work: ReadonlyArray<Promise<void>> };
        try {
          const reply = await reader.sendCommand(readCommand(this.keys, this.ledger.lastId, READ_COUNT, this.blockMs), READ_OPTIONS);
          if (!running) return;
          const entries = parseRead(reply);
          if (entries.length > 0) read = this.consume(entries);
          else {
            // Nothing new for a whole wait: is the stream still the one this node reads? After an entry whose id lies
            // in the future, a stream deleted and written again gets ids below this node's, and the read never answers.
            const head = parseHead(await reader.sendCommand(headCommand(this.keys, randomUUID())));
            if (!running) return;
            read = { gap: this.reconciled(head), work: this.trackRead() };
          }
        } catch (cause) {
          // An error reply (or one it cannot parse) with the connection up: the machine retries; a dropped link
          // is reported by the connection itself.
          if (running) {
            this.log(`mcp-actors redis bus ${this.nodeId}: reading the stream failed: ${messageOf(cause)}`);
            sendBack({ type: 'read.failed', cause });
          }
          return;
        }
        if (read.gap) sendBack({ type: 'gap.detected' });
        // No further read before the handlers (onRemoteChange) are done with this one: a node slower than the
        // stream then holds one batch, not the stream, and one that falls behind the retention resyncs.
        if (read.work.length > 0) await Promise.allSettled(read.work);
      }
    })();
    return () => {
      running = false;
    };
  }
}

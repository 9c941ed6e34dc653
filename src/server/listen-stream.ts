/**
 * The I/O side of one modern `subscriptions/listen` stream: its lifecycle is
 * the listen-stream machine; this class writes the acknowledgment, the tagged
 * events, the graceful completion and the slow-consumer error into the
 * outbox it was given (the stdio connection's, or the listen request's own
 * HTTP response).
 *
 * A server holds streams by the ten thousand, so a stream keeps only what its
 * state needs: the machine runs on a LeanActor (the snapshot and a few fields,
 * not an xstate actor object with its own system), the stream is that actor's
 * host and its lane's owner (methods, not closures), and the promise
 * `complete()` returns is made only when someone asks for it.
 */
import type { SnapshotFrom } from 'xstate';
import type { Inspector } from '../runtime/actor-options.ts';
import {
  listenStreamMachine,
  type ListenStreamCommand,
  type SlowConsumer,
  type StreamEndReason,
} from '../../machines/listen-stream.machine.ts';
import { LeanActor, type LeanActorHost } from '../runtime/lean-actor.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { MetaKey } from '../protocol/versions.ts';
import { LIST_CHANGED_METHOD, type Audience } from './audience-index.ts';
import type { ConcreteChange } from './bus.ts';
import { Lane, type LaneOwner } from './lane.ts';
import type { ServerTransport } from './lifecycle-trace.ts';
import type { Outbox } from './outbox.ts';

export type { StreamEndReason };

/** Something that hears, once, that a stream has closed (its last message already queued). */
export interface StreamOwner {
  streamEnded(stream: ListenStream, reason: StreamEndReason): void;
}

/** The transport that opened a stream: told when it ends, and named on the stream channel (lifecycle-trace.ts). */
export interface StreamTransport extends StreamOwner {
  readonly kind: ServerTransport;
}


/** What one stream is opened with. */
export interface ListenStreamOptions {
  id: RequestId;
  honored: NotificationFilter;
  outbox: Outbox;
  maxPending: number;
  maxPendingBytes: number;
  finishTimeoutMs: number;
  /** The listen-stream machine, or one that runs it with shared steps (listen-stream-logic.ts). */
  logic: typeof listenStreamMachine;
  /** Told first when the stream ends: the server core, which unindexes it. */
  core: StreamOwner;
  /** Told next: the transport that opened it. */
  owner: StreamTransport;
  inspect?: Inspector | undefined;
}

type Snapshot = SnapshotFrom<typeof listenStreamMachine>;

/** One open listen stream: an Audience of the change index, the host of its lifecycle actor. */
export class ListenStream implements Audience, LaneOwner, LeanActorHost<typeof listenStreamMachine> {
  readonly id: RequestId;
  readonly honored: NotificationFilter;
  /** For the LeanActor: where its inspection events go (none by default). */
  readonly inspect: Inspector | undefined;
  private readonly metaJson: string;
  private readonly outbox: Outbox;
  private readonly lane: Lane;
  private readonly core: StreamOwner;
  private readonly owner: StreamTransport;
  private readonly actor: LeanActor<typeof listenStreamMachine>;
  private open = false;
  private reason: StreamEndReason | undefined;
  /** Callers of complete() waiting for the end; made on the first. */
  private waiters: ((reason: StreamEndReason) => void)[] | undefined;

  constructor(options: ListenStreamOptions) {
    this.id = options.id;
    this.honored = options.honored;
    this.inspect = options.inspect;
    this.metaJson = `{${JSON.stringify(MetaKey.subscriptionId)}:${JSON.stringify(options.id)}}`;
    this.outbox = options.outbox;
    this.lane = new Lane(options.outbox, options.maxPending, options.maxPendingBytes, this);
    this.core = options.core;
    this.owner = options.owner;
    this.actor = new LeanActor(options.logic, { finishTimeoutMs: options.finishTimeoutMs }, this);
    this.actor.start();
  }

  /** What serves it: its owner's kind. */
  get transport(): ServerTransport {
    return this.owner.kind;
  }

  /** Writes the acknowledgment, the stream's first message, then opens it for events. */
  acknowledge(): void {
    const params = `{"_meta":${this.metaJson},"notifications":${JSON.stringify(this.honored)}}`;
    this.outbox.push(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":${params}}`);
    this.actor.send({ type: 'ack.sent' });
  }

  receive(event: ConcreteChange, uriJson: string | undefined): void {
    if (!this.open) return;
    if (event.type === 'resource_updated') {
      this.lane.offer(
        `u${event.uri}`,
        `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":${uriJson},"_meta":${this.metaJson}}}`,
      );
      return;
    }
    this.lane.offer(event.type, `{"jsonrpc":"2.0","method":"${LIST_CHANGED_METHOD[event.type]}","params":{"_meta":${this.metaJson}}}`);
  }

  cancel(): void {
    this.actor.send({ type: 'client.cancelled' });
  }

  transportClosed(): void {
    this.actor.send({ type: 'transport.closed' });
  }

  /**
   * Ends the stream gracefully; resolves with how it actually ended. Events
   * for a stream that already ended (completed from two places, cancelled as
   * it completes) change nothing: its actor is done.
   */
  complete(): Promise<StreamEndReason> {
    if (this.reason) return Promise.resolve(this.reason);
    const ended = new Promise<StreamEndReason>((resolve) => (this.waiters ??= []).push(resolve));
    this.actor.send({ type: 'server.complete' });
    return ended;
  }

  /** For the lane: more was waiting than the stream's bounds allow. */
  overflowed(overflow: SlowConsumer): void {
    this.actor.send({ type: 'overflow', overflow });
  }

  /** For the actor: `finish` writes the last message and reports once the outbox has flushed it. */
  onEmit(command: ListenStreamCommand): void {
    const { ending } = command;
    this.outbox.push(ending.type === 'completed' ? this.completionFrame() : this.slowConsumerFrame(ending));
    void this.outbox.flushed().then(() => this.actor.send({ type: 'finish.flushed' }));
  }

  /** For the actor: events flow only while open; once done, the stream is unindexed and its owners told. */
  onSnapshot(snapshot: Snapshot): void {
    this.open = snapshot.value === 'open';
    if (snapshot.status !== 'done') return;
    this.lane.kill();
    const reason = snapshot.output;
    this.reason = reason;
    this.core.streamEnded(this, reason);
    this.owner.streamEnded(this, reason);
    const waiters = this.waiters;
    this.waiters = undefined;
    for (const resolve of waiters ?? []) resolve(reason);
  }

  private completionFrame(): string {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(this.id)},"result":{"resultType":"complete","_meta":${this.metaJson}}}`;
  }

  private slowConsumerFrame({ exceeded, maxPending, maxPendingBytes }: SlowConsumer): string {
    const error = {
      code: -32000,
      message: 'listen stream ended: the client did not keep up with its events',
      data: { reason: 'slow_consumer', exceeded, maxPending, maxPendingBytes, [MetaKey.subscriptionId]: this.id },
    };
    return JSON.stringify({ jsonrpc: '2.0', id: this.id, error });
  }
}

/**
 * The I/O side of one modern `subscriptions/listen` stream: its lifecycle is
 * the listen-stream machine; this class writes the acknowledgment, the tagged
 * events, the graceful completion and the slow-consumer error into the
 * outbox it was given (the stdio connection's, or the listen request's own
 * HTTP response).
 */
import { createActor, fromPromise, type Actor } from 'xstate';
import { listenStreamMachine, type SlowConsumer, type StreamEndReason, type StreamEnding, type ListenStreamEvent } from '../../machines/listen-stream.machine.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { MetaKey } from '../protocol/versions.ts';
import { LIST_CHANGED_METHOD, type Audience } from './audience-index.ts';
import type { ConcreteChange } from './bus.ts';
import { Lane, type Outbox } from './outbox.ts';

export type { StreamEndReason };

export interface ListenStreamOptions {
  id: RequestId;
  honored: NotificationFilter;
  outbox: Outbox;
  maxPending: number;
  maxPendingBytes: number;
  finishTimeoutMs: number;
  /** Called once when the stream has closed; its last message is already queued. */
  onEnd(stream: ListenStream, reason: StreamEndReason): void;
}

export class ListenStream implements Audience {
  readonly id: RequestId;
  readonly honored: NotificationFilter;
  private readonly metaJson: string;
  private readonly lane: Lane;
  private readonly actor: Actor<typeof listenStreamMachine>;
  private open = false;
  private readonly done: Promise<StreamEndReason>;

  constructor(private readonly options: ListenStreamOptions) {
    this.id = options.id;
    this.honored = options.honored;
    this.metaJson = `{${JSON.stringify(MetaKey.subscriptionId)}:${JSON.stringify(options.id)}}`;
    this.lane = new Lane(options.outbox, options.maxPending, options.maxPendingBytes, (overflow) => this.send({ type: 'overflow', overflow }));
    const finish = fromPromise<void, StreamEnding>(async ({ input }) => {
      options.outbox.push(input.type === 'completed' ? this.completionFrame() : this.slowConsumerFrame(input));
      await options.outbox.flushed();
    });
    this.actor = createActor(listenStreamMachine.provide({ actors: { finish } }), {
      input: { finishTimeoutMs: options.finishTimeoutMs },
    });
    let resolveDone!: (reason: StreamEndReason) => void;
    this.done = new Promise((resolve) => (resolveDone = resolve));
    this.actor.subscribe((snapshot) => {
      this.open = snapshot.value === 'open';
      if (snapshot.status === 'done') {
        this.lane.kill();
        const reason = snapshot.output;
        options.onEnd(this, reason);
        resolveDone(reason);
      }
    });
    this.actor.start();
  }

  /** Writes the acknowledgment, the stream's first message, then opens it for events. */
  acknowledge(): void {
    const params = `{"_meta":${this.metaJson},"notifications":${JSON.stringify(this.honored)}}`;
    this.options.outbox.push(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":${params}}`);
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
    this.send({ type: 'client.cancelled' });
  }

  transportClosed(): void {
    this.send({ type: 'transport.closed' });
  }

  /** Ends the stream gracefully; resolves with how it actually ended. */
  complete(): Promise<StreamEndReason> {
    this.send({ type: 'server.complete' });
    return this.done;
  }

  /** Events for a stream that already ended (completed from two places, cancelled as it completes) change nothing. */
  private send(event: ListenStreamEvent): void {
    if (this.actor.getSnapshot().status === 'active') this.actor.send(event);
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

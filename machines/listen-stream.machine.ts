/**
 * One server-side `subscriptions/listen` stream (modern era).
 *
 *   acknowledging ──ack.sent──▶ open ──server.complete / overflow──▶ closing ──▶ closed
 *        │                       │                          (finish done, or
 *        │                       │                           finishTimeout)
 *        └──── client.cancelled / transport.closed ─────────────────▶ closed
 *
 * The acknowledgment is written by the I/O side before `ack.sent`; nothing is
 * delivered on the stream until the machine is `open`, so the ack is always the
 * stream's first message. Entering `closing` emits `finish`: the I/O side
 * writes the stream's last message (the `{ resultType: 'complete' }` response,
 * or the slow-consumer error) and reports `finish.flushed` once it is flushed;
 * a client that never drains it is cut off after `finishTimeout`, the one
 * timer bounding a stream's end on every transport.
 *
 * The machine invokes nothing, so the server can run one per stream by the
 * ten thousand on a lean actor (an emitted command costs nothing per stream;
 * an invoked child costs an actor).
 */
import { assign, emit, setup } from 'xstate';

/**
 * A client that did not keep up: more than `maxPending` distinct events, or
 * more than `maxPendingBytes` of them, were waiting to be written to it;
 * `exceeded` says which.
 */
export interface SlowConsumer {
  type: 'slow_consumer';
  exceeded: 'events' | 'bytes';
  maxPending: number;
  maxPendingBytes: number;
}

/**
 * The client did not read its answers: more than `maxQueuedBytes` of answers and request-scoped notifications (or,
 * on a legacy GET stream, what went on it directly) waited unread on one stdio connection or HTTP stream.
 */
export interface QueueOverflow {
  /** The client did not read what it was sent: the same type as a listen stream's `SlowConsumer`. */
  type: 'slow_consumer';
  /** What passed its bound: the bytes of waiting answers and request-scoped notifications. */
  exceeded: 'queued_bytes';
  /** The bound that was passed (`maxQueuedBytes`). */
  maxQueuedBytes: number;
}

/** How a listen stream ended. */
export type StreamEndReason =
  /** The client cancelled: notifications/cancelled (stdio) or a closed response stream (HTTP). */
  | { type: 'client_cancelled' }
  /** The connection under the stream went away. */
  | { type: 'transport_closed' }
  /** The server ended it on purpose (close(), shutdown) and the graceful completion result was flushed. */
  | { type: 'completed' }
  /** The client did not keep up (see SlowConsumer); the error was flushed. */
  | SlowConsumer
  /** The stream's last message (completion or slow-consumer error) was not flushed within finishTimeout. */
  | { type: 'finish_timeout' };

/** How the server chose to end a stream; what `finish` writes as its last message. */
export type StreamEnding = { type: 'completed' } | SlowConsumer;

/** What the machine asks its I/O to do: write `ending` as the stream's last message and report `finish.flushed`. */
export type ListenStreamCommand = { type: 'finish'; ending: StreamEnding };

/** Facts the I/O side reports to a listen stream. */
export type ListenStreamEvent =
  | { type: 'ack.sent' }
  /** The last message asked for by `finish` was handed to the sink and the sink drained. */
  | { type: 'finish.flushed' }
  | { type: 'client.cancelled' }
  | { type: 'transport.closed' }
  | { type: 'server.complete' }
  | { type: 'overflow'; overflow: SlowConsumer };

/** What a listen-stream actor starts with. */
export interface ListenStreamInput {
  finishTimeoutMs: number;
}

interface Context {
  finishTimeoutMs: number;
  ending: StreamEnding | undefined;
  reason: StreamEndReason | undefined;
}

/** The lifecycle of one server-side listen stream (see the module doc). */
export const listenStreamMachine = setup({
  types: {
    context: {} as Context,
    events: {} as ListenStreamEvent,
    input: {} as ListenStreamInput,
    output: {} as StreamEndReason,
    emitted: {} as ListenStreamCommand,
  },
  delays: {
    finishTimeout: ({ context }) => context.finishTimeoutMs,
  },
  actions: {
    endCancelled: assign({ reason: { type: 'client_cancelled' } }),
    endTransport: assign({ reason: { type: 'transport_closed' } }),
    endCompleted: assign({ reason: { type: 'completed' } }),
    endFinished: assign({ reason: ({ context }) => context.ending }),
    endFinishTimeout: assign({ reason: { type: 'finish_timeout' } }),
    chooseCompletion: assign({ ending: { type: 'completed' } }),
    chooseOverflow: assign({
      ending: ({ context, event }) => (event.type === 'overflow' ? event.overflow : context.ending),
    }),
    askFinish: emit(({ context }) => ({ type: 'finish' as const, ending: context.ending! })),
  },
}).createMachine({
  id: 'listenStream',
  context: ({ input }) => ({ finishTimeoutMs: input.finishTimeoutMs, ending: undefined, reason: undefined }),
  initial: 'acknowledging',
  states: {
    acknowledging: {
      on: {
        'ack.sent': 'open',
        'client.cancelled': { target: 'closed', actions: 'endCancelled' },
        'transport.closed': { target: 'closed', actions: 'endTransport' },
        // Closing before the ack went out: nothing was promised, end at once.
        'server.complete': { target: 'closed', actions: 'endCompleted' },
      },
    },
    open: {
      on: {
        'client.cancelled': { target: 'closed', actions: 'endCancelled' },
        'transport.closed': { target: 'closed', actions: 'endTransport' },
        'server.complete': { target: 'closing', actions: 'chooseCompletion' },
        overflow: { target: 'closing', actions: 'chooseOverflow' },
      },
    },
    closing: {
      entry: 'askFinish',
      after: { finishTimeout: { target: 'closed', actions: 'endFinishTimeout' } },
      on: {
        'finish.flushed': { target: 'closed', actions: 'endFinished' },
        'client.cancelled': { target: 'closed', actions: 'endCancelled' },
        'transport.closed': { target: 'closed', actions: 'endTransport' },
      },
    },
    closed: { type: 'final' },
  },
  output: ({ context }) => context.reason ?? { type: 'transport_closed' },
});

/**
 * One server-side `subscriptions/listen` stream (modern era).
 *
 *   acknowledging ──ack.sent──▶ open ──server.complete──▶ closing ──▶ closed
 *        │                       │                          (finish done or
 *        └──── client.cancelled / transport.closed / overflow ──▶ closed
 *
 * The acknowledgment is written by the I/O side before `ack.sent`; nothing is
 * delivered on the stream until the machine is `open`, so the ack is always the
 * stream's first message. `closing` runs the injected `finish` actor, which
 * writes the `{ resultType: 'complete' }` response and waits for it to flush;
 * a client that never drains it is cut off after `finishTimeout`.
 */
import { assign, fromPromise, setup } from 'xstate';

export type StreamEndReason =
  /** The client cancelled: notifications/cancelled (stdio) or a closed response stream (HTTP). */
  | { type: 'client_cancelled' }
  /** The connection under the stream went away. */
  | { type: 'transport_closed' }
  /** The server ended it on purpose (close(), shutdown) with a graceful completion result. */
  | { type: 'completed' }
  /** The client did not keep up: more than `maxPending` distinct events were waiting. */
  | { type: 'slow_consumer'; maxPending: number };

export type ListenStreamEvent =
  | { type: 'ack.sent' }
  | { type: 'client.cancelled' }
  | { type: 'transport.closed' }
  | { type: 'server.complete' }
  | { type: 'overflow'; maxPending: number };

export interface ListenStreamInput {
  finishTimeoutMs: number;
}

interface Context {
  finishTimeoutMs: number;
  reason: StreamEndReason | undefined;
}

export const listenStreamMachine = setup({
  types: {
    context: {} as Context,
    events: {} as ListenStreamEvent,
    input: {} as ListenStreamInput,
    output: {} as StreamEndReason,
  },
  actors: {
    /** Writes the graceful completion result and resolves once it is flushed; provided by src/server. */
    finish: fromPromise<void, void>(async () => {}),
  },
  delays: {
    finishTimeout: ({ context }) => context.finishTimeoutMs,
  },
  actions: {
    endCancelled: assign({ reason: { type: 'client_cancelled' } }),
    endTransport: assign({ reason: { type: 'transport_closed' } }),
    endCompleted: assign({ reason: { type: 'completed' } }),
    endOverflow: assign({
      reason: ({ event }) => ({
        type: 'slow_consumer' as const,
        maxPending: event.type === 'overflow' ? event.maxPending : 0,
      }),
    }),
  },
}).createMachine({
  id: 'listenStream',
  context: ({ input }) => ({ finishTimeoutMs: input.finishTimeoutMs, reason: undefined }),
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
        'server.complete': 'closing',
        overflow: { target: 'closed', actions: 'endOverflow' },
      },
    },
    closing: {
      invoke: { src: 'finish', onDone: { target: 'closed', actions: 'endCompleted' }, onError: { target: 'closed', actions: 'endTransport' } },
      after: { finishTimeout: { target: 'closed', actions: 'endCompleted' } },
      on: {
        'client.cancelled': { target: 'closed', actions: 'endCancelled' },
        'transport.closed': { target: 'closed', actions: 'endTransport' },
      },
    },
    closed: { type: 'final' },
  },
  output: ({ context }) => context.reason ?? { type: 'transport_closed' },
});

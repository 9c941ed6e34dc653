/**
 * One request the server sends to a legacy-era client on behalf of a handler
 * (`sampling/createMessage`, `elicitation/create`, `roots/list`), from the
 * moment it is written until it is settled.
 *
 *   awaiting ──response.result──▶ settled (answered)
 *      │     ──response.error───▶ settled (refused)
 *      │     ──asker.cancelled──▶ settled (cancelled)   the handler's own request was cancelled
 *      │     ──peer.gone────────▶ settled (peer_gone)   the session or connection ended
 *      └──────── askTimeout ────▶ settled (timed_out)
 *
 * The I/O side writes the request, reports what happens as events, and on
 * `cancelled` or `timed_out` tells the client with `notifications/cancelled`
 * (the output says which, so the glue decides nothing itself).
 */
import { assign, setup } from 'xstate';

/** How a request to the client ended. */
export type ClientRequestOutcome =
  | { type: 'answered'; result: unknown }
  | { type: 'refused'; error: { code: number; message: string; data?: unknown } }
  | { type: 'cancelled'; reason: unknown }
  | { type: 'peer_gone' }
  | { type: 'timed_out'; timeoutMs: number };

/** What the I/O side reports about one request to the client. */
export type ClientRequestEvent =
  | { type: 'response.result'; result: unknown }
  | { type: 'response.error'; error: { code: number; message: string; data?: unknown } }
  | { type: 'asker.cancelled'; reason: unknown }
  | { type: 'peer.gone' };

/** How long the client has to answer. */
export interface ClientRequestInput {
  timeoutMs: number;
}

interface Context {
  timeoutMs: number;
  outcome: ClientRequestOutcome | undefined;
}

export const clientRequestMachine = setup({
  types: {
    context: {} as Context,
    events: {} as ClientRequestEvent,
    input: {} as ClientRequestInput,
    output: {} as ClientRequestOutcome,
  },
  actions: {
    recordAnswer: assign({ outcome: ({ event }) => (event.type === 'response.result' ? { type: 'answered' as const, result: event.result } : undefined) }),
    recordRefusal: assign({ outcome: ({ event }) => (event.type === 'response.error' ? { type: 'refused' as const, error: event.error } : undefined) }),
    recordCancel: assign({ outcome: ({ event }) => (event.type === 'asker.cancelled' ? { type: 'cancelled' as const, reason: event.reason } : undefined) }),
    recordPeerGone: assign({ outcome: { type: 'peer_gone' } as ClientRequestOutcome }),
    recordTimeout: assign({ outcome: ({ context }): ClientRequestOutcome => ({ type: 'timed_out', timeoutMs: context.timeoutMs }) }),
  },
  delays: {
    askTimeout: ({ context }) => context.timeoutMs,
  },
}).createMachine({
  id: 'clientRequest',
  context: ({ input }) => ({ timeoutMs: input.timeoutMs, outcome: undefined }),
  initial: 'awaiting',
  states: {
    awaiting: {
      on: {
        'response.result': { target: 'settled', actions: 'recordAnswer' },
        'response.error': { target: 'settled', actions: 'recordRefusal' },
        'asker.cancelled': { target: 'settled', actions: 'recordCancel' },
        'peer.gone': { target: 'settled', actions: 'recordPeerGone' },
      },
      after: { askTimeout: { target: 'settled', actions: 'recordTimeout' } },
    },
    settled: { type: 'final' },
  },
  output: ({ context }) => context.outcome!,
});

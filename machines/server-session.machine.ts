/**
 * One legacy-era session on the server (a stdio connection opened with
 * `initialize`, or one `Mcp-Session-Id` on Streamable HTTP).
 *
 *   uninitialized ──initialize──▶ initializing ──initialized──▶ initialized
 *          └──────────────── end (any state) ──────────────────▶ closed
 *
 * The negotiated version is chosen here: the requested one when the server
 * supports it, otherwise the latest legacy version. Broadcasts reach a session
 * only in `initialized`; requests other than `initialize` and `ping` are
 * refused in `uninitialized`.
 *
 * A session nobody uses ends by itself (a client may leave without DELETE):
 * in every live state, `sessionIdle` after the last `activity` it closes with
 * `idle_timeout`, but never while something holds it open (`hold` … `release`:
 * an open request or GET stream; a stdio connection holds its session for
 * its whole life). The last `release` starts the idle time afresh.
 *
 * A session that has not completed initialization (`initialized`) within
 * `initializeMs` of its start ends with `initialize_timeout`, holds and
 * activity notwithstanding, so clients that never finish initializing cannot
 * hoard session slots. Without `initializeMs` (stdio: the process is the
 * session) there is no such limit.
 */
import { assign, setup } from 'xstate';
import type { QueueOverflow, SlowConsumer } from './listen-stream.machine.ts';

/** Why the server ended a legacy session; switch on `type`. */
export type SessionEndReason =
  | { type: 'client_deleted' }
  | { type: 'transport_closed' }
  | { type: 'server_shutdown' }
  | SlowConsumer
  /** Its client did not read its legacy GET stream while more than `maxQueuedBytes` went on it directly. */
  | QueueOverflow
  /** Nothing held the session open and no activity came for `idleMs`. */
  | { type: 'idle_timeout'; idleMs: number }
  /** The client did not complete initialization (`notifications/initialized`) within `initializeMs` of the start. */
  | { type: 'initialize_timeout'; initializeMs: number };

export type ServerSessionEvent =
  | { type: 'initialize'; requestedVersion: unknown; clientCapabilities: Record<string, unknown> }
  | { type: 'initialized' }
  | { type: 'end'; reason: SessionEndReason }
  /** Any message from the client: restarts the idle time. */
  | { type: 'activity' }
  /** A request or GET stream opened: the session cannot idle out until it is released. */
  | { type: 'hold' }
  | { type: 'release' };

export interface ServerSessionInput {
  /** Legacy versions this server accepts, oldest first; the last one is the fallback. */
  supportedVersions: readonly string[];
  /** How long an unheld session may go without activity before it ends. */
  idleMs: number;
  /** How long after its start a session may go without completing initialization; undefined: no limit. */
  initializeMs?: number;
}

interface Context {
  supportedVersions: readonly string[];
  idleMs: number;
  initializeMs: number | undefined;
  /** The client confirmed with `initialized`: the initialization limit no longer applies. */
  confirmed: boolean;
  holds: number;
  protocolVersion: string | undefined;
  clientCapabilities: Record<string, unknown>;
  reason: SessionEndReason | undefined;
}

export const serverSessionMachine = setup({
  types: {
    context: {} as Context,
    events: {} as ServerSessionEvent,
    input: {} as ServerSessionInput,
    output: {} as SessionEndReason,
  },
  actions: {
    negotiate: assign(({ context, event }) => {
      if (event.type !== 'initialize') return {};
      const requested = event.requestedVersion;
      const supported = typeof requested === 'string' && context.supportedVersions.includes(requested);
      return {
        protocolVersion: supported ? (requested as string) : context.supportedVersions[context.supportedVersions.length - 1],
        clientCapabilities: event.clientCapabilities,
      };
    }),
    recordEnd: assign({ reason: ({ event }) => (event.type === 'end' ? event.reason : undefined) }),
    recordIdle: assign({ reason: ({ context }) => ({ type: 'idle_timeout' as const, idleMs: context.idleMs }) }),
    recordInitializeTimeout: assign({
      reason: ({ context }) => ({ type: 'initialize_timeout' as const, initializeMs: context.initializeMs ?? 0 }),
    }),
    confirm: assign({ confirmed: true }),
    addHold: assign({ holds: ({ context }) => context.holds + 1 }),
    dropHold: assign({ holds: ({ context }) => Math.max(0, context.holds - 1) }),
  },
  guards: {
    unheld: ({ context }) => context.holds === 0,
    initializationLimited: ({ context }) => context.initializeMs !== undefined && !context.confirmed,
  },
  delays: {
    sessionIdle: ({ context }) => context.idleMs,
    initializeTimeout: ({ context }) => context.initializeMs ?? 0,
  },
}).createMachine({
  id: 'serverSession',
  context: ({ input }) => ({
    supportedVersions: input.supportedVersions,
    idleMs: input.idleMs,
    initializeMs: input.initializeMs,
    confirmed: false,
    holds: 0,
    protocolVersion: undefined,
    clientCapabilities: {},
    reason: undefined,
  }),
  initial: 'uninitialized',
  on: { end: { target: '.closed', actions: 'recordEnd' } },
  // On the root, which activity never re-enters: it counts once, from the start.
  after: {
    initializeTimeout: { guard: 'initializationLimited', target: '.closed', actions: 'recordInitializeTimeout' },
  },
  states: {
    uninitialized: idlesOut('uninitialized', { initialize: { target: 'initializing', actions: 'negotiate' } }),
    // The initialize response went out; the client confirms with notifications/initialized.
    initializing: idlesOut('initializing', { initialized: { target: 'initialized', actions: 'confirm' } }),
    initialized: idlesOut('initialized', {}),
    closed: { type: 'final' },
  },
  output: ({ context }) => context.reason ?? { type: 'transport_closed' },
});

/**
 * A live state with the idle rule: re-entering it (on activity, or on the
 * release of the last hold) restarts its `sessionIdle` timer.
 */
function idlesOut<const S extends string, const T extends Record<string, unknown>>(state: S, transitions: T) {
  return {
    after: { sessionIdle: { guard: 'unheld', target: 'closed', actions: 'recordIdle' } },
    on: {
      ...transitions,
      activity: { target: state, reenter: true },
      hold: { actions: 'addHold' },
      release: { target: state, reenter: true, actions: 'dropHold' },
    },
  } as const;
}

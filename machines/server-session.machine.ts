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
 */
import { assign, setup } from 'xstate';

export type SessionEndReason =
  | { type: 'client_deleted' }
  | { type: 'transport_closed' }
  | { type: 'server_shutdown' }
  | { type: 'slow_consumer'; maxPending: number };

export type ServerSessionEvent =
  | { type: 'initialize'; requestedVersion: unknown; clientCapabilities: Record<string, unknown> }
  | { type: 'initialized' }
  | { type: 'end'; reason: SessionEndReason };

export interface ServerSessionInput {
  /** Legacy versions this server accepts, oldest first; the last one is the fallback. */
  supportedVersions: readonly string[];
}

interface Context {
  supportedVersions: readonly string[];
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
  },
}).createMachine({
  id: 'serverSession',
  context: ({ input }) => ({
    supportedVersions: input.supportedVersions,
    protocolVersion: undefined,
    clientCapabilities: {},
    reason: undefined,
  }),
  initial: 'uninitialized',
  on: { end: { target: '.closed', actions: 'recordEnd' } },
  states: {
    uninitialized: { on: { initialize: { target: 'initializing', actions: 'negotiate' } } },
    // The initialize response went out; the client confirms with notifications/initialized.
    initializing: { on: { initialized: 'initialized' } },
    initialized: {},
    closed: { type: 'final' },
  },
  output: ({ context }) => context.reason ?? { type: 'transport_closed' },
});

/**
 * Era negotiation on one freshly opened transport: which era the server
 * speaks, decided only on evidence.
 *
 *   probing ── discover.modern ──────────────────────────────▶ adopting ─▶ negotiated
 *     eager ── probeTimeout ──▶ initializingUnderEnvelope ── initialize.legacy ──┘
 *     patient ── patience ────┘        └─ initialize.refused ─▶ awaitingDiscover
 *     any ── discover.legacy ─▶ initializing ── initialize.legacy ─▶ adopting
 *   anything unanswered past its patience, a refusal of both eras ─▶ failed
 *
 * The rule: a `server/discover` result is evidence whenever it arrives while
 * the negotiation is undecided (after the probe timeout and before an
 * `initialize` answer too), and an era is adopted only on positive evidence:
 * a discover result listing 2026-07-28 (modern), or an `initialize` result
 * after the server gave legacy evidence or stayed silent (legacy). Silence
 * alone never decides anything:
 *
 * - `eager` (era `auto`, a transport where a legacy server may ignore the
 *   probe, and no modern server seen on this connection before): after the
 *   probe timeout the client also sends `initialize`, while the probe stays
 *   out. That `initialize` goes under the modern envelope, so a dual-era
 *   server that is merely slow takes it as a modern request and refuses it
 *   (its discover answer then decides), while a legacy server ignores the
 *   envelope and answers it.
 * - `patient` (a reconnect to a server that was modern, the era pinned to
 *   modern, or HTTP, where a legacy server answers every POST): the probe
 *   gets an ordinary request's patience before legacy is considered; on
 *   HTTP and when pinned to modern, its silence is a failure, not evidence.
 *
 * The I/O is src/client's: `discover` sends the probe on the modern wire and
 * reports what the answer says (cancelling the probe when the state that
 * sent it is left unanswered); `initialize` sends `initialize` and reports
 * its answer (never cancelled: the legacy lifecycle forbids it); `adopt`
 * switches the wire to the negotiated era (legacy: `notifications/initialized`);
 * `unreadableOutput` reports each line the peer sent that is no JSON-RPC message.
 *
 * A server that refuses the probe with -32022 (unsupported protocol version)
 * while its `supported` list names a modern revision we speak gets the probe
 * once more in that revision (the spec's version-negotiation retry); a second
 * refusal ends the negotiation, so a server that contradicts itself cannot
 * keep us probing.
 *
 * A peer that prints something unreadable while the negotiation is undecided
 * gets one probe timeout more to answer; past it the negotiation fails saying
 * what the peer printed (a server that logs to stdout is misconfigured; a
 * banner before a prompt answer still negotiates).
 */
import { assign, fromCallback, fromPromise, raise, setup } from 'xstate';
import type { Era, EraPreference } from './era.ts';
import { NegotiationError } from './negotiation-errors.ts';
import { messageOf } from './errors.ts';

/** What a successful negotiation learned about the peer. */
export interface Negotiated {
  era: Era;
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: Record<string, unknown> | undefined;
  instructions: string | undefined;
}

/** The connection's negotiation options. */
export interface NegotiationSettings {
  era: EraPreference;
  /** How long an eager probe waits alone before `initialize` is sent beside it. */
  probeTimeoutMs: number;
  /** An ordinary request's patience: how long any one step waits for an answer. */
  patienceMs: number;
}

export interface NegotiationInput extends NegotiationSettings {
  /** The era this connection negotiated last, before the transport was lost; undefined on first contact. */
  previousEra: Era | undefined;
  /** Whether a legacy server on this transport may leave the probe unanswered (stdio); HTTP answers every POST. */
  silenceMayMeanLegacy: boolean;
}

export type NegotiationOutput = { type: 'negotiated'; negotiated: Negotiated } | { type: 'failed'; error: unknown };

/** What the I/O reports of the `server/discover` probe's answer. */
export type DiscoverEvent =
  | { type: 'discover.modern'; negotiated: Negotiated }
  /** An answer a legacy server gives: a non-modern error, or a result listing no 2026-07-28. */
  | { type: 'discover.legacy'; evidence: string }
  /** Neither: authentication, network, a modern refusal. Not evidence, an error. */
  | { type: 'discover.failed'; error: unknown }
  /** -32022 whose `supported` list names `retryWith`, a modern revision we speak: worth one more probe in it. */
  | { type: 'discover.versionRefused'; retryWith: string; error: unknown };

/** What the I/O reports of the `initialize` answer. */
export type InitializeEvent =
  | { type: 'initialize.legacy'; negotiated: Negotiated }
  /** A JSON-RPC error: the server does not take this as a legacy handshake. */
  | { type: 'initialize.refused'; error: unknown }
  /** A result in no legacy version, a lost transport. */
  | { type: 'initialize.failed'; error: unknown };

/** What the I/O reports of the peer's output: a line that is no JSON-RPC message (`sample`: its start). */
export type OutputEvent = { type: 'peer.unreadable'; sample: string };

export type NegotiationEvent = DiscoverEvent | InitializeEvent | OutputEvent | { type: 'unreadable.deadline' };

export interface NegotiationContext extends NegotiationInput {
  negotiated: Negotiated | undefined;
  failure: unknown;
  /** What the probe's legacy answer said, if it gave one while `initialize` was out. */
  legacyEvidence: string | undefined;
  /** Whether an `initialize` went out, for the failure message. */
  initializeSent: boolean;
  /** The first unreadable line the peer printed, if any. */
  unreadable: string | undefined;
  /** The revision the probe asks in: undefined until a -32022 named another one (the wire's default modern revision). */
  probeVersion: string | undefined;
  /** Probes repeated after a -32022 (at most one). */
  versionRetries: number;
}

export const negotiationMachine = setup({
  types: {
    context: {} as NegotiationContext,
    events: {} as NegotiationEvent,
    input: {} as NegotiationInput,
    output: {} as NegotiationOutput,
  },
  actors: {
    /** Sends `server/discover` on the modern wire and reports its answer; cancels it if stopped unanswered. */
    discover: fromCallback<{ type: 'never' }, { version: string | undefined }>(() => () => {}),
    /** Sends `initialize` (under the modern envelope while the probe is out) and reports its answer. */
    initialize: fromCallback<{ type: 'never' }, { underModernEnvelope: boolean }>(() => () => {}),
    /** Switches the wire to the negotiated era; legacy: sends `notifications/initialized`. */
    adopt: fromPromise<void, Negotiated>(async () => {
      throw new Error('adopt is provided by src/client');
    }),
    /** Reports every line the peer sends that is not a JSON-RPC message, as `peer.unreadable`. */
    unreadableOutput: fromCallback<{ type: 'never' }>(() => () => {}),
  },
  guards: {
    pinnedLegacy: ({ context }) => context.era === 'legacy',
    pinnedModern: ({ context }) => context.era === 'modern',
    eager: ({ context }) => context.era === 'auto' && context.silenceMayMeanLegacy && context.previousEra !== 'modern',
    silenceMayMeanLegacy: ({ context }) => context.era === 'auto' && context.silenceMayMeanLegacy,
    legacyEvidenceSeen: ({ context }) => context.legacyEvidence !== undefined,
    firstUnreadableWhileUndecided: ({ context }) => context.unreadable === undefined && context.negotiated === undefined,
    undecided: ({ context }) => context.negotiated === undefined,
    mayRetryVersion: ({ context }) => context.versionRetries < 1,
  },
  delays: {
    probeTimeout: ({ context }) => context.probeTimeoutMs,
    patience: ({ context }) => context.patienceMs,
  },
  actions: {
    recordNegotiated: assign({
      negotiated: ({ context, event }) => ('negotiated' in event ? event.negotiated : context.negotiated),
    }),
    recordLegacyEvidence: assign({
      legacyEvidence: ({ context, event }) => (event.type === 'discover.legacy' ? event.evidence : context.legacyEvidence),
    }),
    noteInitializeSent: assign({ initializeSent: true }),
    retryInRefusedVersion: assign({
      probeVersion: ({ context, event }) => (event.type === 'discover.versionRefused' ? event.retryWith : context.probeVersion),
      versionRetries: ({ context }) => context.versionRetries + 1,
    }),
    failVersionRefused: assign({
      failure: ({ event }) =>
        new NegotiationError(`the server lists ${event.type === 'discover.versionRefused' ? event.retryWith : 'a version we speak'} yet refused it again`, {
          cause: 'error' in event ? event.error : undefined,
        }),
    }),
    recordUnreadable: assign({ unreadable: ({ context, event }) => (event.type === 'peer.unreadable' ? event.sample : context.unreadable) }),
    startUnreadableDeadline: raise({ type: 'unreadable.deadline' }, { delay: 'probeTimeout' }),
    failUnreadable: assign({
      failure: ({ context }) =>
        new NegotiationError(`the server printed something that is not JSON-RPC instead of answering: ${JSON.stringify(context.unreadable)}`),
    }),
    recordFailure: assign({ failure: ({ event }) => ('error' in event ? event.error : event) }),
    failPinnedModern: assign({
      failure: ({ event }) =>
        new NegotiationError(`era pinned to modern, but the server is legacy (${event.type === 'discover.legacy' ? event.evidence : event.type})`),
    }),
    failUnanswered: assign({
      failure: ({ context }) =>
        new NegotiationError(`no answer to ${context.initializeSent ? 'server/discover or initialize' : 'server/discover'} within ${context.patienceMs} ms`),
    }),
    failNeitherEra: assign({
      failure: ({ event }) =>
        new NegotiationError(`the server speaks neither era: initialize failed with ${'error' in event ? messageOf(event.error) : event.type}`, {
          cause: 'error' in event ? event.error : undefined,
        }),
    }),
  },
}).createMachine({
  id: 'negotiation',
  context: ({ input }) => ({
    ...input,
    negotiated: undefined,
    failure: undefined,
    legacyEvidence: undefined,
    initializeSent: false,
    unreadable: undefined,
    probeVersion: undefined,
    versionRetries: 0,
  }),
  invoke: { src: 'unreadableOutput' },
  on: {
    'peer.unreadable': { guard: 'firstUnreadableWhileUndecided', actions: ['recordUnreadable', 'startUnreadableDeadline'] },
    'unreadable.deadline': { guard: 'undecided', target: '.failed', actions: 'failUnreadable' },
  },
  initial: 'choosing',
  states: {
    choosing: {
      always: [{ guard: 'pinnedLegacy', target: 'initializing' }, { target: 'probing' }],
    },
    probing: {
      invoke: { src: 'discover', input: ({ context }) => ({ version: context.probeVersion }) },
      initial: 'choosing',
      on: {
        'discover.modern': { target: 'adopting', actions: 'recordNegotiated' },
        'discover.failed': { target: 'failed', actions: 'recordFailure' },
        // Re-entering restarts the probe (and its timers) in the revision the server named.
        'discover.versionRefused': [
          { guard: 'mayRetryVersion', target: 'probing', reenter: true, actions: 'retryInRefusedVersion' },
          { target: 'failed', actions: 'failVersionRefused' },
        ],
        'discover.legacy': [
          { guard: 'pinnedModern', target: 'failed', actions: 'failPinnedModern' },
          { target: 'initializing', actions: 'recordLegacyEvidence' },
        ],
      },
      states: {
        choosing: {
          always: [{ guard: 'eager', target: 'eager' }, { target: 'patient' }],
        },
        eager: {
          after: { probeTimeout: 'initializingUnderEnvelope' },
        },
        patient: {
          after: {
            patience: [
              { guard: 'silenceMayMeanLegacy', target: 'initializingUnderEnvelope' },
              { target: '#negotiation.failed', actions: 'failUnanswered' },
            ],
          },
        },
        /** The probe is still out; so is an `initialize` under the modern envelope. The first positive answer decides. */
        initializingUnderEnvelope: {
          entry: 'noteInitializeSent',
          invoke: { src: 'initialize', input: { underModernEnvelope: true } },
          after: { patience: { target: '#negotiation.failed', actions: 'failUnanswered' } },
          on: {
            'initialize.legacy': { target: '#negotiation.adopting', actions: 'recordNegotiated' },
            'initialize.refused': [{ guard: 'legacyEvidenceSeen', target: '#negotiation.initializing' }, { target: 'awaitingDiscover' }],
            'initialize.failed': { target: '#negotiation.failed', actions: 'recordFailure' },
            // The initialize already out answers first; a refusal of it then asks again, plainly.
            'discover.legacy': { actions: 'recordLegacyEvidence' },
          },
        },
        /** A slow modern server refused the enveloped `initialize` (or a legacy one took it for modern): the probe decides. */
        awaitingDiscover: {
          after: { patience: { target: '#negotiation.failed', actions: 'failUnanswered' } },
        },
      },
    },
    /** Legacy evidence, or the era pinned to legacy: a plain `initialize`. */
    initializing: {
      entry: 'noteInitializeSent',
      invoke: { src: 'initialize', input: { underModernEnvelope: false } },
      after: { patience: { target: 'failed', actions: 'failUnanswered' } },
      on: {
        'initialize.legacy': { target: 'adopting', actions: 'recordNegotiated' },
        'initialize.refused': { target: 'failed', actions: 'failNeitherEra' },
        'initialize.failed': { target: 'failed', actions: 'recordFailure' },
      },
    },
    adopting: {
      invoke: {
        src: 'adopt',
        input: ({ context }) => context.negotiated as Negotiated,
        onDone: 'negotiated',
        onError: { target: 'failed', actions: 'recordFailure' },
      },
    },
    negotiated: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) =>
    context.failure !== undefined || context.negotiated === undefined
      ? { type: 'failed', error: context.failure }
      : { type: 'negotiated', negotiated: context.negotiated },
});

export type NegotiationMachine = typeof negotiationMachine;

/**
 * What the connection machine (connection.machine.ts) takes in and tells
 * out: its input and context, the facts src/client reports to it, and the
 * lifecycle events it announces to its owner and sends to its children.
 */
import type { ConnectionClosedReason } from './closed-reason.ts';
import type { Era } from './era.ts';
import type { Backoff } from './backoff.ts';
import type { RequestId } from './request-id.ts';
import type { Negotiated, NegotiationSettings } from './negotiation.machine.ts';

/**
 * What a failed first connect does: `fail` reports `connection.failed` at once
 * (a service learns of a wrong address immediately); `retry` retries with the
 * reconnect backoff and reports `connection.failed` only when its attempts are
 * spent (a watcher started before its server).
 */
export type FirstConnectPolicy = 'fail' | 'retry';

/** What the connection machine is started with. */
export interface ConnectionInput {
  /** `false` disables reconnection: a lost transport closes the connection. */
  backoff: Backoff | false;
  /** Default `fail`; `retry` needs `backoff`. */
  firstConnect?: FirstConnectPolicy;
  /** A number in [0, 1) for jitter; injected so tests are deterministic. */
  random: () => number;
  /** The era preference and the timeouts every negotiation uses (machines/negotiation.machine.ts). */
  negotiation: NegotiationSettings;
}

/** The connection machine's context. */
export interface ConnectionContext {
  backoff: Backoff | false;
  firstConnect: FirstConnectPolicy;
  random: () => number;
  negotiation: NegotiationSettings;
  /** What the open transport said: whether a legacy server on it may leave the probe unanswered. */
  silenceMayMeanLegacy: boolean;
  /** Connection attempts since the transport was last lost (0 while connected). */
  attempt: number;
  /**
   * Readies in a row that did not last `maxDelayMs`, this one included while it is young: each lengthens the next
   * reconnect's delay as one more attempt would, so a server that fails right after connecting is reconnected ever
   * less often (up to `maxDelayMs` apart), not a few times a second. 0 once a ready lasted.
   */
  quickReadies: number;
  nextDelayMs: number;
  /** Successful negotiations so far; 0 until the first. */
  generation: number;
  negotiated: Negotiated | undefined;
  /** Why the last attempt or the transport failed. */
  lastCause: unknown;
  closedReason: ConnectionClosedReason | undefined;
  /** Listen streams that ended unanswered while ready, awaiting the liveness verdict (non-empty while a probe runs). */
  endedUnanswered: EndedUnanswered[];
}

/** A listen stream that ended with no answer, and how it ended. */
export interface EndedUnanswered {
  id: RequestId;
  cause: unknown;
}

/** What the transport actor reports. */
export type TransportNotice =
  /** `silenceMayMeanLegacy`: a legacy server on this transport may ignore the probe (stdio); HTTP answers every POST. */
  | { type: 'transport.opened'; silenceMayMeanLegacy: boolean }
  | { type: 'transport.failed'; cause: unknown };

/** What src/ reports for the liveness verdict: a stream's unanswered end, and what the probe of the peer showed. */
export type LivenessNotice =
  | ({ type: 'listen.ended_unanswered' } & EndedUnanswered)
  /** The peer answered the probe (a result or an error response): it is there. */
  | { type: 'probe.answered' }
  /** The probe could not be answered: the transport failed under it. */
  | { type: 'probe.failed'; cause: unknown };

/** Every event the connection machine accepts. */
export type ConnectionEvent =
  | { type: 'connect' }
  | { type: 'disconnect' }
  | { type: 'shutdown'; cause: unknown }
  | TransportNotice
  | LivenessNotice
  /** Raised by the machine itself, on its clock, when the probe has gone unanswered for the probe timeout. */
  | { type: 'probe.timed_out' }
  /** Sent by the machine to itself when it is ready: now its children hear it, the watchers having heard it first. */
  | { type: 'ready.tell_children'; generation: number; membersEnding: boolean };

/** The lifecycle facts the actors built on a connection (streams, listeners, the cache) react to. */
export type ConnectionLifecycleEvent =
  /** Negotiated (first time or after a reconnect); `generation` grows by one per successful negotiation. */
  | { type: 'connection.ready'; era: Era; generation: number }
  /** The transport dropped; the connection is reconnecting. */
  | { type: 'connection.lost'; cause: unknown }
  /** A reconnect negotiated the other era. Sent before the matching `connection.ready`. */
  | { type: 'connection.era_changed'; from: Era; to: Era }
  /** The connection ended for good. */
  | { type: 'connection.closed'; reason: ConnectionClosedReason };

const LIFECYCLE_TYPES: ReadonlySet<string> = new Set(['connection.ready', 'connection.lost', 'connection.era_changed', 'connection.closed']);

/** Whether an event the connection emitted is one of its lifecycle facts. */
export const isLifecycleEvent = <E extends { type: string }>(event: E): event is E & ConnectionLifecycleEvent =>
  LIFECYCLE_TYPES.has(event.type);

/** Everything the connection emits: the lifecycle facts plus what only its owner and users see. */
export type ConnectionEmitted =
  | (Extract<ConnectionLifecycleEvent, { type: 'connection.ready' }> & { negotiated: Negotiated })
  | Exclude<ConnectionLifecycleEvent, { type: 'connection.ready' }>
  /**
   * `attempt` counts failed attempts in a row (what `maxAttempts` bounds); `quickReadies`, the connections before it
   * that were lost within `maxDelayMs` of being ready (0 after one that lasted): a crash loop shows there.
   */
  | { type: 'connection.reconnecting'; attempt: number; quickReadies: number; delayMs: number; cause: unknown }
  | { type: 'connection.failed'; cause: unknown };

/** The liveness verdict for one stream, for the connection's owner only: it ended alone, and the transport stays. */
export type StreamVerdict = { type: 'listen.ended_alone' } & EndedUnanswered;

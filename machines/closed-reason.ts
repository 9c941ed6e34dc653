/**
 * One vocabulary for why a stream, a listener or a connection ended, in both
 * eras. Reasons are data to switch on, never strings to parse.
 */
import type { Era } from './era.ts';

/** Why a listen stream, a listener or a connection ended, in both eras; switch on `type`. */
export type ClosedReason =
  /** The owner closed it. */
  | { type: 'local' }
  /** The server answered the listen request: a clean end. */
  | { type: 'graceful' }
  /** The server cancelled it, or the stream ended with no answer while reconnection is off. */
  | { type: 'remote'; cause?: unknown }
  /** The server answered with an error. */
  | { type: 'refused'; error: unknown }
  /** The server broke the protocol on an open stream (a second acknowledgment malformed or broader than the honored filter); the client ended it. */
  | { type: 'protocol_violation'; error: unknown }
  /** A delivery was shed at the mailbox cap. */
  | { type: 'delivery_dropped'; cap: number }
  | { type: 'reconnect_exhausted'; cause: unknown; attempts: number }
  /** The transport closed and reconnection is disabled. */
  | { type: 'transport_closed'; cause: unknown }
  /** A reconnect landed on a peer of the other era. */
  | { type: 'era_changed'; era: Era }
  /** The client disconnected. */
  | { type: 'disconnected' }
  | { type: 'shutdown'; cause: unknown };

/** The reasons a connection (rather than one stream or listener) can end with: `McpClient.closed` resolves with one. */
export type ConnectionClosedReason = Extract<
  ClosedReason,
  { type: 'disconnected' | 'transport_closed' | 'reconnect_exhausted' | 'shutdown' }
>;

/**
 * The one small interface every client transport implements. A transport
 * moves frames; it knows nothing of requests, eras or lifecycles beyond the
 * protocol it is told to speak. A new instance is made for every connection
 * attempt, so a transport is started once and closed once.
 */
import type { ClassifiedFrame, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.ts';
import { PeerNotReadingError, UnserializableMessageError, type StreamEndedError } from '../protocol/errors.ts';
import type { Era } from '../protocol/versions.ts';

/** Frames above this many characters are refused with a FrameError (`oversized`). */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * A server request that arrives while more than this many bytes written to
 * the server are unread drops the transport with PeerNotReadingError: the
 * answers are the one thing a peer can make the client write, so they bound
 * what it can make the client hold.
 */
export const DEFAULT_MAX_BACKLOG_BYTES = 8 * 1024 * 1024;

/** `message` as JSON text; UnserializableMessageError when JSON cannot carry it (a BigInt, a cycle). */
export function serializeMessage(message: JsonRpcMessage): string {
  try {
    return JSON.stringify(message);
  } catch (cause) {
    throw new UnserializableMessageError('method' in message ? message.method : undefined, cause);
  }
}

/** Why an inbound frame ends the transport: a server request met with more than `maxBacklogBytes` unread; otherwise undefined. */
export const unreadBacklog = (frame: ClassifiedFrame, backlogBytes: number, maxBacklogBytes: number): PeerNotReadingError | undefined =>
  frame.kind === 'request' && backlogBytes > maxBacklogBytes ? new PeerNotReadingError(backlogBytes, maxBacklogBytes) : undefined;

/** Which kind of channel a transport is: `memory` is the in-memory linked pair (in-memory.ts). */
export type TransportKind = 'stdio' | 'http' | 'memory' | 'custom';

/** Why a transport stopped. */
export type TransportClosedInfo =
  | { type: 'exited'; code: number | null; signal: string | null }
  | { type: 'ended' }
  | { type: 'failed'; cause: unknown }
  | { type: 'closed_locally' };

export interface TransportEvents {
  /** One inbound frame, classified; `invalid` frames are reported here too and never end the transport. */
  frame(frame: ClassifiedFrame): void;
  /** A request's own response stream ended without a response (HTTP, one stream per request). */
  requestStreamEnded(id: RequestId, error: StreamEndedError): void;
  /** A keep-alive (an SSE comment) arrived on a request's own response stream: the path to the server is alive. */
  keepAlive(id: RequestId): void;
  /** The transport is gone for good. Called at most once, and not after `close()` resolved. */
  closed(info: TransportClosedInfo): void;
  /** Trouble that does not end the transport (a failed GET stream, a stray write error). */
  error(error: Error): void;
}

/** One connection's channel to a server, as the client drives it: start, send, close; what arrives is reported through TransportEvents. Implement it for a channel the package does not ship. */
export interface ClientTransport {
  /** Which transport it is (`stdio`, `http`, `memory`, `custom`), for logs and the inspector. */
  readonly kind: TransportKind;
  /** Opens the channel; rejects with TransportStartError when it cannot. */
  start(events: TransportEvents): Promise<void>;
  /** Sends one message; rejects (HttpStatusError, a network error) when it cannot be delivered. */
  send(message: JsonRpcMessage): Promise<void>;
  /**
   * Ends the response stream of one in-flight request from this side, on
   * transports that give each request its own stream. Returns false where
   * there is none (stdio), so the caller sends `notifications/cancelled`.
   */
  abortRequest(id: RequestId): boolean;
  /** The negotiated protocol, for transports whose framing depends on it (HTTP headers, sessions). */
  setProtocol(protocol: { era: Era; version: string }): void;
  /** Closes the channel; the transport reports nothing afterwards. */
  close(): Promise<void>;
}

/** Makes a fresh transport for each connection attempt. */
export type TransportFactory = () => ClientTransport;

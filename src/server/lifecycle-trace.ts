/**
 * When legacy sessions and modern listen streams open and end, and why, on `node:diagnostics_channel`, so an
 * operator can log or count what the server shed (a slow client's `slow_consumer`), idled out or completed. Two
 * plain channels: `mcp-actors:server:session` (SERVER_SESSION_CHANNEL) publishes a `ServerSessionTrace` as each
 * legacy session opens and ends, `mcp-actors:server:stream` (SERVER_STREAM_CHANNEL) a `ServerStreamTrace` as each
 * listen stream does, on every transport. Each is published from the one place its lifecycle ends (the server
 * core, told first). While nothing subscribes nothing is built: a session or stream costs one check.
 *
 * A subscriber that throws does not stop the server: node runs the other subscribers, and reports the error as
 * an `uncaughtException` on the next tick, as for any diagnostics channel (the request channel's too).
 */
import { channel } from 'node:diagnostics_channel';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type { SessionEndReason } from './legacy-session.ts';
import type { StreamEndReason } from './listen-stream.ts';

/** The name of the channel of legacy sessions' lifecycles. */
export const SERVER_SESSION_CHANNEL = 'mcp-actors:server:session';

/** The name of the channel of listen streams' lifecycles. */
export const SERVER_STREAM_CHANNEL = 'mcp-actors:server:stream';

/** The transport a session or stream is served on: `listenHttp`, `nodeHandler` and `fetchHandler` are all `http`. */
export type ServerTransport = 'http' | 'stdio';

/** What every message of the session channel says of its session. */
interface SessionFacts {
  /** The `Mcp-Session-Id` over HTTP; `stdio` for a stdio connection's session (the process is the session). */
  readonly sessionId: string;
  /** Always `legacy`: only the legacy era has sessions. */
  readonly era: 'legacy';
  /** What serves the session. */
  readonly transport: ServerTransport;
}

/**
 * What the session channel publishes: `opened` when a session starts (over HTTP, at its `initialize`; over stdio,
 * at the connection's first legacy request), `ended` once, with why. A stdio connection's own end (input ended,
 * output failed, `maxQueuedBytes`) is its handle's `closedReason`; its session then ends `transport_closed`.
 */
export type ServerSessionTrace = (SessionFacts & { readonly event: 'opened' }) | (SessionFacts & { readonly event: 'ended'; readonly reason: SessionEndReason });

/** What every message of the stream channel says of its stream. */
interface StreamFacts {
  /** The `subscriptions/listen` request's id, which tags each of its events as `_meta['io.modelcontextprotocol/subscriptionId']`. */
  readonly subscriptionId: RequestId;
  /** What serves the stream. */
  readonly transport: ServerTransport;
  /** The filter the server honored (what its acknowledgment told the client). */
  readonly honored: NotificationFilter;
}

/**
 * What the stream channel publishes: `opened` once a stream is acknowledged, `ended` once, with why. A modern
 * stream belongs to no session, so there is no `sessionId`.
 */
export type ServerStreamTrace = (StreamFacts & { readonly event: 'opened' }) | (StreamFacts & { readonly event: 'ended'; readonly reason: StreamEndReason });

const sessions = channel(SERVER_SESSION_CHANNEL);
const streams = channel(SERVER_STREAM_CHANNEL);

/** Publishes a session's start, when anyone subscribes. */
export function traceSessionOpened(sessionId: string, transport: ServerTransport): void {
  if (!sessions.hasSubscribers) return;
  const trace: ServerSessionTrace = { event: 'opened', sessionId, era: 'legacy', transport };
  sessions.publish(trace);
}

/** Publishes a session's end, when anyone subscribes. */
export function traceSessionEnded(sessionId: string, transport: ServerTransport, reason: SessionEndReason): void {
  if (!sessions.hasSubscribers) return;
  const trace: ServerSessionTrace = { event: 'ended', sessionId, era: 'legacy', transport, reason };
  sessions.publish(trace);
}

/** What the stream channel reads of a stream. */
interface TracedStream {
  readonly id: RequestId;
  readonly transport: ServerTransport;
  readonly honored: NotificationFilter;
}

/** Publishes a stream's start, when anyone subscribes. */
export function traceStreamOpened(stream: TracedStream): void {
  if (!streams.hasSubscribers) return;
  const trace: ServerStreamTrace = { event: 'opened', subscriptionId: stream.id, transport: stream.transport, honored: stream.honored };
  streams.publish(trace);
}

/** Publishes a stream's end, when anyone subscribes. */
export function traceStreamEnded(stream: TracedStream, reason: StreamEndReason): void {
  if (!streams.hasSubscribers) return;
  const trace: ServerStreamTrace = { event: 'ended', subscriptionId: stream.id, transport: stream.transport, honored: stream.honored, reason };
  streams.publish(trace);
}

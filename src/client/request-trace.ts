/**
 * The requests a client sends, on `node:diagnostics_channel`, as the server's are (src/server/request-trace.ts):
 * the tracing channel `mcp-actors:client:request` (CLIENT_REQUEST_CHANNEL) publishes `start` when a request is
 * sent and `asyncEnd` once it settled, with one `ClientRequestTrace`, to which node adds the `result` or the
 * `error` (a RequestTimeoutError, an RpcError, …; `error` is published too). Every request made through the client
 * counts (each page of `listTools`, each retry of an input-required round); the connection's own (`server/discover`,
 * `initialize`, liveness pings) do not. Nothing is published while no one subscribes.
 *
 * A `start` subscriber propagates context the way OpenTelemetry's undici instrumentation adds headers: the keys it
 * puts in the trace's `meta` (a `traceparent` for the span it opened) go into the request's `_meta`.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import type { Era } from '../../machines/era.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { JsonValue } from '../protocol/mcp-types.ts';

/** The name of the tracing channel (its channels are `tracing:mcp-actors:client:request:start` and so on). */
export const CLIENT_REQUEST_CHANNEL = 'mcp-actors:client:request';

/** What the channel says of one request. */
export interface ClientRequestTrace {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The era of the connection it was sent on. */
  readonly era: Era | undefined;
  /**
   * Keys a `start` subscriber adds to the request's `_meta`, e.g. `traceparent`; the caller's own
   * (`RequestOptions.meta`) win over them, and they are checked as those are (InvalidRequestMetaError).
   */
  readonly meta: Record<string, JsonValue>;
  /** Set by node on `asyncEnd`: the result. */
  result?: JsonObject;
  /** Set by node on `error` and `asyncEnd`: why the request failed. */
  error?: unknown;
}

const channel = tracingChannel<object, ClientRequestTrace>(CLIENT_REQUEST_CHANNEL);

/**
 * Sends a request through `send`, published on the channel when anyone subscribes; `send` gets the `_meta` keys the
 * `start` subscribers added (none when nobody subscribes).
 */
export function traceClientRequest(
  method: string,
  era: Era | undefined,
  send: (traced: Readonly<Record<string, JsonValue>>) => Promise<JsonObject>,
): Promise<JsonObject> {
  if (!channel.hasSubscribers) return send(NONE);
  const trace: ClientRequestTrace = { method, era, meta: {} };
  return channel.tracePromise(() => send(trace.meta), trace);
}

const NONE: Readonly<Record<string, JsonValue>> = Object.freeze({});

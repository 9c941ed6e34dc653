/**
 * The requests a client sends, on `node:diagnostics_channel`, as the server's are (src/server/request-trace.ts):
 * the tracing channel `mcp-actors:client:request` (CLIENT_REQUEST_CHANNEL) publishes `start` when a request is
 * sent and `asyncEnd` once it settled, with one `ClientRequestTrace`, to which node adds the `result` or the
 * `error` (a RequestTimeoutError, an RpcError, …; `error` is published too). Every request made through the client
 * counts (each page of `listTools`, each retry of an input-required round); the connection's own (`server/discover`,
 * `initialize`, liveness pings) do not. Nothing is published while no one subscribes.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import type { Era } from '../../machines/era.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/** The name of the tracing channel (its channels are `tracing:mcp-actors:client:request:start` and so on). */
export const CLIENT_REQUEST_CHANNEL = 'mcp-actors:client:request';

/** What the channel says of one request. */
export interface ClientRequestTrace {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The era of the connection it was sent on. */
  readonly era: Era | undefined;
  /** Set by node on `asyncEnd`: the result. */
  result?: JsonObject;
  /** Set by node on `error` and `asyncEnd`: why the request failed. */
  error?: unknown;
}

const channel = tracingChannel<object, ClientRequestTrace>(CLIENT_REQUEST_CHANNEL);

/** Sends a request through `send`, published on the channel when anyone subscribes. */
export function traceClientRequest(method: string, era: Era | undefined, send: () => Promise<JsonObject>): Promise<JsonObject> {
  if (!channel.hasSubscribers) return send();
  return channel.tracePromise(send, { method, era });
}

/**
 * The requests a server answers, on `node:diagnostics_channel`, for logs, metrics and tracing: APMs and
 * OpenTelemetry subscribe to such channels, as they do to undici's. The tracing channel
 * `mcp-actors:server:request` (SERVER_REQUEST_CHANNEL) publishes `start` as a request's answering begins and
 * `asyncEnd` once its outcome is known, both with one `ServerRequestTrace` (the same object, so a subscriber can
 * keep a span or a start time on it), in both eras, on every transport. While nothing subscribes, nothing is
 * published and a request costs one check.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import type { Era } from '../../machines/era.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import { callerMeta } from '../protocol/request-meta.ts';
import type { WireError } from './errors.ts';
import type { Outcome } from './outcome.ts';

/** The name of the tracing channel (its channels are `tracing:mcp-actors:server:request:start` and so on). */
export const SERVER_REQUEST_CHANNEL = 'mcp-actors:server:request';

/** What the channel says of one request. */
export interface ServerRequestTrace {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The request's id, as its client sent it. */
  readonly requestId: RequestId;
  /** The era the request was answered in. */
  readonly era: Era;
  /** The tool a `tools/call` names, the prompt a `prompts/get` names, the URI a `resources/read` names. */
  readonly target?: string;
  /**
   * The request's `_meta` as a handler sees it (`context.meta`): where a `start` subscriber finds the client's
   * trace context (`traceparent`, `tracestate`, `baggage`) to continue its trace.
   */
  readonly meta: Readonly<JsonObject>;
  /** Set by `asyncEnd`: answered with a result, or with an error. */
  outcome?: 'result' | 'error';
  /** Set by `asyncEnd` when the outcome is an error: the error answered (its `rpcCode`, `message`, `data`). */
  error?: WireError;
}

const channel = tracingChannel<object, ServerRequestTrace>(SERVER_REQUEST_CHANNEL);

/** What a request names: the tool, prompt or resource it is about. */
function targetOf(method: string, params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const value = method === 'resources/read' ? (params as { uri?: unknown }).uri : method === 'tools/call' || method === 'prompts/get' ? (params as { name?: unknown }).name : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Answers a request through `answer`, published on the channel when anyone subscribes. */
export function traceRequest(
  request: { method: string; id: RequestId; params?: unknown },
  era: Era,
  answer: () => Promise<Outcome>,
): Promise<Outcome> {
  if (!channel.hasSubscribers) return answer();
  const target = targetOf(request.method, request.params);
  const trace: ServerRequestTrace = {
    method: request.method,
    requestId: request.id,
    era,
    meta: callerMeta((request.params as { _meta?: unknown } | null | undefined)?._meta),
    ...(target === undefined ? {} : { target }),
  };
  return channel.tracePromise(async () => {
    const outcome = await answer();
    trace.outcome = outcome.kind === 'error' ? 'error' : 'result';
    if (outcome.kind === 'error') trace.error = outcome.error;
    return outcome;
  }, trace);
}

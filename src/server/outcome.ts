/** What answering one request came to, for the transport to write. */
import { messageOf } from '../../machines/errors.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { FrameError, JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import { InternalFailure, InvalidRequestError, ParseFailure, type WireError } from './errors.ts';

export type Outcome =
  | { kind: 'result'; result: JsonObject }
  | { kind: 'error'; error: WireError }
  /** A valid `subscriptions/listen`: the transport opens the stream with this honored filter. */
  | { kind: 'listen'; honored: NotificationFilter };

/**
 * The response frame of a result. A result JSON cannot carry (a handler returned a BigInt or a cycle) is answered
 * with -32603 saying so instead: thrown here, it would end the process the server runs in, every client with it.
 */
export function resultFrame(id: RequestId, result: JsonObject): string {
  try {
    return JSON.stringify({ jsonrpc: '2.0', id, result });
  } catch (cause) {
    return errorFrame(id, new InternalFailure(`Internal error: the result cannot be sent as JSON: ${messageOf(cause)}`, { cause }));
  }
}

/** The response frame of an error; one whose `data` JSON cannot carry goes without its `data`. */
export function errorFrame(id: RequestId | null, error: WireError): string {
  const body = error.toJson();
  try {
    return JSON.stringify({ jsonrpc: '2.0', id, error: body });
  } catch {
    return JSON.stringify({ jsonrpc: '2.0', id, error: { code: body.code, message: String(body.message) } });
  }
}

/** The error frame refusing a message that could not be read: -32700 when it is not JSON, else -32600, under its id when it names one. */
export function refusalFrame(error: FrameError): string {
  const refusal = error.problem === 'unparseable' ? new ParseFailure(`Parse error: ${error.message}`) : new InvalidRequestError(`Invalid request: ${error.message}`);
  return errorFrame(error.requestId ?? null, refusal);
}

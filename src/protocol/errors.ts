/**
 * One error class per condition, each with a fixed `name`, a stable `code`
 * and, where there is one, a `cause`. `RpcError` (with its
 * UrlElicitationRequiredError) is the only class that carries an error the
 * peer sent; every other class is a local failure.
 */
import { isMcpActorsError, McpActorsError, messageOf } from '../../machines/errors.ts';
import type { ElicitUrlParams } from './client-request-shapes.ts';
import type { JsonRpcErrorObject, JsonRpcResponse, RequestId } from './jsonrpc.ts';
import { retryAfterOf } from './retry-after.ts';
import { describeValue } from './shape-check.ts';

export { isMcpActorsError, McpActorsError };
export { NegotiationError } from '../../machines/negotiation-errors.ts';

/** A JSON-RPC error object returned by the peer. */
export class RpcError extends McpActorsError {
  // A string, not the literal: UrlElicitationRequiredError is an RpcError of its own name.
  override readonly name: string = 'RpcError';
  readonly code = 'rpc_error';
  /** The JSON-RPC error code the peer sent (e.g. -32602). */
  readonly rpcCode: number;
  /** The error's `data`, as the peer sent it. */
  readonly data: unknown;
  constructor(error: JsonRpcErrorObject, /** The request the error answered, when known. */ readonly method?: string) {
    super(`${method ? `${method}: ` : ''}${error.message} (${error.code})`);
    this.rpcCode = error.code;
    this.data = error.data;
  }

  /**
   * The error a peer's JSON-RPC error object stands for: a -32042 whose `data.elicitations` are URL elicitations is
   * a UrlElicitationRequiredError; anything else (a -32042 with malformed data too, its words kept) an RpcError.
   */
  static of(error: JsonRpcErrorObject, method?: string): RpcError {
    const data = error.data;
    const elicitations = typeof data === 'object' && data !== null ? (data as { elicitations?: unknown }).elicitations : undefined;
    return error.code === URL_ELICITATION_REQUIRED && Array.isArray(elicitations) && elicitations.length > 0 && elicitations.every(isUrlElicitation)
      ? new UrlElicitationRequiredError(error, elicitations, method)
      : new RpcError(error, method);
  }
}

const isUrlElicitation = (value: unknown): value is ElicitUrlParams => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { mode, message, url, elicitationId } = value as Record<string, unknown>;
  return mode === 'url' && typeof message === 'string' && typeof url === 'string' && typeof elicitationId === 'string';
};

/** The JSON-RPC code of UrlElicitationRequiredError (2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

/**
 * The server's -32042 (2025-11-25): it cannot answer until the user has
 * completed the URL-mode elicitations in `elicitations` (a sign-in to a third
 * party, say). Show each `message` and `url`; the server may send
 * `notifications/elicitation/complete` with an `elicitationId` when one is
 * done, after which the request can be sent again.
 */
export class UrlElicitationRequiredError extends RpcError {
  override readonly name = 'UrlElicitationRequiredError';
  constructor(
    error: JsonRpcErrorObject,
    /** The elicitations, as the server sent them in `data.elicitations`. */
    readonly elicitations: ElicitUrlParams[],
    method?: string,
  ) {
    super(error, method);
  }
}

/** A request got no response within its timeout; the client sent `notifications/cancelled` for it. */
export class RequestTimeoutError extends McpActorsError {
  override readonly name = 'RequestTimeoutError';
  readonly code = 'request_timeout';
  constructor(/** The request that timed out. */ readonly method: string, /** The timeout it had. */ readonly timeoutMs: number) {
    super(`${method} got no response within ${timeoutMs} ms`);
  }
}

/** A request's `signal` aborted it; the abort reason is the `cause`. */
export class RequestAbortedError extends McpActorsError {
  override readonly name = 'RequestAbortedError';
  readonly code = 'request_aborted';
  constructor(/** The request that was aborted. */ readonly method: string, options?: { cause?: unknown }) {
    super(`${method} was aborted`, options);
  }
}

/** Requests made while the connection is not ready fail fast with this. */
export class NotConnectedError extends McpActorsError {
  override readonly name = 'NotConnectedError';
  readonly code = 'not_connected';
  constructor(/** The connection's state at the time. */ readonly state: string, /** The request that was refused, when it was one. */ readonly method?: string) {
    super(`${method ?? 'request'} refused: the connection is ${state}`);
  }
}

/** The connection dropped while a request was waiting for its response. */
export class ConnectionLostError extends McpActorsError {
  override readonly name = 'ConnectionLostError';
  readonly code = 'connection_lost';
  constructor(/** The request that was waiting. */ readonly method: string, options?: { cause?: unknown }) {
    super(`${method} lost its connection before a response arrived`, options);
  }
}

/**
 * A request that was not resent after its HTTP POST failed before any response header (the server closed the
 * socket under it, as a keep-alive socket closed while idle does): the server may or may not have read and run it,
 * so its outcome is unknown. Only a `tools/call` fails so (a tool may act; every other request is resent once), and
 * only when something still answers an OPTIONS there (any status, within 5 s): the connection stays up, its other requests
 * go on. Check the tool's effect before calling it again. The fetch error is the `cause`.
 */
export class OutcomeUnknownError extends McpActorsError {
  override readonly name = 'OutcomeUnknownError';
  readonly code = 'outcome_unknown';
  constructor(/** The request's method. */ readonly method: string, /** The request's id. */ readonly requestId: RequestId, options?: { cause?: unknown }) {
    super(`${method} (request ${String(requestId)}) failed before any response: the server may or may not have run it`, options);
  }
}

/** An HTTP response stream for one request ended without a JSON-RPC response. */
export class StreamEndedError extends McpActorsError {
  override readonly name = 'StreamEndedError';
  readonly code = 'stream_ended';
  constructor(/** The id of the request whose stream ended. */ readonly requestId: RequestId, options?: { cause?: unknown }) {
    super(`the response stream for request ${String(requestId)} ended without a response`, options);
  }
}

/** The server answered an HTTP request with a non-success status. */
export class HttpStatusError extends McpActorsError {
  override readonly name = 'HttpStatusError';
  readonly code = 'http_status';
  constructor(
    /** The HTTP status code. */
    readonly status: number,
    /** The HTTP status text. */
    readonly statusText: string,
    /** The JSON-RPC error in the body, when the body held one. */
    readonly rpcError?: JsonRpcErrorObject,
    /**
     * How long a 429 or 503 asked its client to stay away (its `Retry-After`, in ms). The reconnect, the change
     * cache's recovery or the legacy stream reopen that follows this error waits at least that long, up to the
     * backoff's `maxRetryAfterMs`.
     */
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status} ${statusText}${rpcError ? `: ${rpcError.message} (${rpcError.code})` : ''}${retryAfterMs === undefined ? '' : ` (retry after ${retryAfterMs} ms)`}`);
  }

  /** The error `response` stands for, its `Retry-After` read now. */
  static of(response: Response, rpcError?: JsonRpcErrorObject): HttpStatusError {
    return new HttpStatusError(response.status, response.statusText, rpcError, retryAfterOf(response));
  }
}

/** The transport could not be opened: a command that does not start, an unreachable URL. */
export class TransportStartError extends McpActorsError {
  override readonly name = 'TransportStartError';
  readonly code = 'transport_start_failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The server sent a request while more than the transport's `maxBacklogBytes`
 * of what the client wrote to it lay unread: a peer that asks without reading
 * the answers would make the client buffer them without end, so the transport
 * is dropped instead (the connection reconnects, or closes with this cause).
 */
export class PeerNotReadingError extends McpActorsError {
  override readonly name = 'PeerNotReadingError';
  readonly code = 'peer_not_reading';
  constructor(
    /** Bytes written to the server and not yet taken by it when its request arrived. */
    readonly backlogBytes: number,
    /** The transport's `maxBacklogBytes`. */
    readonly maxBacklogBytes: number,
  ) {
    super(`the server sent a request while ${backlogBytes} bytes written to it were unread (limit ${maxBacklogBytes}): it is not reading`);
  }
}

/** A message that JSON cannot carry (a BigInt, a cycle in its params): it is not sent, and only its own request fails. */
export class UnserializableMessageError extends McpActorsError {
  override readonly name = 'UnserializableMessageError';
  readonly code = 'unserializable_message';
  constructor(/** The message's method; undefined for a response. */ readonly method: string | undefined, cause: unknown) {
    super(`${method ?? 'a response'} cannot be sent as JSON: ${messageOf(cause)}`, { cause });
  }
}

/**
 * A request's `meta` (RequestOptions) with a key the caller may not send: one the client writes itself (the envelope,
 * `progressToken`), one the spec's key format does not allow, or a `logLevel` that is no log level. Nothing is sent.
 */
export class InvalidRequestMetaError extends McpActorsError {
  override readonly name = 'InvalidRequestMetaError';
  readonly code = 'invalid_request_meta';
  constructor(
    /** The request's method. */
    readonly method: string,
    /** The key refused. */
    readonly key: string,
    /** Why. */
    readonly problem: string,
  ) {
    super(`${method}: _meta key ${JSON.stringify(key)} cannot be sent: ${problem}`);
  }
}

/** An operation that belongs to the other era: `listen` on legacy, listeners on modern. */
export class WrongEraError extends McpActorsError {
  override readonly name = 'WrongEraError';
  readonly code: 'use_listen' | 'use_subscribe_notifications';
  constructor(/** The era of the connection. */ readonly era: 'legacy' | 'modern', operation: string) {
    const hint = era === 'legacy' ? 'subscribeNotifications' : 'listen';
    super(`${operation} is not available on a ${era}-era connection: use ${hint}`);
    this.code = era === 'legacy' ? 'use_subscribe_notifications' : 'use_listen';
  }
}

/** A response whose id matches no pending request; it is reported and otherwise ignored. */
export class UnexpectedResponseError extends McpActorsError {
  override readonly name = 'UnexpectedResponseError';
  readonly code = 'unexpected_response';
  constructor(/** The response as it arrived. */ readonly response: JsonRpcResponse) {
    super(`response for id ${JSON.stringify(response.id)} matches no pending request`);
  }
}

/** A list whose server kept handing out cursors past the page limit. */
export class TooManyPagesError extends McpActorsError {
  override readonly name = 'TooManyPagesError';
  readonly code = 'too_many_pages';
  constructor(/** The list request (`tools/list`…). */ readonly method: string, /** The page limit. */ readonly maxPages: number) {
    super(`${method} returned more than ${maxPages} pages`);
  }
}

/**
 * A list whose pages together hold more than 1,000,000 items:
 * collecting them all would exhaust the heap, so the list fails instead.
 */
export class ListTooLongError extends McpActorsError {
  override readonly name = 'ListTooLongError';
  readonly code = 'list_too_long';
  constructor(/** The list request (`tools/list`…). */ readonly method: string, /** The item limit. */ readonly maxItems: number) {
    super(`${method} returned more than ${maxItems} items`);
  }
}

/**
 * A server's result that lacks what MCP defines for it (a tool without a
 * `name`, `content` that is no array), so it cannot be handed out typed.
 * Fields MCP does not name never cause it: servers may extend results.
 */
export class InvalidResultError extends McpActorsError {
  override readonly name = 'InvalidResultError';
  readonly code = 'invalid_result';
  constructor(
    /** The request the result answered, e.g. `tools/list`. */
    readonly method: string,
    /** Where in the result, e.g. `tools[2].name`. */
    readonly path: string,
    /** What MCP requires there, e.g. `a string`. */
    readonly expected: string,
    /** What the server sent there (`undefined` when it is missing). */
    readonly actual: unknown,
  ) {
    super(`${method}: the server's ${path} is ${describeValue(actual)}, expected ${expected}`);
  }
}

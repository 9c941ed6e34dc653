/**
 * Errors the server answers with on the wire. One class per condition, each
 * with its JSON-RPC code, optional `data`, and the HTTP status it maps to on
 * Streamable HTTP. Tool, prompt and resource handlers may throw any of these
 * (or a plain Error, which becomes -32603 Internal error).
 */
import type { Era } from '../../machines/era.ts';
import { McpActorsError } from '../../machines/errors.ts';
import { URL_ELICITATION_REQUIRED } from '../protocol/errors.ts';
import { ErrorCode, type JsonRpcErrorObject, type RequestId } from '../protocol/jsonrpc.ts';

/** The root of the errors the server answers with on the wire: a JSON-RPC error code, an HTTP status and optional `data`. A handler that throws one answers with it. */
export abstract class WireError extends McpActorsError {
  /** The JSON-RPC error code sent to the client. */
  abstract readonly rpcCode: number;
  /** Status on Streamable HTTP when the error answers the POST directly. */
  readonly httpStatus: number = 200;
  /** The JSON-RPC error's `data`, when the condition has any. */
  readonly data: unknown = undefined;
  /** The JSON-RPC error object sent to the client. */
  toJson(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.data };
  }
}

/** A frame that is not JSON (-32700, HTTP 400). */
export class ParseFailure extends WireError {
  override readonly name = 'ParseFailure';
  readonly code = 'parse_error';
  readonly rpcCode = ErrorCode.ParseError;
  override readonly httpStatus = 400;
}

/** A message that is not a valid JSON-RPC request (-32600, HTTP 400). */
export class InvalidRequestError extends WireError {
  override readonly name = 'InvalidRequestError';
  readonly code = 'invalid_request';
  readonly rpcCode = ErrorCode.InvalidRequest;
  override readonly httpStatus = 400;
}

/** A request under the id of one still being answered on its stdio connection or legacy session: it would take over that one's cancel. */
export const idInUseError = (id: RequestId): InvalidRequestError =>
  new InvalidRequestError(`Invalid request: id ${JSON.stringify(id)} is already in use`);

/** A method the server does not serve (-32601, HTTP 404). */
export class MethodNotFoundError extends WireError {
  override readonly name = 'MethodNotFoundError';
  readonly code = 'method_not_found';
  readonly rpcCode = ErrorCode.MethodNotFound;
  override readonly httpStatus = 404;
  constructor(/** The method the client asked for. */ readonly method: string) {
    super(`Method not found: ${method}`);
  }
}

/** Wrong params for a method: a missing field, an unknown tool, a bad cursor. */
export class InvalidParamsError extends WireError {
  override readonly name = 'InvalidParamsError';
  readonly code = 'invalid_params';
  readonly rpcCode = ErrorCode.InvalidParams;
}

/** A malformed modern `_meta` envelope: rejected before the method runs (HTTP 400). */
export class InvalidEnvelopeError extends WireError {
  override readonly name = 'InvalidEnvelopeError';
  readonly code = 'invalid_envelope';
  readonly rpcCode = ErrorCode.InvalidParams;
  override readonly httpStatus = 400;
}

/** A protocol version the server does not speak; `data` lists the supported ones (HTTP 400). */
export class UnsupportedVersionError extends WireError {
  override readonly name = 'UnsupportedVersionError';
  readonly code = 'unsupported_version';
  readonly rpcCode = ErrorCode.UnsupportedProtocolVersion;
  override readonly httpStatus = 400;
  override readonly data: { requested: unknown; supported: string[] };
  constructor(requested: unknown, supported: string[]) {
    super('Unsupported protocol version');
    this.data = { requested, supported };
  }
}

/** Modern HTTP: an `Mcp-*` header disagrees with the body (missing, stale or different; HTTP 400). */
export class HeaderMismatchError extends WireError {
  override readonly name = 'HeaderMismatchError';
  readonly code = 'header_mismatch';
  readonly rpcCode = ErrorCode.HeaderMismatch;
  override readonly httpStatus = 400;
}

/** Modern era: the request needs a client capability the client did not declare; `data` names it (HTTP 400). */
export class MissingClientCapabilityError extends WireError {
  override readonly name = 'MissingClientCapabilityError';
  readonly code = 'missing_client_capability';
  readonly rpcCode = ErrorCode.MissingRequiredClientCapability;
  override readonly httpStatus = 400;
  override readonly data: { requiredCapabilities: Record<string, object> };
  constructor(required: Record<string, object>) {
    super(`Missing required client capability: ${Object.keys(required).join(', ')}`);
    this.data = { requiredCapabilities: required };
  }
}

/**
 * A `resources/read` of a URI the server does not have: -32002 in the legacy
 * era (2025-11-25), -32602 Invalid Params in the modern era (2026-07-28,
 * SEP-2164), with the URI in `data` either way. A resource or template
 * reader may throw it; the server then answers with the requester's era's code.
 */
export class ResourceNotFoundError extends WireError {
  override readonly name = 'ResourceNotFoundError';
  readonly code = 'resource_not_found';
  readonly rpcCode: number;
  override readonly data: { uri: string };
  constructor(uri: string, era: Era = 'legacy') {
    super(`Resource not found: ${uri}`);
    this.rpcCode = era === 'modern' ? ErrorCode.InvalidParams : -32002;
    this.data = { uri };
  }
}

/** One page UrlElicitationRequiredError sends the user to. */
export interface RequiredUrlElicitation {
  /** Why the user is sent there. */
  message: string;
  /** The page the user completes the interaction on. */
  url: string;
  /** The server's identifier of the elicitation, which `notifications/elicitation/complete` names. */
  elicitationId: string;
}

/**
 * A handler's answer that the user must first complete these URL-mode
 * elicitations (a sign-in to a third party, say): -32042 with
 * `data.elicitations` (2025-11-25). Throw it from a tool, prompt or resource
 * handler; the client shows each page, and the request can be sent again
 * once the user is done (`elicitationCompleteNotifier` tells it when). The
 * modern era (2026-07-28) has no such error: there a handler asks with
 * `context.elicit({ mode: 'url', … })`, which becomes an input-required
 * round; thrown there, it still answers -32042.
 */
export class UrlElicitationRequiredError extends WireError {
  override readonly name = 'UrlElicitationRequiredError';
  readonly code = 'url_elicitation_required';
  readonly rpcCode = URL_ELICITATION_REQUIRED;
  override readonly data: { elicitations: (RequiredUrlElicitation & { mode: 'url' })[] };
  constructor(
    /** The pages, each with the `elicitationId` its completion will name; `mode: 'url'` is filled in. */
    elicitations: readonly RequiredUrlElicitation[],
    message = 'This request needs the user to complete an elicitation at a URL first',
  ) {
    super(message);
    if (elicitations.length === 0) throw new TypeError('UrlElicitationRequiredError needs at least one elicitation');
    this.data = { elicitations: elicitations.map((elicitation) => ({ ...elicitation, mode: 'url' as const })) };
  }
}

/** A documented limit (see limits.ts) was reached. */
export class LimitExceededError extends WireError {
  override readonly name = 'LimitExceededError';
  readonly code = 'limit_exceeded';
  readonly rpcCode = ErrorCode.LimitExceeded;
  override readonly data: { limit: string; max: number };
  constructor(limit: string, max: number, override readonly httpStatus = 429) {
    super(`Limit reached: ${limit} (${max})`);
    this.data = { limit, max };
  }
}

/**
 * A request's answer stream ended because its client stopped reading while more than `maxQueuedBytes` of its
 * notifications and answer waited (-32000): written as the stream's last message, its handler's signal aborted.
 */
export class SlowConsumerError extends WireError {
  override readonly name = 'SlowConsumerError';
  readonly code = 'slow_consumer';
  readonly rpcCode = ErrorCode.LimitExceeded;
  override readonly data: { reason: 'slow_consumer'; exceeded: 'queued_bytes'; limit: 'maxQueuedBytes'; max: number };
  constructor(max: number) {
    super(`Answer stream ended: the client did not read while more than ${max} bytes (maxQueuedBytes) waited`);
    this.data = { reason: 'slow_consumer', exceeded: 'queued_bytes', limit: 'maxQueuedBytes', max };
  }
}

/** A listen stream was requested while the server is closing, or any request reached a closed HTTP endpoint (HTTP 503). */
export class ServerClosingError extends WireError {
  override readonly name = 'ServerClosingError';
  readonly code = 'server_closing';
  readonly rpcCode = -32000;
  override readonly httpStatus = 503;
  constructor(message = 'Server is shutting down: no new listen streams') {
    super(message);
  }
}

/** Requests on a legacy session before `initialize`. */
export class NotInitializedError extends WireError {
  override readonly name = 'NotInitializedError';
  readonly code = 'not_initialized';
  readonly rpcCode = ErrorCode.InvalidRequest;
  override readonly httpStatus = 400;
  constructor(method: string) {
    super(`${method} before initialize`);
  }
}

/** Anything else that went wrong, a handler's plain Error included (-32603); the message is sent, never the stack. */
export class InternalFailure extends WireError {
  override readonly name = 'InternalFailure';
  readonly code = 'internal_error';
  readonly rpcCode = ErrorCode.InternalError;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Any thrown value as a wire error; handler bugs become -32603 without leaking stack traces. */
export const toWireError = (error: unknown): WireError =>
  error instanceof WireError
    ? error
    : new InternalFailure(error instanceof Error ? error.message : 'Internal error', { cause: error });

/** A client's answer to a request the server sent it (sampling, elicitation, roots) does not fit the method's result. */
export class InvalidClientAnswerError extends WireError {
  override readonly name = 'InvalidClientAnswerError';
  readonly code = 'invalid_client_answer';
  readonly rpcCode = ErrorCode.InvalidParams;
  constructor(/** The request the client answered. */ readonly method: string, problem: string) {
    super(`Invalid params: the client's answer to ${method} ${problem}`);
  }
}

/** Why a modern retry's `requestState` was refused. */
export type RequestStateProblem = 'tampered' | 'expired' | 'other_request' | 'too_many_rounds';

/** A `requestState` that fails integrity verification, has expired, or belongs to another request (-32602). */
export class InvalidRequestStateError extends WireError {
  override readonly name = 'InvalidRequestStateError';
  readonly code = 'invalid_request_state';
  readonly rpcCode = ErrorCode.InvalidParams;
  override readonly data: { reason: RequestStateProblem };
  constructor(/** Why the `requestState` was refused. */ readonly reason: RequestStateProblem) {
    super(`Invalid params: requestState refused (${reason})`);
    this.data = { reason };
  }
}

/** A legacy client answered a request the server sent it with a JSON-RPC error. */
export class ClientRequestRefusedError extends WireError {
  override readonly name = 'ClientRequestRefusedError';
  readonly code = 'client_request_refused';
  readonly rpcCode = ErrorCode.InternalError;
  override readonly data: { method: string; error: { code: number; message: string; data?: unknown } };
  constructor(method: string, error: { code: number; message: string; data?: unknown }) {
    super(`The client refused ${method}: ${error.message} (${error.code})`);
    this.data = { method, error };
  }
}

/** A legacy client did not answer a request the server sent it within `limits.clientRequestTimeoutMs`. */
export class ClientRequestTimeoutError extends WireError {
  override readonly name = 'ClientRequestTimeoutError';
  readonly code = 'client_request_timeout';
  readonly rpcCode = ErrorCode.InternalError;
  override readonly data: { method: string; timeoutMs: number };
  constructor(method: string, timeoutMs: number) {
    super(`The client did not answer ${method} within ${timeoutMs} ms`);
    this.data = { method, timeoutMs };
  }
}

/** A request to a legacy client ended unanswered: the handler's own request was cancelled, or the session ended. */
export class ClientRequestCancelledError extends WireError {
  override readonly name = 'ClientRequestCancelledError';
  readonly code = 'client_request_cancelled';
  readonly rpcCode = ErrorCode.InternalError;
  constructor(
    /** The request to the client that ended unanswered. */ readonly method: string,
    /** The handler's own request was cancelled, or the session ended; `no_stream`: never sent, as a batched legacy HTTP request has no stream of its own and its session had no GET stream open. */
    readonly why: 'request_cancelled' | 'session_ended' | 'no_stream',
  ) {
    super(why === 'no_stream' ? `${method} could not be sent to the client: a batched request has no stream of its own, and the session has no GET stream open (no_stream)` : `${method} to the client ended unanswered (${why})`);
  }
}

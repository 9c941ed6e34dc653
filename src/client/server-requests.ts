/**
 * The client's handlers for what a server asks of it: `elicitation/create`,
 * `sampling/createMessage` and `roots/list`. One handler per method, each
 * advertising its capability. Legacy era: a server's JSON-RPC request is
 * answered with the handler's result (checked against the schema first), a
 * JSON-RPC error when the handler throws or returns something malformed,
 * -32601 when no handler is registered; `notifications/cancelled` aborts the
 * handler's signal and no answer goes out. Modern era: the same handlers
 * answer the input requests of input-required results (input-required.ts).
 */
import { messageOf } from '../../machines/errors.ts';
import { McpActorsError } from '../protocol/errors.ts';
import { ErrorCode, type JsonObject, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from '../protocol/jsonrpc.ts';
import type { Era } from '../protocol/versions.ts';
import { isServerRequestMethod, schemaProblems, type ServerRequestMethod, type ServerRequestTypes } from './server-request-types.ts';

/** What a handler gets besides the params. */
export interface ServerRequestContext<M extends ServerRequestMethod = ServerRequestMethod> {
  /** The request being answered. */
  method: M;
  /** Aborted when the server cancels the request, the call that asked is aborted, or the connection is lost. */
  signal: AbortSignal;
  /** The era the question came in: `legacy` (a server request) or `modern` (an input request of an input-required result). */
  era: Era;
}

/** Answers one kind of server request; may be async. Throwing refuses the request. */
export type ServerRequestHandler<M extends ServerRequestMethod> = (
  params: ServerRequestTypes[M]['params'],
  context: ServerRequestContext<M>,
) => ServerRequestTypes[M]['result'] | Promise<ServerRequestTypes[M]['result']>;

/** Options of `onRequest`. */
export interface OnRequestOptions {
  /**
   * The capability advertised for the method while the handler is registered. Defaults:
   * `elicitation: { form: {} }`, `sampling: {}`, `roots: { listChanged: true }` (see `notifyRootsListChanged`).
   */
  capability?: JsonObject;
}

/** The capability key each method is advertised under, and its default value. */
const CAPABILITY: Record<ServerRequestMethod, { key: string; value: JsonObject }> = {
  'elicitation/create': { key: 'elicitation', value: { form: {} } },
  'sampling/createMessage': { key: 'sampling', value: {} },
  'roots/list': { key: 'roots', value: { listChanged: true } },
};

/** `onRequest` was given a method that is no server request a client can answer. */
export class UnknownServerRequestMethodError extends McpActorsError {
  override readonly name = 'UnknownServerRequestMethodError';
  readonly code = 'unknown_server_request_method';
  constructor(/** What `onRequest` was given instead of a known method. */ readonly method: unknown) {
    super(`onRequest: ${JSON.stringify(method) ?? String(method)} is not one of elicitation/create, sampling/createMessage, roots/list`);
  }
}

/** A handler returned a result its method's schema refuses; the server got -32603 (legacy) or the call failed (modern). */
export class InvalidHandlerResultError extends McpActorsError {
  override readonly name = 'InvalidHandlerResultError';
  readonly code = 'invalid_handler_result';
  constructor(/** The request whose handler answered. */ readonly method: ServerRequestMethod, /** What is wrong with the result, one entry per schema violation. */ readonly problems: string[]) {
    super(`the ${method} handler returned a malformed result: ${problems.join('; ')}`);
  }
}

/** A handler threw (the error is the cause); the server got -32603 (legacy) or the call failed (modern). */
export class ServerRequestHandlerError extends McpActorsError {
  override readonly name = 'ServerRequestHandlerError';
  readonly code = 'server_request_handler_failed';
  constructor(/** The request whose handler threw (what it threw is the `cause`). */ readonly method: ServerRequestMethod, cause: unknown) {
    super(`the ${method} handler failed: ${messageOf(cause)}`, { cause });
  }
}

/** A server sent params the method's schema refuses; the server got -32602 (legacy) or the call failed (modern). */
export class InvalidServerRequestParamsError extends McpActorsError {
  override readonly name = 'InvalidServerRequestParamsError';
  readonly code = 'invalid_server_request_params';
  constructor(/** The request the server sent. */ readonly method: ServerRequestMethod, /** What is wrong with the params, one entry per schema violation. */ readonly problems: string[]) {
    super(`the server sent ${method} with malformed params: ${problems.join('; ')}`);
  }
}

/** Documented default of `maxServerRequestsInFlight`: legacy server requests a client answers at once. */
export const DEFAULT_MAX_SERVER_REQUESTS_IN_FLIGHT = 256;

/**
 * A legacy server request refused before its handler ran: its id is one a
 * request still being answered has (`duplicate_id`, -32600 to the server), or
 * `maxServerRequestsInFlight` are being answered already
 * (`too_many_in_flight`, -32000 with `data.limit`).
 */
export class ServerRequestRefusedError extends McpActorsError {
  override readonly name = 'ServerRequestRefusedError';
  readonly code = 'server_request_refused';
  constructor(
    /** The refused request's method. */
    readonly method: string,
    /** Its id. */
    readonly requestId: RequestId,
    /** Why it was refused. */
    readonly reason: 'duplicate_id' | 'too_many_in_flight',
  ) {
    super(
      reason === 'duplicate_id'
        ? `the server sent ${method} with id ${JSON.stringify(requestId)}, which a request still being answered has`
        : `the server sent ${method} while maxServerRequestsInFlight of its requests were being answered`,
    );
  }
}

/** The outcome of asking a handler: its checked result, or why there is none. */
export type HandlerOutcome =
  | { type: 'answered'; result: JsonObject }
  | { type: 'unhandled' }
  | { type: 'failed'; error: InvalidServerRequestParamsError | InvalidHandlerResultError | ServerRequestHandlerError };

interface Registered {
  /** Called only with params checked against its method's schema. */
  handler: (params: unknown, context: ServerRequestContext) => unknown;
  capability: JsonObject;
}

/** The registered handlers of one client, and the legacy server requests they are answering. */
export class ServerRequestHandlers {
  readonly #handlers = new Map<ServerRequestMethod, Registered>();
  /** Legacy server requests being answered, by the server's request id. */
  readonly #inFlight = new Map<RequestId, AbortController>();

  /** `maxInFlight`: how many legacy server requests are answered at once; the next is refused until one is done. */
  constructor(private readonly maxInFlight = DEFAULT_MAX_SERVER_REQUESTS_IN_FLIGHT) {}

  /**
   * Registers `handler` for `method`, replacing any earlier one; returns its removal
   * (which removes nothing once a later registration replaced it).
   */
  register<M extends ServerRequestMethod>(method: M, handler: ServerRequestHandler<M>, options: OnRequestOptions = {}): () => void {
    if (!isServerRequestMethod(method)) throw new UnknownServerRequestMethodError(method);
    const entry: Registered = { handler: handler as unknown as Registered['handler'], capability: options.capability ?? CAPABILITY[method].value };
    this.#handlers.set(method, entry);
    return () => {
      if (this.#handlers.get(method) === entry) this.#handlers.delete(method);
    };
  }

  /** Whether a handler answers `method`. */
  has(method: string): boolean {
    return isServerRequestMethod(method) && this.#handlers.has(method);
  }

  /** The capabilities the registered handlers offer, one key per method. */
  capabilities(): JsonObject {
    return Object.fromEntries([...this.#handlers].map(([method, entry]) => [CAPABILITY[method].key, entry.capability]));
  }

  /** Asks the handler for `method`: params checked first, the result checked after. Never throws. */
  async ask(method: string, params: JsonObject, signal: AbortSignal, era: Era): Promise<HandlerOutcome> {
    const entry = isServerRequestMethod(method) ? this.#handlers.get(method) : undefined;
    if (!entry || !isServerRequestMethod(method)) return { type: 'unhandled' };
    const refused = await schemaProblems(method, 'params', params);
    if (refused.length > 0) return { type: 'failed', error: new InvalidServerRequestParamsError(method, refused) };
    let result: unknown;
    try {
      result = await entry.handler(params, { method, signal, era });
    } catch (error) {
      return { type: 'failed', error: new ServerRequestHandlerError(method, error) };
    }
    const problems = await schemaProblems(method, 'result', result);
    if (problems.length > 0) return { type: 'failed', error: new InvalidHandlerResultError(method, problems) };
    return { type: 'answered', result: result as JsonObject };
  }

  /**
   * Answers a server's JSON-RPC request with `reply`. Failures are reported
   * (the handler's, not the server's fault); a cancelled request gets no answer.
   * A request whose id is still being answered, or one past `maxInFlight`,
   * is refused without running its handler (ServerRequestRefusedError, reported):
   * a server cannot make the client run handlers without end, nor lose track of one.
   */
  answer(request: JsonRpcRequest, era: Era, reply: (message: JsonRpcMessage) => Promise<void>, report: (error: Error) => void): void {
    const { id, method } = request;
    const send = (body: { result: JsonObject } | { error: { code: number; message: string; data?: JsonObject } }) =>
      reply({ jsonrpc: '2.0', id, ...body } as JsonRpcMessage).catch(report);
    if (!this.has(method)) {
      void send({ error: { code: ErrorCode.MethodNotFound, message: `client does not offer ${method}` } });
      return;
    }
    const refusal = this.#inFlight.has(id) ? 'duplicate_id' : this.#inFlight.size >= this.maxInFlight ? 'too_many_in_flight' : undefined;
    if (refusal !== undefined) {
      const error = new ServerRequestRefusedError(method, id, refusal);
      report(error);
      void send({
        error:
          refusal === 'duplicate_id'
            ? { code: ErrorCode.InvalidRequest, message: error.message }
            : { code: ErrorCode.LimitExceeded, message: error.message, data: { limit: 'maxServerRequestsInFlight', max: this.maxInFlight } },
      });
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    void this.ask(method, request.params ?? {}, controller.signal, era).then((outcome) => {
      if (this.#inFlight.get(id) === controller) this.#inFlight.delete(id);
      if (controller.signal.aborted) return;
      if (outcome.type === 'answered') return send({ result: outcome.result });
      if (outcome.type === 'unhandled') return send({ error: { code: ErrorCode.MethodNotFound, message: `client does not offer ${method}` } });
      report(outcome.error);
      const code = outcome.error instanceof InvalidServerRequestParamsError ? ErrorCode.InvalidParams : ErrorCode.InternalError;
      return send({ error: { code, message: outcome.error.message } });
    });
  }

  /** The server cancelled one of its requests: its handler's signal aborts, and it will get no answer. */
  cancel(requestId: unknown, reason: unknown): boolean {
    const controller = this.#inFlight.get(requestId as RequestId);
    if (!controller) return false;
    this.#inFlight.delete(requestId as RequestId);
    controller.abort(typeof reason === 'string' ? reason : 'cancelled by the server');
    return true;
  }

  /** The connection is gone: no answer can reach the server that asked. */
  abortAll(reason: string): void {
    for (const controller of this.#inFlight.values()) controller.abort(reason);
    this.#inFlight.clear();
  }
}

/**
 * What a tool, prompt or resource handler gets besides its arguments.
 * `progress` and `log` reach only the client that made the request: on the
 * modern era on that request's own response stream (stdio: the requester's
 * connection), on the legacy era to the requesting session. Both resolve once
 * the message is queued with room to spare, so a handler that emits in a loop
 * is paced by the client instead of filling memory, or as soon as the request
 * is cancelled or its client goes away (`signal` aborts), so a handler never
 * waits on a client that left.
 *
 * Progress is sent only when the request carried a `progressToken`; log
 * messages only at or above the requested level (modern: the request's
 * `_meta["io.modelcontextprotocol/logLevel"]`, none when absent; legacy: the
 * session's `logging/setLevel`, everything when never set).
 */
import type { Era } from '../../machines/era.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import { clientInput, declares, requiredCapability, UndeclaredClientCapabilityError, type ClientAsker, type ClientInput } from './client-input.ts';
import { LOG_LEVELS, type LogLevel } from '../protocol/log-level.ts';
import type { JsonValue } from '../protocol/mcp-types.ts';
import { callUntilAnswered, checkJson, type HandlerCall, type InputSteps } from './input-required.ts';


/**
 * Besides the fields below, `elicit`, `createMessage` and `listRoots`
 * (ClientInput) ask the client for input, the same code in both eras: legacy,
 * a request to the client over the session, awaited (with
 * `limits.clientRequestTimeoutMs` and this request's `signal`); modern, an
 * input-required result and the client's retry, on which the handler runs
 * again and each ask answers at once with the client's response. An ask the
 * client did not declare the capability for is never sent: it throws
 * MissingClientCapabilityError (-32021, modern) or
 * UndeclaredClientCapabilityError (legacy, whose protocol has no such code).
 *
 * A handler may instead return `inputRequired({ inputRequests, state })`: it
 * is then called again with the answers in `inputResponses` and its state in
 * `state` (input-required.ts).
 */
export interface RequestContext extends ClientInput {
  /** The era of the client that sent the request. */
  readonly era: Era;
  /** The request's JSON-RPC id. */
  readonly requestId: RequestId;
  /** Aborted when the client cancels the request or its connection goes away. */
  readonly signal: AbortSignal;
  /** The capabilities the client declared (legacy: at `initialize`; modern: in this request's envelope). */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /**
   * The request's `_meta` as the client sent it (OpenTelemetry's `traceparent`, a vendor's keys, the
   * `progressToken`), without the modern envelope's `io.modelcontextprotocol/*` keys, which the fields above carry.
   */
  readonly meta: Readonly<JsonObject>;
  /** Sends `notifications/progress` for this request, to its caller only; does nothing when the caller sent no progress token. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a `notifications/message` log entry for this request, to its caller only. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Modern era: the input-required rounds this request went through (0 on the
   * first attempt). Legacy: the requests for input the handler returned so far.
   */
  readonly inputRound: number;
  /** The client's answers to the requests the handler last returned (`inputRequired`), by key; `{}` before any. */
  readonly inputResponses: Readonly<Record<string, JsonObject>>;
  /**
   * The handler's own state: the last one it kept (`keep`) or returned with
   * `inputRequired`, in this call or an earlier round; undefined until then.
   * Modern era: it travels sealed in `requestState`, so the client can neither
   * read nor change it, and it counts toward `maxRequestStateBytes`.
   */
  readonly state: JsonValue | undefined;
  /** Keeps `state` (plain JSON, else InvalidHandlerStateError) for the handler's later calls and rounds. */
  keep(state: JsonValue): void;
  /**
   * A function that tells the client the URL-mode elicitation `elicitationId`
   * is complete (`notifications/elicitation/complete`, 2025-11-25): call it
   * when the user has finished at the URL, during this request or after it,
   * while the client's session lasts (later calls send nothing). Legacy: a
   * client that did not declare `elicitation.url` throws
   * UndeclaredClientCapabilityError here. Modern (2026-07-28) has no such
   * notification, as the client's retry of the request carries the answer:
   * the function does nothing.
   */
  elicitationCompleteNotifier(elicitationId: string): () => void;
}

/** Where request-scoped notifications for one request go. */
export interface ReplyChannel {
  notify(json: string): Promise<void>;
  /**
   * Where a request to the client (a handler's ask) goes when not the way `notify` does (a batched legacy HTTP
   * request, which has no stream of its own); false when it has nowhere to go now, so the ask fails at once.
   */
  sendRequest?(json: string): boolean;
}

export interface RequestScope {
  era: Era;
  requestId: RequestId;
  signal: AbortSignal;
  clientCapabilities: Record<string, unknown>;
  meta: Readonly<JsonObject>;
  progressToken: string | number | undefined;
  /** Lowest level sent; undefined sends no log messages. */
  logThreshold: LogLevel | undefined;
  channel: ReplyChannel;
  /** How this era carries the handler's asks to the client. */
  asker: ClientAsker;
  inputRound: number;
  /** How this era carries the requests a handler returns, and its state. */
  steps: InputSteps;
  inputResponses?: Record<string, JsonObject>;
  /** Legacy only: sends an unsolicited notification to the request's session (stdio connection or legacy HTTP session). */
  notifySession?: (json: string) => void;
}

/** Each context's scope, for callHandler: kept off the context itself, which handlers see. */
const scopes = new WeakMap<RequestContext, RequestScope>();

/**
 * Calls a handler with `context`, and again with the client's answers each
 * time it returns `inputRequired(...)`, until it returns its result.
 */
export function callHandler<R>(context: RequestContext, call: HandlerCall<R>): Promise<R> {
  const scope = scopes.get(context);
  if (scope === undefined) throw new TypeError('callHandler needs a context made by createRequestContext');
  const { steps } = scope;
  const contextFor = (inputResponses: Record<string, JsonObject>, returns: number) =>
    returns === 0 && steps.resumed === undefined ? context : createRequestContext({ ...scope, inputResponses, inputRound: scope.inputRound + returns });
  return callUntilAnswered(steps, clientInput(steps.stepAsker, scope.clientCapabilities), contextFor, call);
}

export function createRequestContext(scope: RequestScope): RequestContext {
  const { channel, signal, progressToken, logThreshold, steps } = scope;
  const context: RequestContext = {
    era: scope.era,
    requestId: scope.requestId,
    signal,
    clientCapabilities: scope.clientCapabilities,
    meta: scope.meta,
    inputRound: scope.inputRound,
    inputResponses: scope.inputResponses ?? {},
    get state() {
      return steps.state;
    },
    keep(state) {
      checkJson(state, 'state');
      steps.state = state;
    },
    ...clientInput(scope.asker, scope.clientCapabilities),
    elicitationCompleteNotifier(elicitationId) {
      const { notifySession } = scope;
      // Only a legacy session has one: the modern era has no such notification.
      if (notifySession === undefined) return () => {};
      const needed = requiredCapability('elicitation/create', { mode: 'url' })!;
      if (!declares(scope.clientCapabilities, needed)) throw new UndeclaredClientCapabilityError('notifications/elicitation/complete', needed);
      const json = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } });
      return () => notifySession(json);
    },
    async progress(progress, total, message) {
      if (progressToken === undefined || signal.aborted) return;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await untilAborted(channel.notify(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params })), signal);
    },
    async log(level, data, logger) {
      if (logThreshold === undefined || signal.aborted) return;
      if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(logThreshold)) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      await untilAborted(channel.notify(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params })), signal);
    },
  };
  scopes.set(context, scope);
  return context;
}

/** Resolves when `wait` settles or `signal` aborts, whichever comes first. */
function untilAborted(wait: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    wait.then(done, done);
  });
}

/**
 * Multi round-trip requests (2026-07-28): a `tools/call`, `prompts/get` or
 * `resources/read` the server answers with `resultType: "input_required"`
 * is retried, as a new request, with the original params plus
 * `inputResponses` (one answer per input request, from the registered
 * handlers) and the server's `requestState` echoed verbatim (omitted when the
 * server sent none), until a complete result or `maxRounds` retries. The
 * inputs of one round are gathered in parallel; the call's signal aborts
 * the handlers and the call.
 */
import { McpActorsError, RequestAbortedError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { ServerRequestHandlers } from './server-requests.ts';

/** Documented default: retries with `inputResponses` one call may make before it fails with InputRoundsExceededError. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;

/** The server asked for input no handler is registered for; the call ends (nothing is sent back). */
export class InputHandlerMissingError extends McpActorsError {
  override readonly name = 'InputHandlerMissingError';
  readonly code = 'input_handler_missing';
  constructor(/** The call that needed input (`tools/call`, `prompts/get`, `resources/read`). */ readonly callMethod: string, /** The server's key for the input request. */ readonly key: string, /** The kind of input asked for (`elicitation/create`, `sampling/createMessage`, `roots/list`). */ readonly requestMethod: string) {
    super(`${callMethod} needs input "${key}" (${requestMethod}) and no handler is registered for ${requestMethod}: use client.onRequest`);
  }
}

/** The server still asked for input after `maxRounds` retries; `lastResult` is its last input-required result. */
export class InputRoundsExceededError extends McpActorsError {
  override readonly name = 'InputRoundsExceededError';
  readonly code = 'input_rounds_exceeded';
  constructor(/** The call that kept requiring input. */ readonly callMethod: string, /** The bound that was reached (the client's `maxInputRounds`). */ readonly maxRounds: number, /** The last input-required result the server sent. */ readonly lastResult: JsonObject) {
    super(`${callMethod} still required input after ${maxRounds} rounds`);
  }
}

/** An input-required result that breaks the schema (no `inputRequests` nor `requestState`, or a malformed entry). */
export class MalformedInputRequiredError extends McpActorsError {
  override readonly name = 'MalformedInputRequiredError';
  readonly code = 'malformed_input_required';
  constructor(/** The call whose result was malformed. */ readonly callMethod: string, why: string, /** The result as the server sent it. */ readonly result: JsonObject) {
    super(`${callMethod} got a malformed input-required result: ${why}`);
  }
}

/** How long the retry loop goes on: `maxRounds` retries at most, until `signal` aborts. */
export interface InputRoundsOptions {
  maxRounds: number;
  signal?: AbortSignal;
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Sends `params` with `send` (one JSON-RPC request, a new id each time) and
 * answers input-required results until the server's result is complete.
 */
export async function requestWithInputs(
  method: string,
  params: JsonObject,
  send: (params: JsonObject) => Promise<JsonObject>,
  handlers: ServerRequestHandlers,
  options: InputRoundsOptions,
): Promise<JsonObject> {
  let result = await send(params);
  for (let round = 1; result.resultType === 'input_required'; round += 1) {
    if (round > options.maxRounds) throw new InputRoundsExceededError(method, options.maxRounds, result);
    const inputResponses = await gatherInputs(method, result, handlers, options.signal);
    const retry: JsonObject = { ...params };
    if (inputResponses !== undefined) retry.inputResponses = inputResponses;
    if (result.requestState !== undefined) retry.requestState = result.requestState;
    result = await send(retry);
  }
  return result;
}

/** One round's answers, keyed as the server keyed its requests; undefined when it asked for none. */
async function gatherInputs(method: string, result: JsonObject, handlers: ServerRequestHandlers, signal: AbortSignal | undefined): Promise<JsonObject | undefined> {
  const { inputRequests, requestState } = result;
  if (requestState !== undefined && typeof requestState !== 'string') throw new MalformedInputRequiredError(method, 'requestState is no string', result);
  if (inputRequests === undefined) {
    if (requestState === undefined) throw new MalformedInputRequiredError(method, 'neither inputRequests nor requestState', result);
    return undefined;
  }
  if (!isObject(inputRequests)) throw new MalformedInputRequiredError(method, 'inputRequests is no object', result);
  const entries = Object.entries(inputRequests);
  for (const [key, request] of entries) {
    if (!isObject(request) || typeof request.method !== 'string') throw new MalformedInputRequiredError(method, `input request "${key}" has no method`, result);
    if (request.params !== undefined && !isObject(request.params)) throw new MalformedInputRequiredError(method, `input request "${key}" has params that are no object`, result);
    if (!handlers.has(request.method)) throw new InputHandlerMissingError(method, key, request.method);
  }
  // One round's handlers share a signal: the call's abort, or the first failure among them, stops the rest.
  const round = new AbortController();
  const onAbort = () => round.abort(new RequestAbortedError(method, { cause: signal?.reason }));
  if (signal?.aborted) throw new RequestAbortedError(method, { cause: signal.reason });
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const aborted = new Promise<never>((_, reject) => {
      // The reason is the call's abort or the handler failure that stopped the round.
      round.signal.addEventListener('abort', () => reject(round.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    const answers = entries.map(async ([key, request]) => {
      const { method: asked, params } = request as { method: string; params?: JsonObject };
      const outcome = await handlers.ask(asked, params ?? {}, round.signal, 'modern');
      if (outcome.type === 'answered') return [key, outcome.result] as const;
      const error = outcome.type === 'unhandled' ? new InputHandlerMissingError(method, key, asked) : outcome.error;
      round.abort(error);
      throw error;
    });
    return Object.fromEntries(await Promise.race([Promise.all(answers), aborted]));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

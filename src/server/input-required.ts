/**
 * The return style of asking the client for input: a handler returns
 * `inputRequired({ inputRequests, state })` instead of awaiting each ask, and
 * is called again with the client's answers (`context.inputResponses`) and
 * its own state (`context.state`). Both styles share one path: every returned
 * request goes through the same asking code as `context.elicit` & co.
 * (capability check, key, answer shape) and the era's asker; only who calls
 * the handler again differs. Legacy: the asks are requests over the session,
 * and the handler is called again in the same request. Modern: an unanswered
 * ask ends the attempt with an input-required result whose sealed
 * `requestState` carries the returned requests and the handler's state, and
 * the client's retry resumes by answering them and calling the handler.
 */
import { McpActorsError } from '../../machines/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { JsonValue } from '../protocol/mcp-types.ts';
import type { ClientAsker, ClientInput, CreateMessageParams, ElicitParams } from './client-input.ts';
import { LimitExceededError } from './errors.ts';
import type { RequestContext } from './request-context.ts';

/** One request for input a handler returns, in the shape of the spec's `InputRequest`. */
export type InputRequest =
  | { method: 'elicitation/create'; params: ElicitParams }
  | { method: 'sampling/createMessage'; params: CreateMessageParams }
  | { method: 'roots/list'; params?: JsonObject };

/** Requests for input by key; the client answers each under the same key (`context.inputResponses[key]`). */
export type InputRequests = Record<string, InputRequest>;

/** Brands a returned request for input; `Symbol.for` so the check holds across two installed copies. */
const INPUT_REQUIRED: unique symbol = Symbol.for('mcp-actors/inputRequired') as never;

/** What a handler returns to ask the client for input (make it with `inputRequired`). */
export interface InputRequiredResult {
  /** Marks the value as made by `inputRequired`, so a tool result with the same fields is never taken for one. */
  readonly [INPUT_REQUIRED]: true;
  /** What to ask the client, by key. */
  readonly inputRequests: InputRequests;
  /** The handler's own state for its next call (`context.state`); absent keeps the current one. */
  readonly state?: JsonValue;
}

/** A handler's state that is not JSON (a function, a class instance, a bigint, a cycle…): it could not be sealed. */
export class InvalidHandlerStateError extends McpActorsError {
  override readonly name = 'InvalidHandlerStateError';
  readonly code = 'invalid_handler_state';
  constructor(/** Where in the state the value that is not plain JSON sits. */ readonly path: string) {
    super(`Handler state must be plain JSON; ${path} is not`);
  }
}

/** A returned `inputRequired` that asks for nothing or names an unknown method. */
export class InvalidInputRequestError extends McpActorsError {
  override readonly name = 'InvalidInputRequestError';
  readonly code = 'invalid_input_request';
}

const INPUT_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/**
 * The value a handler returns to ask the client for input and be called
 * again with the answers. Modern era: the request is answered with
 * `resultType: 'input_required'` (these requests, and a sealed `requestState`
 * carrying them and `state`); legacy era: each request is sent to the client
 * over the session. Either way the handler's next call gets the answers in
 * `context.inputResponses` (by the same keys) and `state` in `context.state`.
 */
export function inputRequired(options: { inputRequests: InputRequests; state?: JsonValue }): InputRequiredResult {
  const entries = Object.entries(options.inputRequests);
  if (entries.length === 0) throw new InvalidInputRequestError('inputRequired needs at least one input request');
  for (const [key, request] of entries) {
    if (!INPUT_METHODS.has(request?.method)) throw new InvalidInputRequestError(`inputRequests.${key} has no known method`);
  }
  if (options.state !== undefined) checkJson(options.state, 'state');
  return { [INPUT_REQUIRED]: true, inputRequests: { ...options.inputRequests }, ...(options.state === undefined ? {} : { state: options.state }) };
}

/** Whether a handler's return value asks for input. */
export const isInputRequired = (value: unknown): value is InputRequiredResult =>
  typeof value === 'object' && value !== null && (value as { [INPUT_REQUIRED]?: unknown })[INPUT_REQUIRED] === true;

/** Throws InvalidHandlerStateError unless `value` is plain JSON (so it seals and opens unchanged). */
export function checkJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return;
    throw new InvalidHandlerStateError(path);
  }
  if (Array.isArray(value)) return value.forEach((item, index) => checkJson(item, `${path}[${index}]`));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.entries(value).forEach(([key, item]) => checkJson(item, `${path}.${key}`));
  }
  throw new InvalidHandlerStateError(path);
}

/** How an era carries a handler's returned requests and state between its calls. Internal to the server. */
export interface InputSteps {
  /** The asker returned requests go through. */
  readonly stepAsker: ClientAsker;
  /** Modern retry: the requests the previous attempt returned, answered before the handler is called. */
  readonly resumed: InputRequests | undefined;
  /** The handler's own state, as its next call (or round) will see it. */
  state: JsonValue | undefined;
  /** The handler returned these requests; throws when that is one round too many. */
  returned(requests: InputRequests): void;
}

/** Steps kept in this process (legacy era, and methods that cannot ask): returns bounded by `maxInputRounds`. */
export function stepsInProcess(stepAsker: ClientAsker, maxInputRounds: number): InputSteps {
  let returns = 0;
  return {
    stepAsker,
    resumed: undefined,
    state: undefined,
    returned() {
      returns += 1;
      if (returns > maxInputRounds) throw new LimitExceededError('maxInputRounds', maxInputRounds, 200);
    },
  };
}

/** A handler call; it may return a request for input instead of its result. */
export type HandlerCall<R> = (context: RequestContext) => R | InputRequiredResult | Promise<R | InputRequiredResult>;

/**
 * Calls a handler until it returns its result: each time it returns a request
 * for input, the requests are asked through `input` (the era's asker) and the
 * handler is called again with the answers. `contextFor` makes the context of
 * each call from the answers it gets and the number of returns so far.
 */
export async function callUntilAnswered<R>(
  steps: InputSteps,
  input: ClientInput,
  contextFor: (inputResponses: Record<string, JsonObject>, returns: number) => RequestContext,
  call: HandlerCall<R>,
): Promise<R> {
  let requests = steps.resumed;
  for (let returns = 0; ; returns += 1) {
    const answers = requests === undefined ? {} : await askAll(input, requests);
    const outcome = await call(contextFor(answers, returns));
    if (!isInputRequired(outcome)) return outcome;
    if (outcome.state !== undefined) steps.state = outcome.state;
    steps.returned(outcome.inputRequests);
    requests = outcome.inputRequests;
  }
}

/** Asks every request at once; waits for all of them (no ask is left running), then fails with the first failure. */
async function askAll(input: ClientInput, requests: InputRequests): Promise<Record<string, JsonObject>> {
  const keys = Object.keys(requests);
  const settled = await Promise.allSettled(keys.map((key) => ask(input, key, requests[key]!)));
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return Object.fromEntries(keys.map((key, index) => [key, (settled[index] as PromiseFulfilledResult<JsonObject>).value]));
}

function ask(input: ClientInput, key: string, request: InputRequest): Promise<JsonObject> {
  switch (request.method) {
    case 'elicitation/create':
      return input.elicit(request.params, { key });
    case 'sampling/createMessage':
      return input.createMessage(request.params, { key });
    case 'roots/list':
      return input.listRoots({ key });
  }
}

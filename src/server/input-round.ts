/**
 * One attempt of a modern-era request whose handler may ask the client for
 * input (multi round-trip requests, SEP-2322). The handler runs from the
 * start on every attempt; each ask is answered at once from the answers
 * already known (the sealed `requestState` of earlier rounds, then this
 * retry's `inputResponses`) and an unanswered ask ends the attempt: the
 * request is then answered with `resultType: 'input_required'`, every
 * unanswered ask of this attempt in `inputRequests` under its key, and a new
 * `requestState` carrying the answers the attempt used. A handler that swallows
 * the ask's rejection changes nothing: an attempt that asked for something it
 * was not given never completes.
 *
 * A handler that returns `inputRequired(...)` (input-required.ts) instead
 * makes a step: its requests are asked through `stepAsker`, unanswered in the
 * attempt that returned them, so they go out as this round's `inputRequests`
 * and are sealed with the handler's state; the retry resumes the step (its
 * answers come from `inputResponses`) and calls the handler with them. Each
 * step starts the await-style answers afresh, so keys never collide across
 * the handler's calls.
 */
import { McpActorsError } from '../../machines/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { answerProblem, type ClientAsker, type ClientMethod } from './client-input.ts';
import { InvalidParamsError, InvalidRequestStateError, LimitExceededError } from './errors.ts';
import type { JsonValue } from '../protocol/mcp-types.ts';
import type { InputRequests, InputSteps } from './input-required.ts';
import { isJsonObject } from './json-values.ts';
import type { RequestStateContents, RequestStateSealer } from './request-state.ts';

/** Methods whose handlers may ask (the spec allows input-required results on these only). */
export const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Rejects an unanswered ask in the modern era; the router turns the attempt into an input-required result. */
export class InputRequiredSignal extends McpActorsError {
  override readonly name = 'InputRequiredSignal';
  readonly code = 'input_required';
  constructor(/** The key of the ask that needs the client's answer. */ readonly key: string) {
    super(`input required: ${key} (the request is answered with resultType input_required; rethrow this)`);
  }
}

/** The limits one round trip obeys (see limits.ts). */
export interface InputRoundLimits {
  maxInputRounds: number;
  maxRequestStateBytes: number;
  requestStateTtlMs: number;
}

export class InputRound implements ClientAsker, InputSteps {
  readonly refusesUndeclared = 'wire_error';
  /** This attempt's number: 0 without a request state, else the rounds already completed. */
  readonly round: number;
  /** The handler's own state: what the previous attempt sealed, until the handler keeps or returns another. */
  state: JsonValue | undefined;
  private known: Record<string, JsonObject>;
  private used: Record<string, JsonObject> = {};
  private readonly responses: Record<string, JsonObject>;
  /** The requests the handler last returned; `fresh` when that happened in this attempt (nothing can answer them yet). */
  private step: RequestStateContents['step'];
  private fresh = false;
  private readonly unanswered = new Map<string, { method: ClientMethod; params: JsonObject }>();
  private readonly target: string;

  constructor(
    private readonly sealer: RequestStateSealer,
    private readonly limits: InputRoundLimits,
    private readonly now: () => number,
    method: string,
    params: JsonObject | undefined,
  ) {
    this.target = `${method} ${String(params?.name ?? params?.uri ?? '')}`;
    const responses = readInputResponses(params?.inputResponses);
    const state = params?.requestState;
    if (state !== undefined && typeof state !== 'string') throw new InvalidParamsError('Invalid params: requestState must be a string');
    const opened = state === undefined ? undefined : sealer.open(state, this.target);
    this.round = opened?.round ?? 0;
    this.state = opened?.state;
    this.responses = responses;
    this.step = opened?.step;
    const step = this.step;
    // A step not yet answered takes this retry's responses; the await-style asks after it have none yet.
    const stepAnswered = step === undefined || Object.keys(step.requests).every((key) => step.answers[key] !== undefined);
    // Earlier rounds' answers were sealed by us; this retry's cannot replace them.
    this.known = stepAnswered ? { ...responses, ...opened?.answers } : { ...opened?.answers };
  }

  /** The requests the previous attempt returned, to answer before the handler is called. */
  get resumed(): InputRequests | undefined {
    return this.fresh ? undefined : this.step?.requests;
  }

  /** The handler returned requests in this attempt: they go out this round; its await-style answers start afresh. */
  returned(requests: InputRequests): void {
    this.step = { requests, answers: {} };
    this.fresh = true;
    this.known = {};
    this.used = {};
  }

  /** Asks a returned request: answered from the step's answers so far, then this retry's responses. */
  readonly stepAsker: ClientAsker = {
    refusesUndeclared: 'wire_error',
    ask: (method, params, key) => {
      const answer = this.fresh ? undefined : this.step?.answers[key] ?? this.responses[key];
      if (answer !== undefined && answerProblem(method, answer) === undefined) {
        this.step!.answers[key] = answer;
        return Promise.resolve(answer);
      }
      return this.unanswer(method, params, key);
    },
  };

  ask(method: ClientMethod, params: JsonObject, key: string): Promise<JsonObject> {
    const answer = this.known[key];
    // An answer of the wrong shape is no answer: the client is asked again.
    if (answer !== undefined && answerProblem(method, answer) === undefined) {
      this.used[key] = answer;
      return Promise.resolve(answer);
    }
    return this.unanswer(method, params, key);
  }

  private unanswer(method: ClientMethod, params: JsonObject, key: string): Promise<JsonObject> {
    if (!this.unanswered.has(key)) this.unanswered.set(key, { method, params });
    return Promise.reject(new InputRequiredSignal(key));
  }

  /** Whether the attempt asked for something it was not given. */
  get incomplete(): boolean {
    return this.unanswered.size > 0;
  }

  /** The input-required result of an incomplete attempt. */
  inputRequired(): JsonObject {
    if (this.round + 1 > this.limits.maxInputRounds) throw new InvalidRequestStateError('too_many_rounds');
    const requestState = this.sealer.seal({
      target: this.target,
      round: this.round + 1,
      answers: this.used,
      expiresAt: this.now() + this.limits.requestStateTtlMs,
      ...(this.state === undefined ? {} : { state: this.state }),
      ...(this.step === undefined ? {} : { step: this.step }),
    });
    if (requestState.length > this.limits.maxRequestStateBytes) {
      throw new LimitExceededError('maxRequestStateBytes', this.limits.maxRequestStateBytes, 200);
    }
    const inputRequests = Object.fromEntries([...this.unanswered].map(([key, request]) => [key, request]));
    return { resultType: 'input_required', inputRequests, requestState };
  }
}

/** `inputResponses`: absent, or an object of objects (anything else is a protocol error, -32602). */
function readInputResponses(value: unknown): Record<string, JsonObject> {
  if (value === undefined) return {};
  if (!isJsonObject(value)) throw new InvalidParamsError('Invalid params: inputResponses must be an object');
  for (const [key, response] of Object.entries(value)) {
    if (!isJsonObject(response)) throw new InvalidParamsError(`Invalid params: inputResponses.${key} must be an object`);
  }
  return value as Record<string, JsonObject>;
}

/**
 * What a handler may ask the client for (elicitation, sampling, roots), in
 * the shapes of the spec's schemas, and the part of the request context that
 * asks. The same call works in both eras: the era decides how it travels
 * (legacy: a request to the client over the session, see client-requests.ts;
 * modern: an input-required result and the client's retry, see input-round.ts).
 * Both check the client's declared capabilities first and the shape of the
 * answer after, so a handler only ever sees a well-formed answer.
 */
import { McpActorsError } from '../../machines/errors.ts';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult } from '../protocol/client-request-shapes.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { InvalidClientAnswerError, MissingClientCapabilityError } from './errors.ts';
import { isJsonObject } from './json-values.ts';

// The shapes of what a handler asks and gets back are the protocol's, shared with the client that answers.
export type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitParams,
  ElicitResult,
  ElicitUrlParams,
  ListRootsResult,
  Root,
  SamplingMessage,
} from '../protocol/client-request-shapes.ts';

/**
 * Options of one ask. `key` names the ask in a modern input-required result
 * (`inputRequests[key]`, answered as `inputResponses[key]`); without it asks
 * are numbered per method in call order (`elicitation-1`, `sampling-1`,
 * `roots-1`), which is stable as long as the handler asks in the same order on
 * every attempt. Legacy clients never see it.
 */
export interface AskOptions {
  /** The ask's key in a modern input-required result; numbered per method when left out. */
  key?: string;
}

/** The methods a handler can send to the client. */
export type ClientMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** How one era carries an ask; answers it or rejects. Internal to the server. */
export interface ClientAsker {
  /**
   * What an ask the client has no capability for throws: modern, the spec's
   * -32021 error; legacy (which has no such code), a plain failure, so a tool
   * reports it as its own error (`isError: true`).
   */
  readonly refusesUndeclared: 'wire_error' | 'handler_failure';
  ask(method: ClientMethod, params: JsonObject, key: string): Promise<JsonObject>;
}

/** A legacy client did not declare (in `initialize`) the capability an ask needs; nothing was sent. */
export class UndeclaredClientCapabilityError extends McpActorsError {
  override readonly name = 'UndeclaredClientCapabilityError';
  readonly code = 'client_capability_undeclared';
  constructor(
    /** The request (or notification) the handler tried to send. */ readonly method: ClientMethod | 'notifications/elicitation/complete',
    /** The capability it needs, as the client would declare it. */ readonly required: Record<string, object>,
  ) {
    super(`The client did not declare the ${Object.keys(required).join(', ')} capability that ${method} needs`);
  }
}

/** The asking part of a handler's context (see RequestContext). */
export interface ClientInput {
  /** Asks the user for input through the client (`elicitation/create`). */
  elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult>;
  /** Asks the client's LLM for a message (`sampling/createMessage`). */
  createMessage(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult>;
  /** Asks for the client's roots (`roots/list`). */
  listRoots(options?: AskOptions): Promise<ListRootsResult>;
}

const AUTO_KEY_PREFIX: Record<ClientMethod, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The capability a method needs, as the `requiredCapabilities` data of -32021 names it. */
export function requiredCapability(method: ClientMethod, params: JsonObject): Record<string, object> | undefined {
  switch (method) {
    case 'elicitation/create':
      return params.mode === 'url' ? { elicitation: { url: {} } } : { elicitation: {} };
    case 'sampling/createMessage':
      return { sampling: {} };
    case 'roots/list':
      return { roots: {} };
  }
}

/** Whether the client's capabilities include every one `needed` names. */
export function declares(capabilities: Readonly<Record<string, unknown>>, needed: Record<string, object>): boolean {
  return Object.entries(needed).every(([name, sub]) => {
    const declared = capabilities[name];
    if (!isJsonObject(declared)) return false;
    return Object.keys(sub).every((key) => declared[key] !== undefined);
  });
}

/** Why an answer does not fit its method's result schema; undefined when it fits. */
export function answerProblem(method: ClientMethod, answer: unknown): string | undefined {
  if (!isJsonObject(answer)) return 'is not an object';
  switch (method) {
    case 'elicitation/create':
      if (!['accept', 'decline', 'cancel'].includes(answer.action as string)) return 'has no valid action';
      if (answer.content !== undefined && !isJsonObject(answer.content)) return 'has content that is not an object';
      return undefined;
    case 'sampling/createMessage':
      if (answer.role !== 'user' && answer.role !== 'assistant') return 'has no valid role';
      if (typeof answer.model !== 'string') return 'has no model';
      if (!isJsonObject(answer.content) && !Array.isArray(answer.content)) return 'has no content';
      return undefined;
    case 'roots/list':
      if (!Array.isArray(answer.roots) || !answer.roots.every((root) => isJsonObject(root) && typeof root.uri === 'string')) {
        return 'has no valid roots';
      }
      return undefined;
  }
}

/**
 * The asking methods of one request's context: each checks the client's
 * capability (a missing one is MissingClientCapabilityError, -32021), names
 * the ask, hands it to the era's asker, and checks the answer's shape.
 */
export function clientInput(asker: ClientAsker, capabilities: Readonly<Record<string, unknown>>): ClientInput {
  const counts = new Map<ClientMethod, number>();
  const ask = async (method: ClientMethod, params: JsonObject, options: AskOptions | undefined): Promise<JsonObject> => {
    const needed = requiredCapability(method, params);
    if (needed && !declares(capabilities, needed)) {
      throw asker.refusesUndeclared === 'wire_error' ? new MissingClientCapabilityError(needed) : new UndeclaredClientCapabilityError(method, needed);
    }
    const count = (counts.get(method) ?? 0) + 1;
    counts.set(method, count);
    const key = options?.key ?? `${AUTO_KEY_PREFIX[method]}-${count}`;
    const answer = await asker.ask(method, params, key);
    const problem = answerProblem(method, answer);
    if (problem !== undefined) throw new InvalidClientAnswerError(method, problem);
    return answer;
  };
  return {
    elicit: async (params, options) => (await ask('elicitation/create', params, options)) as ElicitResult,
    createMessage: async (params, options) => (await ask('sampling/createMessage', params, options)) as CreateMessageResult,
    listRoots: async (options) => (await ask('roots/list', {}, options)) as ListRootsResult,
  };
}

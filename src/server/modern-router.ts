/**
 * Answers one modern-era (2026-07-28) request: the `_meta` envelope first,
 * then the method. Methods the modern era removed (initialize, ping,
 * logging/setLevel, resources/subscribe, resources/unsubscribe) are unknown
 * here, as the spec requires.
 */
import type { JsonObject, JsonRpcRequest } from '../protocol/jsonrpc.ts';
import { callerMeta } from '../protocol/request-meta.ts';
import { MetaKey } from '../protocol/versions.ts';
import { cacheHintFor } from './caching.ts';
import type { ServerCore } from './core.ts';
import { readEnvelope, SUPPORTED_MODERN_VERSIONS } from './envelope.ts';
import { InvalidRequestError, MethodNotFoundError, toWireError } from './errors.ts';
import type { ClientAsker } from './client-input.ts';
import * as methods from './methods.ts';
import { INPUT_METHODS, InputRound } from './input-round.ts';
import { stepsInProcess } from './input-required.ts';
import type { Outcome } from './outcome.ts';
import { createRequestContext, type ReplyChannel } from './request-context.ts';
import { traceRequest } from './request-trace.ts';

/**
 * `subscriptions/listen` is answered synchronously, so a stream is open
 * before the next inbound frame is read (no window in which a change the
 * client triggered right after listening could slip past the stream).
 */
export function routeListen(core: ServerCore, request: JsonRpcRequest): Outcome {
  try {
    readEnvelope(request.params);
    return { kind: 'listen', honored: core.honor(request.params?.notifications) };
  } catch (error) {
    return { kind: 'error', error: toWireError(error) };
  }
}

/** Answers one modern request (published on the request channel, request-trace.ts). */
export function routeModern(core: ServerCore, request: JsonRpcRequest, channel: ReplyChannel, signal: AbortSignal): Promise<Outcome> {
  return traceRequest(request, 'modern', () => answerModern(core, request, channel, signal));
}

async function answerModern(core: ServerCore, request: JsonRpcRequest, channel: ReplyChannel, signal: AbortSignal): Promise<Outcome> {
  if (request.method === 'subscriptions/listen') return routeListen(core, request);
  try {
    const { params, method } = request;
    const envelope = readEnvelope(params);
    const round = INPUT_METHODS.has(method) ? new InputRound(core.requestStates, core.limits, Date.now, method, params) : undefined;
    const context = createRequestContext({
      era: 'modern',
      requestId: request.id,
      signal,
      clientCapabilities: envelope.clientCapabilities,
      meta: callerMeta(params?._meta),
      progressToken: envelope.progressToken,
      logThreshold: envelope.logLevel,
      channel,
      asker: round ?? NO_ASKS,
      inputRound: round?.round ?? 0,
      steps: round ?? stepsInProcess(NO_ASKS, 0),
    });
    let result: JsonObject | undefined;
    try {
      result = method === 'server/discover' ? discoverResult(core) : await methods.answerShared(method, core.registry, params, core.pageSize, context, core.settled);
    } catch (error) {
      if (!round?.incomplete) throw error;
    }
    // Whatever the attempt returned or threw, it ran without input it asked for.
    if (round?.incomplete) return { kind: 'result', result: round.inputRequired() };
    if (!result) throw new MethodNotFoundError(method);
    // A complete result: cacheable methods carry their hints.
    return { kind: 'result', result: { resultType: 'complete', ...result, ...cacheHintFor(core.caching, core.registry, method, params) } };
  } catch (error) {
    return { kind: 'error', error: toWireError(error) };
  }
}

/** Methods outside INPUT_METHODS run no handler that could ask; should one ever, it is refused. */
const NO_ASKS: ClientAsker = {
  refusesUndeclared: 'wire_error',
  ask: (method) => Promise.reject(new InvalidRequestError(`Invalid request: ${method} cannot be asked while answering this method`)),
};

function discoverResult(core: ServerCore): JsonObject {
  const result: JsonObject = {
    supportedVersions: SUPPORTED_MODERN_VERSIONS,
    capabilities: core.capabilities,
    _meta: { [MetaKey.serverInfo]: core.info },
  };
  if (core.instructions !== undefined) result.instructions = core.instructions;
  return result;
}

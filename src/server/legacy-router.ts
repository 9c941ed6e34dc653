/**
 * Answers one legacy-era request on a session: `initialize` and `ping` in
 * any live state, everything else only after `initialize`.
 */
import type { JsonObject, JsonRpcRequest } from '../protocol/jsonrpc.ts';
import { isLogLevel } from '../protocol/log-level.ts';
import { callerMeta } from '../protocol/request-meta.ts';
import type { ServerCore } from './core.ts';
import { InvalidParamsError, InvalidRequestError, MethodNotFoundError, NotInitializedError, toWireError } from './errors.ts';
import type { LegacySession } from './legacy-session.ts';
import * as methods from './methods.ts';
import type { Outcome } from './outcome.ts';
import { createRequestContext, type ReplyChannel } from './request-context.ts';
import { isJsonObject } from './json-values.ts';
import { stepsInProcess } from './input-required.ts';
import { traceRequest } from './request-trace.ts';

export function routeLegacy(
  core: ServerCore,
  session: LegacySession,
  request: JsonRpcRequest,
  channel: ReplyChannel,
  signal: AbortSignal,
): Promise<Outcome> {
  // Published on the request channel (request-trace.ts).
  return traceRequest(request, 'legacy', async () => {
    try {
      return { kind: 'result', result: await answer(core, session, request, channel, signal) };
    } catch (error) {
      return { kind: 'error', error: toWireError(error) };
    }
  });
}

async function answer(core: ServerCore, session: LegacySession, request: JsonRpcRequest, channel: ReplyChannel, signal: AbortSignal): Promise<JsonObject> {
  const { method, params } = request;
  if (method === 'initialize') return initialize(core, session, params);
  if (method === 'ping') return {};
  if (session.state === 'uninitialized') throw new NotInitializedError(method);
  const meta = params?._meta;
  const token = isJsonObject(meta) ? meta.progressToken : undefined;
  const asker = session.clientRequests.askerFor(channel, signal);
  const context = createRequestContext({
    era: 'legacy',
    requestId: request.id,
    signal,
    clientCapabilities: session.clientCapabilities,
    meta: callerMeta(meta),
    progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
    logThreshold: session.logLevel ?? 'debug',
    channel,
    asker,
    inputRound: 0,
    steps: stepsInProcess(asker, core.limits.maxInputRounds),
    notifySession: (json) => session.notify(json),
  });
  const shared = methods.answerShared(method, core.registry, params, core.pageSize, context, core.settled);
  if (shared) return shared;
  switch (method) {
    case 'resources/subscribe':
      if (!core.capabilities.resources?.subscribe) throw new MethodNotFoundError(method);
      session.subscribe(methods.uriParam(params));
      return {};
    case 'resources/unsubscribe':
      if (!core.capabilities.resources?.subscribe) throw new MethodNotFoundError(method);
      session.unsubscribe(methods.uriParam(params));
      return {};
    case 'logging/setLevel': {
      const level = params?.level;
      if (!isLogLevel(level)) throw new InvalidParamsError('Invalid params: level must be a log level');
      session.logLevel = level;
      return {};
    }
    default:
      throw new MethodNotFoundError(method);
  }
}

function initialize(core: ServerCore, session: LegacySession, params: JsonObject | undefined): JsonObject {
  if (session.state !== 'uninitialized') throw new InvalidRequestError('initialize was already called on this session');
  const capabilities = params?.capabilities;
  const protocolVersion = session.initialize(params?.protocolVersion, isJsonObject(capabilities) ? capabilities : {});
  const result: JsonObject = { protocolVersion, capabilities: core.capabilities, serverInfo: core.info };
  if (core.instructions !== undefined) result.instructions = core.instructions;
  return result;
}

/**
 * Modern-era (2026-07-28) Streamable HTTP: one POST per request, no session.
 * The mirrored headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, and the
 * Mcp-Param-* of a tool's x-mcp-header arguments) must match the body or the
 * request is refused with HeaderMismatch (-32020, HTTP 400).
 * A `subscriptions/listen` POST is answered with a long-lived SSE stream whose
 * closing by the client cancels the subscription.
 */
import type { HttpRequestHead, HttpResponse } from './http-exchange.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject, JsonRpcRequest } from '../protocol/jsonrpc.ts';
import { MetaKey } from '../protocol/versions.ts';
import type { ServerCore } from './core.ts';
import type { ListenStream } from './listen-stream.ts';
import { HeaderMismatchError, type WireError } from './errors.ts';
import { HttpReply, keepAlive, sendJson, sendStatus, startSse } from './http-io.ts';
import { routeListen, routeModern } from './modern-router.ts';
import { decodeHeaderValue, paramHeaderMismatch } from './param-headers.ts';
import { errorFrame, resultFrame } from './outcome.ts';

const header = (req: HttpRequestHead, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};


/** Methods whose `Mcp-Name` header mirrors a body field. */
const NAME_SOURCE: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

function headerMismatch(core: ServerCore, req: HttpRequestHead, request: JsonRpcRequest): HeaderMismatchError | undefined {
  const version = header(req, 'mcp-protocol-version');
  if (version === undefined) return new HeaderMismatchError('Header mismatch: MCP-Protocol-Version header is required');
  const meta = request.params?._meta;
  const bodyVersion = typeof meta === 'object' && meta !== null ? (meta as JsonObject)[MetaKey.protocolVersion] : undefined;
  if (typeof bodyVersion === 'string' && bodyVersion !== version) {
    return new HeaderMismatchError(`Header mismatch: MCP-Protocol-Version header ${version} does not match body ${bodyVersion}`);
  }
  const method = header(req, 'mcp-method');
  if (method === undefined) return new HeaderMismatchError('Header mismatch: Mcp-Method header is required');
  if (method !== request.method) {
    return new HeaderMismatchError(`Header mismatch: Mcp-Method header ${method} does not match body ${request.method}`);
  }
  const source = NAME_SOURCE[request.method];
  if (source) {
    const raw = header(req, 'mcp-name');
    if (raw === undefined) return new HeaderMismatchError('Header mismatch: Mcp-Name header is required');
    const bodyValue = request.params?.[source];
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return new HeaderMismatchError('Header mismatch: Mcp-Name header is not valid Base64 of UTF-8');
    if (decoded !== bodyValue) {
      return new HeaderMismatchError(`Header mismatch: Mcp-Name header does not match body ${source}`);
    }
  }
  const tool = request.method === 'tools/call' ? core.registry.tools.get(String(request.params?.name)) : undefined;
  const args = request.params?.arguments;
  if (tool && typeof args === 'object' && args !== null && !Array.isArray(args)) {
    return paramHeaderMismatch(tool.definition.inputSchema, args as JsonObject, (name) => header(req, name));
  }
  return undefined;
}

const failWith = (res: HttpResponse, id: JsonRpcRequest['id'] | null, error: WireError): void =>
  sendJson(res, error.httpStatus, errorFrame(id, error));

/**
 * The listen streams open on one HTTP endpoint, so that closing the endpoint
 * ends each gracefully (its `complete` result flushed) before the sockets go.
 */
export class EndpointStreams {
  /** Each open stream, with its response's end. */
  readonly #open = new Map<ListenStream, Promise<void>>();
  #closing = false;

  add(stream: ListenStream, res: HttpResponse): void {
    if (this.#closing) {
      void stream.complete();
      return;
    }
    const responded = new Promise<void>((resolve) => res.once('close', () => resolve()));
    this.#open.set(stream, responded);
    void responded.then(() => this.#open.delete(stream));
  }

  /** Completes every open stream (flushed, or cut by its finish timeout) and waits for its response to end; later ones complete at once. */
  async completeAll(): Promise<void> {
    this.#closing = true;
    await Promise.all(
      [...this.#open].map(async ([stream, responded]) => {
        await stream.complete();
        await responded;
      }),
    );
  }
}

export async function handleModernRequest(
  core: ServerCore,
  req: HttpRequestHead,
  res: HttpResponse,
  request: JsonRpcRequest,
  keepAliveMs: number,
  streams: EndpointStreams,
): Promise<void> {
  const mismatch = headerMismatch(core, req, request);
  if (mismatch) return failWith(res, request.id, mismatch);
  const controller = new AbortController();
  // The client closing its end of the response stream is the cancellation signal on HTTP.
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  if (request.method === 'subscriptions/listen') {
    const outcome = routeListen(core, request);
    if (outcome.kind === 'listen') return openListenStream(core, res, request, outcome.honored, keepAliveMs, streams);
    if (outcome.kind === 'error') return failWith(res, request.id, outcome.error);
  }
  const refusal = core.requestRefusal(request.method, 0);
  if (refusal) return failWith(res, request.id, refusal);
  await core.running.track(controller, answer(core, res, request, keepAliveMs, controller));
}

/** Answers an admitted request, plain or, once it took long or sent something first, as a stream. */
async function answer(core: ServerCore, res: HttpResponse, request: JsonRpcRequest, keepAliveMs: number, controller: AbortController): Promise<void> {
  const reply = new HttpReply(res, {
    highWater: core.limits.outboxHighWater,
    keepAliveMs,
    overflow: { maxBytes: core.limits.maxQueuedBytes, finishTimeoutMs: core.limits.finishTimeoutMs, requestId: request.id, abort: (error) => controller.abort(error) },
  });
  const outcome = await routeModern(core, request, reply, controller.signal);
  if (controller.signal.aborted) return;
  if (outcome.kind === 'result') return reply.finish(resultFrame(request.id, outcome.result), 200);
  if (outcome.kind === 'error') return reply.finish(errorFrame(request.id, outcome.error), outcome.error.httpStatus);
}

function openListenStream(
  core: ServerCore,
  res: HttpResponse,
  request: JsonRpcRequest,
  honored: NotificationFilter,
  keepAliveMs: number,
  streams: EndpointStreams,
): void {
  try {
    core.assertRoomForStream();
  } catch (error) {
    return failWith(res, request.id, error as WireError);
  }
  const outbox = startSse(res, core.limits.outboxHighWater);
  const stopKeepAlive = keepAlive(res, outbox, keepAliveMs);
  const cancel = () => stream.cancel();
  const stream = core.openStream(request.id, honored, outbox, {
    kind: 'http',
    streamEnded: (_stream, reason) => {
      stopKeepAlive();
      res.off('close', cancel);
      // completed / slow_consumer: the last message is flushed. finish_timeout: the
      // client stopped reading, so cut the response instead of queueing its end.
      if (reason.type === 'completed' || reason.type === 'slow_consumer') res.end();
      else res.destroy();
    },
  });
  res.on('close', cancel);
  streams.add(stream, res);
}

/** Modern HTTP defines no client notifications; accept them as the spec's transport mechanics say. */
export const acceptModernNotification = (res: HttpResponse): void => sendStatus(res, 202);

/**
 * Small pieces of HTTP I/O shared by both eras: answering with JSON, and the
 * per-request reply that turns into an SSE stream the first time the handler
 * sends something before its response, or once it has taken long.
 */
import type { RequestId } from '../protocol/jsonrpc.ts';
import { SlowConsumerError } from './errors.ts';
import type { HttpResponse } from './http-exchange.ts';
import { errorFrame } from './outcome.ts';
import { Outbox, type QueueBound, type QueueOverflow } from './outbox.ts';
import { settledWithin } from './settled-within.ts';
import type { ReplyChannel } from './request-context.ts';

/**
 * What a 429 (a limit reached) or 503 (the server closing, or full of sessions) asks its client to wait, in seconds:
 * long enough that a crowd of clients does not retry at once on the quick first steps of their backoffs, short
 * enough that a client behind a load balancer soon reaches a node that takes it. Clients that honor `Retry-After`
 * (ours does) space their retries by it.
 */
export const RETRY_AFTER_SECONDS = 1;

/** Answers with a JSON body; a 429 or 503 says when to come back (`Retry-After`). */
export function sendJson(res: HttpResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const retryAfter: Record<string, string> = status === 429 || status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {};
  res.writeHead(status, { 'content-type': 'application/json', ...retryAfter, ...headers });
  res.end(body);
}

export function sendStatus(res: HttpResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, headers);
  res.end();
}

export const sseFrame = (json: string): string => `event: message\ndata: ${json}\n\n`;

/** The event a resumable stream opens with: its cursor (`id`) and reconnect delay, no message. */
export const ssePrimingFrame = (id: string, retryMs: number): string => `id: ${id}\nretry: ${retryMs}\ndata: \n\n`;

/** A bare `retry` field: sent before a replay, and before the server ends a stream on purpose. */
export const sseRetryFrame = (retryMs: number): string => `retry: ${retryMs}\n\n`;

export function openSse(res: HttpResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...headers,
  });
  res.flushHeaders();
}

export function startSse(res: HttpResponse, highWater: number, headers: Record<string, string> = {}, bound?: QueueBound): Outbox {
  openSse(res, headers);
  return new Outbox(res, sseFrame, highWater, { bound });
}

/** How an `HttpReply` writes, and what it does about a client that stops reading its stream. */
export interface HttpReplyOptions {
  /** The outbox's high-water mark (`outboxHighWater`). */
  highWater: number;
  headers?: Record<string, string>;
  /** A response that takes longer becomes a stream, with a comment whenever it was idle that long; 0: never. */
  keepAliveMs?: number;
  /**
   * Bounds what waits unread (`maxQueuedBytes`): past it the request is answered with SlowConsumerError, the stream
   * ends and `abort` stops the handler.
   */
  overflow?: { maxBytes: number; finishTimeoutMs: number; requestId: RequestId; abort: (error: SlowConsumerError) => void };
}

/**
 * One request's response: plain JSON, unless something is sent before the
 * response, or the response takes longer than `keepAliveMs`: then an SSE
 * stream, with a comment whenever it was idle that long (a proxy's idle
 * timeout would cut a response that sent nothing for that long, headers
 * included). When the response closes (the client went away) its outbox is
 * closed, which releases every writer waiting for room. A client that lets
 * more than `maxQueuedBytes` wait unread gets SlowConsumerError as the
 * stream's last message instead of what waited.
 */
export class HttpReply implements ReplyChannel {
  private outbox: Outbox | undefined;
  private readonly streamDue: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly res: HttpResponse,
    private readonly options: HttpReplyOptions,
  ) {
    res.once('close', () => {
      clearTimeout(this.streamDue);
      this.outbox?.close();
    });
    const keepAliveMs = options.keepAliveMs ?? 0;
    this.streamDue = keepAliveMs > 0 ? unrefTimeout(() => this.stream(), keepAliveMs) : undefined;
  }

  notify(json: string): Promise<void> {
    if (this.res.destroyed || this.res.writableEnded) return Promise.resolve();
    const outbox = this.stream();
    outbox.push(json);
    return outbox.room();
  }

  /** Writes the final response (status applies only when no stream was started) and ends. */
  async finish(json: string, status: number): Promise<void> {
    clearTimeout(this.streamDue);
    if (this.res.destroyed || this.res.writableEnded) return;
    if (!this.outbox) {
      sendJson(this.res, status, json, this.options.headers);
      return;
    }
    this.outbox.push(json);
    await this.outbox.flushed();
    this.res.end();
  }

  private stream(): Outbox {
    if (this.outbox) return this.outbox;
    const max = this.options.overflow?.maxBytes;
    const bound = max === undefined ? undefined : { maxBytes: max, overflowed: (overflow: QueueOverflow) => this.overflowed(overflow) };
    this.outbox = startSse(this.res, this.options.highWater, this.options.headers, bound);
    keepAlive(this.res, this.outbox, this.options.keepAliveMs ?? 0);
    return this.outbox;
  }

  /**
   * The client let too much wait: what waited gives way to the error, the stream ends once it is written. A client
   * that still reads nothing gets `finishTimeoutMs`, then its connection is cut, so it cannot hold the socket.
   */
  private overflowed(overflow: QueueOverflow): void {
    const outbox = this.outbox!;
    const { requestId, abort, finishTimeoutMs } = this.options.overflow!;
    const error = new SlowConsumerError(overflow.maxQueuedBytes);
    outbox.close(errorFrame(requestId, error));
    abort(error);
    void settledWithin(outbox.flushed(), finishTimeoutMs).then((flushed) => (flushed ? this.res.end() : this.res.destroy()));
  }
}

/** A timeout that never keeps the process alive. */
export function unrefTimeout(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return timer;
}

/**
 * Writes an SSE comment on a long-lived stream whenever it has been idle for
 * `intervalMs`, so intermediaries and client idle timeouts keep it open.
 * Only when the outbox is idle, so it never jumps the queue. Returns the stop.
 */
export function keepAlive(res: HttpResponse, outbox: Outbox, intervalMs: number): () => void {
  if (intervalMs <= 0) return () => {};
  const timer = setInterval(() => {
    if (outbox.idle && !res.writableEnded && !res.destroyed) res.write(':\n\n');
  }, intervalMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  res.on('close', stop);
  return stop;
}

/**
 * Small pieces of HTTP I/O shared by both eras: answering with JSON, and the
 * per-request reply that turns into an SSE stream the first time the handler
 * sends something before its response.
 */
import type { HttpResponse } from './http-exchange.ts';
import { Outbox } from './outbox.ts';
import type { ReplyChannel } from './request-context.ts';

export function sendJson(res: HttpResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
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

export function startSse(res: HttpResponse, highWater: number, headers: Record<string, string> = {}): Outbox {
  openSse(res, headers);
  return new Outbox(res, sseFrame, highWater);
}

/**
 * One request's response: plain JSON, unless something is sent before the
 * response. When the response closes (the client went away) its outbox is
 * closed, which releases every writer waiting for room.
 */
export class HttpReply implements ReplyChannel {
  private outbox: Outbox | undefined;

  constructor(
    private readonly res: HttpResponse,
    private readonly highWater: number,
    private readonly headers: Record<string, string> = {},
  ) {
    res.once('close', () => this.outbox?.close());
  }

  notify(json: string): Promise<void> {
    if (this.res.destroyed || this.res.writableEnded) return Promise.resolve();
    this.outbox ??= startSse(this.res, this.highWater, this.headers);
    this.outbox.push(json);
    return this.outbox.room();
  }

  /** Writes the final response (status applies only when no stream was started) and ends. */
  async finish(json: string, status: number): Promise<void> {
    if (this.res.destroyed || this.res.writableEnded) return;
    if (!this.outbox) {
      sendJson(this.res, status, json, this.headers);
      return;
    }
    this.outbox.push(json);
    await this.outbox.flushed();
    this.res.end();
  }
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

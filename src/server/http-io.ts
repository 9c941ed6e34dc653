/**
 * Small pieces of HTTP I/O shared by both eras: reading a bounded body,
 * answering with JSON, and the per-request reply that turns into an SSE
 * stream the first time the handler sends something before its response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Outbox } from './outbox.ts';
import type { ReplyChannel } from './request-context.ts';

export type BodyResult = { kind: 'ok'; text: string } | { kind: 'too_large' } | { kind: 'aborted' };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ kind: 'too_large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        resolve({ kind: 'too_large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) resolve({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8') });
      done = true;
    });
    req.on('error', () => {
      if (!done) resolve({ kind: 'aborted' });
      done = true;
    });
  });
}

export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

export function sendStatus(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, headers);
  res.end();
}

export const sseFrame = (json: string): string => `event: message\ndata: ${json}\n\n`;

export function openSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...headers,
  });
  res.flushHeaders();
}

export function startSse(res: ServerResponse, highWater: number, headers: Record<string, string> = {}): Outbox {
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
    private readonly res: ServerResponse,
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
export function keepAlive(res: ServerResponse, outbox: Outbox, intervalMs: number): () => void {
  if (intervalMs <= 0) return () => {};
  const timer = setInterval(() => {
    if (outbox.idle && !res.writableEnded && !res.destroyed) res.write(':\n\n');
  }, intervalMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  res.on('close', stop);
  return stop;
}

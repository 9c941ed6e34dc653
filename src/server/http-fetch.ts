/**
 * The endpoint as a fetch-style `(request: Request) => Promise<Response>`
 * handler, the shape web-standard servers (Hono, Bun, Deno, workers) call.
 * The same endpoint logic as the Node handler runs behind it: a small sink
 * plays the response the endpoint writes into and becomes a `Response`
 * whose body streams what is written, with backpressure (writes report full
 * until the reader pulls), and whose cancellation is the client going away.
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { BodyResult, HttpResponse } from './http-exchange.ts';
import type { HttpEndpoint } from './http-endpoint.ts';

/** A mounted MCP endpoint for web-standard servers; resolves as soon as the status and headers are known (a stream's body follows). */
export interface FetchMcpHandler {
  (request: Request): Promise<Response>;
  /** Ends this handler's listen streams gracefully (`resultType: 'complete'`) and its legacy sessions; later requests get 503. */
  close(): Promise<void>;
}

/** Bytes a response body may hold unread before writes report full. */
const BODY_HIGH_WATER = 64 * 1024;
const encoder = new TextEncoder();

export function createFetchHandler(endpoint: HttpEndpoint): FetchMcpHandler {
  const handler = async (request: Request): Promise<Response> => {
    const sink = new ResponseSink(request.signal);
    const head = { method: request.method, headers: headersOf(request) };
    void endpoint.serve(head, (maxBytes) => readBody(request, maxBytes), sink).then(() => sink.endUnanswered());
    return sink.response;
  };
  return Object.assign(handler, { close: () => endpoint.close() });
}

function headersOf(request: Request): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // A Request built from a URL alone carries no Host header; its URL names the host.
  headers.host ??= new URL(request.url).host;
  return headers;
}

async function readBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const declared = Number(request.headers.get('content-length') ?? undefined);
  if (Number.isFinite(declared) && declared > maxBytes) return { kind: 'too_large' };
  if (!request.body) return { kind: 'text', text: '' };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        void reader.cancel();
        return { kind: 'too_large' };
      }
      chunks.push(value);
    }
  } catch {
    return { kind: 'aborted' };
  }
  return { kind: 'text', text: Buffer.concat(chunks).toString('utf8') };
}

/** The response the endpoint writes into, turned into a `Response` once its head is sent. */
class ResponseSink implements HttpResponse {
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  readonly response: Promise<Response>;
  readonly #events = new EventEmitter();
  readonly #body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #resolve!: (response: Response) => void;
  #status = 200;
  #headers: Record<string, string> = {};
  #full = false;

  constructor(signal: AbortSignal) {
    this.response = new Promise((resolve) => (this.#resolve = resolve));
    this.#body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          if (!this.#full) return;
          this.#full = false;
          this.#events.emit('drain');
        },
        cancel: () => this.#gone(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: BODY_HIGH_WATER }),
    );
    signal.addEventListener('abort', () => this.#gone(), { once: true });
  }

  getHeader(name: string): string | undefined {
    return this.#headers[name.toLowerCase()];
  }

  setHeader(name: string, value: string): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  writeHead(status: number, headers: Record<string, string>): this {
    this.#status = status;
    this.#headers = { ...this.#headers, ...headers };
    return this;
  }

  flushHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    // A 204 (a preflight's answer) may not have a body, not even an empty stream.
    const body = this.#status === 204 ? null : this.#body;
    this.#resolve(new Response(body, { status: this.#status, headers: this.#headers }));
  }

  write(chunk: string): boolean {
    this.flushHeaders();
    // Writes after the end are dropped, as a closed outbox drops them; reporting room keeps no writer waiting.
    if (this.writableEnded || this.destroyed) return true;
    this.#controller.enqueue(encoder.encode(chunk));
    this.#full = (this.#controller.desiredSize ?? 0) <= 0;
    return !this.#full;
  }

  end(chunk?: string): this {
    if (this.writableEnded || this.destroyed) return this;
    if (chunk !== undefined) this.write(chunk);
    this.flushHeaders();
    this.writableEnded = true;
    this.writableFinished = true;
    this.#controller.close();
    queueMicrotask(() => this.#events.emit('close'));
    return this;
  }

  destroy(): this {
    if (this.destroyed || this.writableEnded) return this;
    this.flushHeaders();
    this.#gone();
    return this;
  }

  /** After the endpoint is done: a request it left unanswered (its body could not be read) gets an empty 400. */
  endUnanswered(): void {
    if (this.headersSent) return;
    this.writeHead(400, {});
    this.end();
  }

  on(event: 'close', listener: () => void): this {
    this.#events.on(event, listener);
    return this;
  }

  once(event: 'close' | 'drain', listener: () => void): this {
    this.#events.once(event, listener);
    return this;
  }

  off(event: 'close', listener: () => void): this {
    this.#events.off(event, listener);
    return this;
  }

  /** The client went away (the body was cancelled, the request aborted) or the response was cut. */
  #gone(): void {
    if (this.destroyed || this.writableFinished) return;
    this.destroyed = true;
    // Whoever still reads the body learns it was cut (a no-op once the reader cancelled it).
    this.#controller.error(new Error('the MCP response was cut'));
    this.#events.emit('close');
  }
}

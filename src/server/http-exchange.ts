/**
 * The narrow face of one HTTP exchange that the endpoint logic works on, so
 * that one implementation serves node:http (whose IncomingMessage and
 * ServerResponse fit these shapes as they are) and fetch-style Request →
 * Response (through the adapter in http-fetch.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The request line and headers (header names lower-case, as node:http gives them). */
export interface HttpRequestHead {
  readonly method?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** The subset of node:http's ServerResponse the endpoint writes through. */
export interface HttpResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  /** A header set ahead of `writeHead` (by the endpoint, or by the app a handler is mounted in). */
  getHeader(name: string): unknown;
  /** Sets a header ahead of `writeHead`, whose own headers win where both name one. */
  setHeader(name: string, value: string): unknown;
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Sends the status and headers now, before any body (an SSE stream opens). */
  flushHeaders(): void;
  /** False when the sink is full: wait for 'drain'. */
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  /** Cuts the response without a proper end. */
  destroy(): unknown;
  on(event: 'close', listener: () => void): unknown;
  once(event: 'close' | 'drain', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** A request body as read, up to a byte bound: raw text, or the value a framework's body parser already produced. */
export type BodyResult =
  | { kind: 'text'; text: string }
  | { kind: 'parsed'; value: unknown }
  | { kind: 'too_large' }
  | { kind: 'aborted' };

/** Reads the body once, refusing more than `maxBytes`. */
export type BodySource = (maxBytes: number) => Promise<BodyResult>;

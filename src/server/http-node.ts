/**
 * The endpoint as a Node `(req, res, parsedBody?)` handler, to mount in
 * node:http, Express, Fastify (`request.raw`, `reply.raw`) or any framework
 * that hands out Node's request and response. listenHttp is built on it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyResult, BodySource } from './http-exchange.ts';
import type { HttpEndpoint } from './http-endpoint.ts';

/**
 * A mounted MCP endpoint for Node: call it with the request and response of
 * any route (the path is the app's business). Pass the parsed JSON body as
 * the third argument when a body parser (e.g. `express.json()`) already read
 * it; a function there (Express's `next`) is ignored and the body is read
 * from `req`. Resolves once the request is answered (a stream: once it ends).
 */
export interface NodeMcpHandler {
  (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Ends this handler's listen streams gracefully (`resultType: 'complete'`) and its legacy sessions; later requests get 503. */
  close(): Promise<void>;
}

export function createNodeHandler(endpoint: HttpEndpoint): NodeMcpHandler {
  const handler = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> => {
    const body: BodySource =
      parsedBody === undefined || typeof parsedBody === 'function'
        ? (maxBytes) => readBody(req, maxBytes)
        : (maxBytes) => Promise.resolve(boundedParsedBody(parsedBody, maxBytes));
    return endpoint.serve(req, body, res);
  };
  return Object.assign(handler, { close: () => endpoint.close() });
}

/** A body a framework parsed is held to the same bound, measured as JSON. */
export function boundedParsedBody(value: unknown, maxBytes: number): BodyResult {
  const json = JSON.stringify(value) ?? '';
  return Buffer.byteLength(json) > maxBytes ? { kind: 'too_large' } : { kind: 'parsed', value };
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    // Drained, not destroyed, so that the 413 still reaches the client.
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
      if (!done) resolve({ kind: 'text', text: Buffer.concat(chunks).toString('utf8') });
      done = true;
    });
    req.on('error', () => {
      if (!done) resolve({ kind: 'aborted' });
      done = true;
    });
  });
}

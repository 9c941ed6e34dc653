/**
 * One Streamable HTTP endpoint serving both eras, whatever carries it
 * (listenHttp's own node:http server, a Node handler mounted in an app, or a
 * fetch-style handler). A POST is legacy when it carries an `Mcp-Session-Id`
 * or is an `initialize` that claims no modern version; everything else is
 * modern. GET and DELETE exist only for legacy sessions. Every request passes
 * the Origin/Host check first; an allowed origin's gets CORS headers, and its
 * preflight (OPTIONS) an answer (http-cors.ts). The endpoint owns its legacy
 * sessions and listen streams, and `close()` ends them.
 */
import { classifyFrame } from '../protocol/jsonrpc.ts';
import { MODERN_VERSION } from '../protocol/versions.ts';
import type { ServerCore } from './core.ts';
import { eraOfOpening } from './envelope.ts';
import { InternalFailure, InvalidRequestError, ParseFailure, ServerClosingError } from './errors.ts';
import type { BodySource, HttpRequestHead, HttpResponse } from './http-exchange.ts';
import { rejectForeignOrigin, type OriginPolicy } from './http-guard.ts';
import { crossOriginHeaders, ENDPOINT_METHODS, preflightHeaders } from './http-cors.ts';
import { sendJson, sendStatus } from './http-io.ts';
import { LegacyHttpSessions } from './http-legacy.ts';
import { acceptModernNotification, EndpointStreams, handleModernRequest } from './http-modern.ts';
import { errorFrame, refusalFrame } from './outcome.ts';

export class HttpEndpoint {
  readonly #legacy: LegacyHttpSessions;
  readonly #streams = new EndpointStreams();
  #closing: Promise<void> | undefined;

  constructor(
    private readonly core: ServerCore,
    private readonly policy: OriginPolicy,
    private readonly keepAliveMs: number,
  ) {
    this.#legacy = new LegacyHttpSessions(core, keepAliveMs);
  }

  /** Serves one request; never rejects (a failure is answered 500, or cuts a started response). */
  async serve(req: HttpRequestHead, body: BodySource, res: HttpResponse): Promise<void> {
    try {
      await this.#route(req, body, res);
    } catch {
      if (!res.headersSent) sendJson(res, 500, errorFrame(null, new InternalFailure('Internal error')));
      else res.end();
    }
  }

  /** Ends this endpoint's listen streams gracefully (their `complete` flushed), then its legacy sessions; later requests get 503. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#streams.completeAll();
      this.#legacy.endAll();
    })();
    return this.#closing;
  }

  async #route(req: HttpRequestHead, body: BodySource, res: HttpResponse): Promise<void> {
    const refusal = rejectForeignOrigin(req.headers, this.policy);
    if (refusal) return sendJson(res, 403, JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Forbidden: ${refusal}` } }));
    // An app that mounted the handler behind CORS middleware of its own keeps what that set.
    for (const [name, value] of Object.entries(crossOriginHeaders(req))) if (res.getHeader(name) === undefined) res.setHeader(name, value);
    if (req.method === 'OPTIONS') return sendStatus(res, 204, preflightHeaders(req));
    if (this.#closing) return sendJson(res, 503, errorFrame(null, new ServerClosingError('This MCP endpoint is closed')));
    if (req.method === 'GET') return this.#legacy.openStream(req, res);
    if (req.method === 'DELETE') return this.#legacy.end(req, res);
    if (req.method !== 'POST') return sendJson(res, 405, errorFrame(null, new InvalidRequestError('Method Not Allowed')), { allow: `${ENDPOINT_METHODS}, OPTIONS` });

    const maxBytes = this.core.limits.maxBodyBytes;
    const read = await body(maxBytes);
    if (read.kind === 'aborted') return;
    if (read.kind === 'too_large') {
      const error = new InvalidRequestError(`Payload Too Large: the body exceeds ${maxBytes} bytes`);
      return sendJson(res, 413, errorFrame(null, error), { connection: 'close' });
    }
    let value: unknown;
    if (read.kind === 'parsed') value = read.value;
    else {
      try {
        value = JSON.parse(read.text);
      } catch {
        return sendJson(res, 400, errorFrame(null, new ParseFailure('Parse error: the body is not valid JSON')));
      }
    }
    const modernHeader = req.headers['mcp-protocol-version'] === MODERN_VERSION;
    // A batch can only belong to a legacy session (whose revision then decides); anywhere else it is one invalid frame.
    if (Array.isArray(value) && this.#legacy.sessionIdOf(req) !== undefined && !modernHeader) return this.#legacy.postBatch(req, res, value);
    const frame = classifyFrame(value);
    if (frame.kind === 'invalid') return sendJson(res, 400, refusalFrame(frame.error));
    // A legacy session's client answers what a handler asked it; the modern era sends no requests to answer.
    if (frame.kind === 'response' && this.#legacy.sessionIdOf(req) !== undefined && !modernHeader) return this.#legacy.answer(req, res, frame.message);
    if (frame.kind === 'response') return sendJson(res, 400, errorFrame(null, new InvalidRequestError('Invalid request: clients do not send responses here')));
    const message = frame.message;

    if (this.#legacy.sessionIdOf(req) !== undefined && !modernHeader) return this.#legacy.post(req, res, message);
    if (frame.kind === 'request' && eraOfOpening(frame.message) === 'legacy' && !modernHeader) return this.#legacy.initialize(res, frame.message);
    if (frame.kind === 'notification') return acceptModernNotification(res);
    return handleModernRequest(this.core, req, res, frame.message, this.keepAliveMs, this.#streams);
  }
}

/**
 * Streamable HTTP on node:http, serving both eras on one endpoint. A POST is
 * legacy when it carries an `Mcp-Session-Id` or is an `initialize` that
 * claims no modern version; everything else is modern. GET and DELETE exist
 * only for legacy sessions. Every request passes the Origin/Host check first.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyFrame } from '../protocol/jsonrpc.ts';
import { MODERN_VERSION } from '../protocol/versions.ts';
import type { ServerCore } from './core.ts';
import { eraOfOpening } from './envelope.ts';
import { InternalFailure, InvalidRequestError, ParseFailure } from './errors.ts';
import { isLoopbackAddress, rejectForeignOrigin, type OriginPolicy } from './http-guard.ts';
import { readBody, sendJson } from './http-io.ts';
import { LegacyHttpSessions } from './http-legacy.ts';
import { acceptModernNotification, EndpointStreams, handleModernRequest } from './http-modern.ts';
import { errorFrame } from './outcome.ts';

export interface HttpListenOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  path?: string;
  /**
   * Exact Origins allowed. By default: loopback origins while bound to
   * loopback; on any other bind, every request carrying an Origin is refused
   * with 403 (DNS-rebinding protection), so list browser origins here.
   */
  allowedOrigins?: string[];
  /** Extra Host names accepted while bound to loopback. */
  allowedHosts?: string[];
  /** An SSE comment on idle long-lived streams (listen, legacy GET) this often; 0 turns it off. Default 15,000. */
  keepAliveMs?: number;
}

export interface HttpServerHandle {
  readonly port: number;
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/mcp */
  readonly url: string;
  /** Ends this endpoint's listen streams gracefully (`resultType: 'complete'`), then its legacy sessions and connections, and stops listening. */
  close(): Promise<void>;
}

export function listenHttp(core: ServerCore, options: HttpListenOptions): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const policy: OriginPolicy = {
    allowedOrigins: options.allowedOrigins,
    allowedHosts: options.allowedHosts,
    loopback: isLoopbackAddress(host),
  };
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const legacy = new LegacyHttpSessions(core, keepAliveMs);
  const streams = new EndpointStreams();
  const server = createHttpServer((req, res) => {
    handle(core, legacy, streams, policy, path, keepAliveMs, req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, errorFrame(null, new InternalFailure('Internal error')));
      else res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        port,
        url: `http://${urlHost}:${port}${path}`,
        close: async () => {
          const stopped = new Promise<void>((done) => server.close(() => done()));
          await streams.completeAll();
          legacy.endAll();
          server.closeAllConnections();
          await stopped;
        },
      });
    });
  });
}

async function handle(
  core: ServerCore,
  legacy: LegacyHttpSessions,
  streams: EndpointStreams,
  policy: OriginPolicy,
  path: string,
  keepAliveMs: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if ((req.url ?? '/').split('?')[0] !== path) return sendJson(res, 404, errorFrame(null, new InvalidRequestError('Not Found')));
  const refusal = rejectForeignOrigin(req, policy);
  if (refusal) return sendJson(res, 403, JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Forbidden: ${refusal}` } }));
  if (req.method === 'GET') return legacy.openStream(req, res);
  if (req.method === 'DELETE') return legacy.end(req, res);
  if (req.method !== 'POST') return sendJson(res, 405, errorFrame(null, new InvalidRequestError('Method Not Allowed')), { allow: 'GET, POST, DELETE' });

  const body = await readBody(req, core.limits.maxBodyBytes);
  if (body.kind === 'aborted') return;
  if (body.kind === 'too_large') {
    const error = new InvalidRequestError(`Payload Too Large: the body exceeds ${core.limits.maxBodyBytes} bytes`);
    return sendJson(res, 413, errorFrame(null, error), { connection: 'close' });
  }
  let value: unknown;
  try {
    value = JSON.parse(body.text);
  } catch {
    return sendJson(res, 400, errorFrame(null, new ParseFailure('Parse error: the body is not valid JSON')));
  }
  const frame = classifyFrame(value);
  if (frame.kind === 'invalid') return sendJson(res, 400, errorFrame(frame.error.requestId ?? null, new InvalidRequestError(`Invalid request: ${frame.error.message}`)));
  if (frame.kind === 'response') return sendJson(res, 400, errorFrame(null, new InvalidRequestError('Invalid request: clients do not send responses here')));
  const message = frame.message;

  if (legacy.sessionIdOf(req) !== undefined && req.headers['mcp-protocol-version'] !== MODERN_VERSION) return legacy.post(req, res, message);
  if (frame.kind === 'request' && eraOfOpening(frame.message) === 'legacy' && req.headers['mcp-protocol-version'] !== MODERN_VERSION) {
    return legacy.initialize(res, frame.message);
  }
  if (frame.kind === 'notification') return acceptModernNotification(res);
  return handleModernRequest(core, req, res, frame.message, keepAliveMs, streams);
}

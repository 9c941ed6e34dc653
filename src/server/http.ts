/**
 * listenHttp: the HTTP endpoint (http-endpoint.ts) on a node:http server of
 * its own, through the same Node handler an app mounts, answering 404 off
 * its path.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerCore } from './core.ts';
import { InvalidRequestError } from './errors.ts';
import { HttpEndpoint } from './http-endpoint.ts';
import { isLoopbackHost } from '../protocol/loopback.ts';
import { originPolicy } from './http-guard.ts';
import { sendJson } from './http-io.ts';
import { createNodeHandler } from './http-node.ts';
import { errorFrame } from './outcome.ts';

/** Options of a mounted HTTP handler (`nodeHandler`, `fetchHandler`); listenHttp takes them too. */
export interface HttpHandlerOptions {
  /**
   * Exact Origins allowed (e.g. `https://app.example.com`). By default:
   * loopback origins (any port) while the Host is checked; without a Host
   * check, every request carrying an Origin is refused with 403
   * (DNS-rebinding protection), so list browser origins here.
   */
  allowedOrigins?: string[];
  /**
   * Host names accepted besides the loopback ones (`localhost`, 127.0.0.0/8,
   * `[::1]`), or `'any'` to check no Host. listenHttp checks the Host only on
   * a loopback bind. A mounted handler cannot know its app's bind address and
   * assumes loopback: by default it accepts loopback Host names only, so an
   * app reached under another name lists it here (or passes `'any'` when it
   * is bound to a public address and a proxy in front checks the names).
   */
  allowedHosts?: string[] | 'any';
  /**
   * An SSE comment on idle streams (listen, legacy GET, a POST's response stream) this often, and a POST's answer
   * that takes longer goes out as such a stream instead of plain JSON (an idle proxy would cut it); 0 turns both off.
   * Default 15,000.
   */
  keepAliveMs?: number;
}

/** Options of `listenHttp`. */
export interface HttpListenOptions extends HttpHandlerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The bind address; default 127.0.0.1. */
  host?: string;
  /** The endpoint's path; default /mcp. Other paths get 404. */
  path?: string;
}

/** A listening HTTP endpoint. */
export interface HttpServerHandle {
  /** The port it listens on (the one the system chose, for `port: 0`). */
  readonly port: number;
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/mcp */
  readonly url: string;
  /** Ends this endpoint's listen streams gracefully (`resultType: 'complete'`), then its legacy sessions and connections, and stops listening. */
  close(): Promise<void>;
  /** `close()`, for `await using http = await server.listenHttp()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The endpoint behind a mounted handler: the Host is checked as on a loopback bind unless the options open it. */
export const mountedEndpoint = (core: ServerCore, options: HttpHandlerOptions): HttpEndpoint =>
  new HttpEndpoint(core, originPolicy(options, true), options.keepAliveMs ?? 15_000);

export function listenHttp(core: ServerCore, options: HttpListenOptions): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const endpoint = new HttpEndpoint(core, originPolicy(options, isLoopbackHost(host)), options.keepAliveMs ?? 15_000);
  const handler = createNodeHandler(endpoint);
  const server = createHttpServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== path) return sendJson(res, 404, errorFrame(null, new InvalidRequestError('Not Found')));
    void handler(req, res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      const close = async (): Promise<void> => {
        const stopped = new Promise<void>((done) => server.close(() => done()));
        await endpoint.close();
        server.closeAllConnections();
        await stopped;
      };
      resolve({ port, url: `http://${urlHost}:${port}${path}`, close, [Symbol.asyncDispose]: close });
    });
  });
}

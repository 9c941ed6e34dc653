/**
 * `watch --inspect`: a `node:http` server on a loopback address (unless
 * `--inspect-host` says otherwise) serving the local inspector page at `/`
 * and its live feed at `/feed` (Server-Sent Events). The feed's `observe` is
 * handed to createClient, so every actor the client makes (connection,
 * subscriptions, listeners, URI worker, cache) shows up on the page. Nothing
 * is fetched from the network; the page needs no internet.
 *
 * The same server relays to the hosted Stately inspector: `/stately` is a page
 * that frames stately.ai and feeds it from the WebSocket at `/stately/socket`
 * (our own RFC 6455 server side, src/inspector/websocket.ts), which carries
 * state values and event types in Stately's message shapes, never context.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Inspector } from '../runtime/actor-options.ts';
import { McpActorsError } from '../protocol/errors.ts';
import { isLoopbackHost } from '../protocol/loopback.ts';
import { InspectionFeed } from '../inspector/inspection-feed.ts';
import { INSPECTOR_PAGE } from '../inspector/inspector-page.ts';
import { STATELY_BRIDGE_PAGE, STATELY_INSPECTOR_ORIGIN, STATELY_SOCKET_PATH } from '../inspector/stately-bridge-page.ts';
import { StatelyRelay } from '../inspector/stately-relay.ts';
import { checkHandshake, CloseCode, refuseUpgrade, WebSocketConnection } from '../inspector/websocket.ts';

/** The inspector's address cannot be bound (port in use, unknown host). */
export class InspectorPortError extends McpActorsError {
  override readonly name = 'InspectorPortError';
  readonly code = 'inspector_port';
}

/** Where the inspector listens: `--inspect-host` and `--inspect-port` (0: any free port). */
export interface InspectorAddress {
  host: string;
  port: number;
}

/** A started inspector: the observer for createClient, the page's address, and how to stop it. */
export interface RunningInspector {
  inspect: Inspector;
  /** The page to open in a browser. */
  url: string;
  /** The page's live feed (Server-Sent Events, one JSON message per event). */
  feed: string;
  /** The page that shows the actors in the hosted Stately inspector (needs stately.ai reachable). */
  stately: string;
  /** The Stately relay's WebSocket (what `@statelyai/inspect`'s `createWebSocketReceiver` connects to). */
  statelySocket: string;
  /** Whether only this machine can reach it. */
  loopback: boolean;
  stop(): Promise<void>;
}

/** Starts the inspector's server: the local page, its feed, and the Stately relay. */
export async function startInspector(address: InspectorAddress): Promise<RunningInspector> {
  const feed = new InspectionFeed();
  const relay = new StatelyRelay();
  const sockets = new Set<WebSocketConnection>();
  const loopback = isLoopbackHost(address.host);
  const hosts = () => (loopback ? allowedHosts(address.host, port()) : undefined);
  const server = createServer((request, response) => serve(request, response, feed, hosts()));
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const connection = upgrade(request, socket, head, hosts());
    if (!connection) return;
    sockets.add(connection);
    connection.onClose(() => sockets.delete(connection));
    for (const message of relay.present()) connection.send(JSON.stringify(message));
    const unsubscribe = relay.subscribe((message) => connection.send(JSON.stringify(message)));
    connection.onClose(unsubscribe);
  });
  const port = () => (server.address() as { port: number }).port;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      // The error report appends the innermost cause (`EADDRINUSE 127.0.0.1:8080`).
      reject(new InspectorPortError(`inspector port ${address.port} is not available on ${address.host}; pick another with --inspect-port or --inspect-host`, { cause: error })),
    );
    server.listen(address.port, address.host, () => resolve());
  });
  const origin = `http://${isIP(address.host) === 6 ? `[${address.host}]` : address.host}:${port()}`;
  return {
    inspect: (event) => {
      feed.observe(event);
      relay.observe(event);
    },
    url: `${origin}/`,
    feed: `${origin}/feed`,
    stately: `${origin}/stately`,
    statelySocket: `${origin.replace(/^http/, 'ws')}${STATELY_SOCKET_PATH}`,
    loopback,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Upgraded sockets are no longer the HTTP server's to close.
        for (const connection of sockets) connection.close(CloseCode.goingAway);
        // Open feeds never end by themselves; close them so the server (and the process) can.
        server.closeAllConnections();
      }),
  };
}

/** How much unread feed one page may hold before it is cut off. */
const FEED_BUFFER_BYTES = 1024 * 1024;

/** The Host headers a loopback inspector answers, so a web page on another name (DNS rebinding) cannot read it. */
const allowedHosts = (host: string, port: number): Set<string> =>
  new Set([host, 'localhost', '127.0.0.1', '[::1]'].map((name) => `${isIP(name) === 6 ? `[${name}]` : name}:${port}`));

function serve(request: IncomingMessage, response: ServerResponse, feed: InspectionFeed, hosts: Set<string> | undefined): void {
  if (hosts && !hosts.has(request.headers.host ?? '')) return void response.writeHead(421, { 'content-type': 'text/plain' }).end('unknown host\n');
  if (request.method !== 'GET') return void response.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('GET only\n');
  const path = new URL(request.url ?? '/', 'http://inspector').pathname;
  if (path === '/') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'" });
    return void response.end(INSPECTOR_PAGE);
  }
  if (path === '/stately') {
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-src ${STATELY_INSPECTOR_ORIGIN}; connect-src 'self'`,
    });
    return void response.end(STATELY_BRIDGE_PAGE);
  }
  if (path === STATELY_SOCKET_PATH) return void response.writeHead(426, { upgrade: 'websocket', 'content-type': 'text/plain' }).end('WebSocket only\n');
  if (path === '/feed') {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    const send = (message: unknown) => {
      response.write(`data: ${JSON.stringify(message)}\n\n`);
      // A page that stops reading is dropped rather than buffered without bound; EventSource reconnects to the present.
      if (response.writableLength > FEED_BUFFER_BYTES) response.destroy();
    };
    for (const message of feed.present()) send(message);
    const unsubscribe = feed.subscribe(send);
    request.once('close', unsubscribe);
    return;
  }
  response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
}

/**
 * Accepts a WebSocket to the Stately relay under the same rules as the pages
 * (loopback Host names only, when on loopback), and only from a page of this
 * server or a client that is not a browser page (no Origin), so a web page
 * elsewhere cannot read the actors through the visitor's browser.
 */
function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, hosts: Set<string> | undefined): WebSocketConnection | undefined {
  socket.on('error', () => socket.destroy());
  const host = request.headers.host ?? '';
  if (hosts && !hosts.has(host)) return void refuseUpgrade(socket, 421, 'unknown host');
  if (new URL(request.url ?? '/', 'http://inspector').pathname !== STATELY_SOCKET_PATH) return void refuseUpgrade(socket, 404, 'not found');
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) return void refuseUpgrade(socket, 403, 'only pages of this inspector may connect');
  const handshake = checkHandshake(request);
  if (!handshake.ok) return void refuseUpgrade(socket, handshake.status, handshake.reason, handshake.status === 426 ? { 'sec-websocket-version': '13' } : {});
  return new WebSocketConnection(socket, handshake.key, head);
}

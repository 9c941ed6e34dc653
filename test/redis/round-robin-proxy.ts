/**
 * The load balancer of the cluster tests: a small HTTP proxy on loopback
 * that sends each request to the next node in turn, streams responses (SSE
 * included) back as they come, and skips a node that refuses the connection
 * (as a health-checking balancer would). With `sticky`, a request carrying
 * an `Mcp-Session-Id` goes to the node that issued it while that node lives.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface ProxyRoute {
  node: number;
  method: string | undefined;
  sessionId: string | undefined;
}

export interface RoundRobinProxy {
  readonly url: string;
  /** Every request the proxy forwarded: which node, which JSON-RPC method. */
  readonly routes: ProxyRoute[];
  /** Sends each known session to another node than the one that issued it, as a balancer that lost its sticky table would. */
  misrouteSessions(): void;
  close(): Promise<void>;
}

export async function roundRobinProxy(ports: readonly number[], options: { sticky?: boolean } = {}): Promise<RoundRobinProxy> {
  let next = 0;
  const sessions = new Map<string, number>();
  const routes: ProxyRoute[] = [];
  const open = new Set<ServerResponse>();

  const forward = (incoming: IncomingMessage, body: Buffer, response: ServerResponse, node: number, triesLeft: number): void => {
    const headers = { ...incoming.headers, host: `127.0.0.1:${ports[node]}` };
    const upstream = request({ host: '127.0.0.1', port: ports[node], method: incoming.method, path: incoming.url, headers }, (answer) => {
      const issued = answer.headers['mcp-session-id'];
      if (options.sticky && typeof issued === 'string') sessions.set(issued, node);
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
      answer.on('error', () => response.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' && triesLeft > 0 && !response.headersSent) {
        forward(incoming, body, response, (node + 1) % ports.length, triesLeft - 1);
        return;
      }
      response.destroy();
    });
    // The client went away: so does the upstream request (a cancelled listen stream, say).
    response.on('close', () => upstream.destroy());
    upstream.end(body);
  };

  const server: Server = createServer((incoming, response) => {
    open.add(response);
    response.on('close', () => open.delete(response));
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const sessionId = typeof incoming.headers['mcp-session-id'] === 'string' ? incoming.headers['mcp-session-id'] : undefined;
      const pinned = sessionId === undefined ? undefined : sessions.get(sessionId);
      const node = pinned ?? next++ % ports.length;
      let method: string | undefined;
      try {
        method = (JSON.parse(body.toString('utf8')) as { method?: string }).method;
      } catch {
        method = undefined;
      }
      routes.push({ node, method, sessionId });
      forward(incoming, body, response, node, ports.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    routes,
    misrouteSessions() {
      for (const [id, node] of sessions) sessions.set(id, (node + 1) % ports.length);
    },
    close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

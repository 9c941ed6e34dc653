/**
 * Our client over loopback HTTP against scripted legacy servers that misbehave in ways no official server does on
 * cue: an error status whose body stalls, a GET stream refused for a moment or answered with a page, an event id
 * no header can carry. Each server is a node:http handler per test.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createClient,
  GetStreamContentTypeError,
  HttpRedirectError,
  HttpStatusError,
  httpTransport,
  StreamEndedError,
  UnsendableEventIdError,
  type HttpTransportOptions,
  type McpClient,
} from '../../src/index.ts';

type Body = { method?: string; id?: number | string } | undefined;
type Handler = (req: IncomingMessage, body: Body, res: ServerResponse) => void;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Scripted {
  url: string;
  /** Each request as `METHOD rpc-method` (`GET`, `POST initialize`, …), in arrival order. */
  seen: string[];
  /** Each request as `METHOD path`. */
  paths: string[];
  /** The socket of the last request. */
  lastSocket(): Socket;
}

/**
 * A legacy server that does the handshake (session S1) and DELETE itself, and hands every other request to
 * `handle`; requests `handshakes` refuses all go to `handle`.
 */
async function scripted(handle: Handler, { handshakes = (): boolean => true }: { handshakes?: (req: IncomingMessage) => boolean } = {}): Promise<Scripted> {
  const seen: string[] = [];
  const paths: string[] = [];
  const sockets = new Set<Socket>();
  let last: Socket | undefined;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk)).on('end', () => {
      const body = raw === '' ? undefined : (JSON.parse(raw) as Body);
      seen.push(`${req.method} ${body?.method ?? ''}`.trim());
      paths.push(`${req.method} ${req.url}`);
      last = req.socket;
      if (!handshakes(req)) {
        handle(req, body, res);
      } else if (req.method === 'POST' && body?.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'S1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'scripted', version: '1' } } }));
      } else if (req.method === 'POST' && body?.method === 'notifications/initialized') {
        res.writeHead(202).end();
      } else if (req.method === 'DELETE') {
        res.writeHead(200).end();
      } else {
        handle(req, body, res);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(resolve);
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen, paths, lastSocket: () => last! };
}

async function connected(url: string, options: Partial<HttpTransportOptions> = {}): Promise<McpClient> {
  const client = createClient({ transport: httpTransport({ url, ...options }), era: 'legacy', reconnect: false });
  cleanups.push(() => client.close());
  await client.connect();
  return client;
}

const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const toolsChanged = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`;

describe('an error status whose body never ends', () => {
  it('rejects with the status at once (not the request timeout), and close() ends its connection', async () => {
    const server = await scripted((req, body, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",'); // and nothing more
    });
    const client = await connected(server.url);
    await expect(client.listTools({ timeoutMs: 60_000 })).rejects.toSatisfy((error) => error instanceof HttpStatusError && error.status === 500);
    const socket = server.lastSocket();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await client.close();
    await closed;
  });

  it('a 404 for our session, body stalled, still ends the connection (the session is gone)', async () => {
    const server = await scripted((req, _body, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      res.writeHead(404, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":');
    });
    const client = await connected(server.url);
    const lost = new Promise((resolve) => client.on('connection.lost', resolve));
    await expect(client.listTools({ timeoutMs: 60_000 })).rejects.toBeDefined();
    await lost;
  });
});

describe('the legacy GET stream', () => {
  it('refused for a moment (503, then 500) is opened again, and its notifications arrive', async () => {
    let gets = 0;
    const server = await scripted((req, _body, res) => {
      if (req.method !== 'GET') return void res.writeHead(400).end();
      gets++;
      if (gets === 1) return void res.writeHead(503, { 'retry-after': '0' }).end();
      if (gets === 2) return void res.writeHead(500).end();
      sse(res);
      res.write(toolsChanged);
    });
    const client = await connected(server.url, { resume: { defaultRetryMs: 10 } });
    await new Promise<void>((resolve) => client.onNotification('notifications/tools/list_changed', () => resolve()));
    expect(gets).toBe(3);
    expect(client.state).toBe('online.ready.legacy');
  });

  it('refused past the resume bounds ends the connection, so that it reconnects, instead of going on without it', async () => {
    const server = await scripted((req, _body, res) => void res.writeHead(req.method === 'GET' ? 503 : 400).end());
    const client = await connected(server.url, { resume: { defaultRetryMs: 10, maxAttempts: 3 } });
    const lost = await new Promise<{ cause: unknown }>((resolve) => client.on('connection.lost', resolve));
    expect(lost.cause).toSatisfy((cause) => cause instanceof HttpStatusError && cause.status === 503);
    expect(server.seen.filter((line) => line === 'GET')).toHaveLength(3);
  });

  it('answered with a page instead of an event stream is no GET stream: reported once, and the connection stays', async () => {
    const server = await scripted((req, body, res) => {
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body?.id, result: { tools: [] } }));
    });
    const reported: Error[] = [];
    const client = createClient({ transport: httpTransport({ url: server.url }), era: 'legacy', reconnect: false });
    cleanups.push(() => client.close());
    const refused = new Promise<void>((resolve) => client.onError((error) => {
      reported.push(error);
      if (error instanceof GetStreamContentTypeError) resolve();
    }));
    await client.connect();
    await refused;
    expect(await client.listTools()).toEqual([]);
    expect(reported).toEqual([expect.objectContaining({ code: 'get_stream_content_type', contentType: 'text/html' })]);
    expect(server.seen).toEqual(['POST initialize', 'POST notifications/initialized', 'GET', 'POST tools/list']);
    expect(client.state).toBe('online.ready.legacy');
  });
});

describe('a stream that breaks after an event id no header can carry', () => {
  it('is not resumed (no reopen is tried), and its request fails saying why', async () => {
    const server = await scripted((req, _body, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      // A response stream with an id above U+00FF, then the end, without the response.
      sse(res);
      res.end(`id: 事件1\nretry: 10\n${toolsChanged}`);
    });
    const client = await connected(server.url);
    const failure = await client.listTools().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StreamEndedError);
    expect((failure as StreamEndedError).cause).toSatisfy((cause) => cause instanceof UnsendableEventIdError && cause.eventId === '事件1');
    expect(server.seen.filter((line) => line === 'GET')).toHaveLength(1);
  });
});

describe('OAuth discovery against a metadata document that never ends', () => {
  it('reads at most its bound, fails discovery saying why, and drops the connection', async () => {
    const MiB = Buffer.alloc(1 << 20, 0x20); // JSON whitespace
    let sentMiB = 0;
    let metadataClosed!: Promise<void>;
    const server = await scripted((req, _body, res) => {
      const origin = `http://${req.headers.host}`;
      if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
        metadataClosed = new Promise((resolve) => res.once('close', resolve));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"resource":"${origin}/mcp","authorization_servers":["${origin}"]`);
        // At most 64 MiB, and paced by the client's reading: a client that reads without bound gets them all.
        const pump = () => {
          while (sentMiB < 64 && !res.destroyed) {
            sentMiB++;
            if (!res.write(MiB)) return void res.once('drain', pump);
          }
        };
        return pump();
      }
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource"` }).end();
    }, { handshakes: () => false });
    const client = createClient({
      transport: httpTransport({ url: server.url, auth: { kind: 'client_credentials', clientId: 'c', clientSecret: 's', tokens: () => undefined, saveTokens: () => {} } }),
      era: 'legacy',
      reconnect: false,
      requestTimeoutMs: 60_000,
    });
    cleanups.push(() => client.close());
    const failure = await client.connect().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'discovery_failed' });
    expect(String((failure as Error & { cause?: { cause?: unknown } }).cause?.cause ?? (failure as Error).cause)).toMatch(/exceeds 1048576 bytes/);
    await metadataClosed;
    expect(sentMiB).toBeLessThan(16);
  });
});

/** Every error in `error`'s cause chain, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at !== undefined && chain.length < 10; at = (at as { cause?: unknown }).cause) chain.push(at);
  return chain;
}

describe('redirects from the MCP endpoint', () => {
  it('a 307 or 308 to the same origin is followed, method and body kept', async () => {
    const server = await scripted((req, body, res) => {
      if (req.url === '/mcp') return void res.writeHead(req.method === 'GET' ? 308 : 307, { location: '/mcp/' }).end();
      if (req.method === 'GET') return void res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body?.id, result: { tools: [] } }));
    }, { handshakes: (req) => req.url === '/mcp/' });
    const client = await connected(server.url);
    expect(await client.listTools()).toEqual([]);
    // The GET stream opens beside the POSTs, so each method's requests are compared in their own order.
    expect(server.paths.filter((line) => line.startsWith('POST'))).toEqual(['POST /mcp', 'POST /mcp/', 'POST /mcp', 'POST /mcp/', 'POST /mcp', 'POST /mcp/']);
    expect(server.paths.filter((line) => line.startsWith('GET'))).toEqual(['GET /mcp', 'GET /mcp/']);
    expect(server.seen.filter((line) => line !== 'GET' && line !== 'POST')).toEqual(['POST initialize', 'POST initialize', 'POST notifications/initialized', 'POST notifications/initialized', 'POST tools/list', 'POST tools/list']);
  });

  it.each([301, 302, 303])('a %i is not followed: the connection fails saying where the endpoint points', async (status) => {
    const server = await scripted((_req, _body, res) => void res.writeHead(status, { location: '/elsewhere' }).end(), { handshakes: () => false });
    const client = createClient({ transport: httpTransport({ url: server.url }), era: 'legacy', reconnect: false });
    cleanups.push(() => client.close());
    const failure = await client.connect().catch((error: unknown) => error);
    const redirect = causes(failure).find((cause) => cause instanceof HttpRedirectError);
    expect(redirect).toMatchObject({ code: 'http_redirect', status, location: server.url.replace('/mcp', '/elsewhere'), from: server.url });
    expect(server.paths).toEqual(['POST /mcp']);
  });

  it('a 307 to another origin is not followed: the session id and the caller\'s headers stay home', async () => {
    const other = await scripted((_req, _body, res) => void res.writeHead(500).end(), { handshakes: () => false });
    let redirected = false;
    const server = await scripted((req, body, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      if (!redirected) {
        redirected = true;
        return void res.writeHead(307, { location: other.url }).end();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body?.id, result: { tools: [] } }));
    });
    const client = await connected(server.url, { headers: { 'x-api-key': 'secret' } });
    const lost = new Promise<{ cause: unknown }>((resolve) => client.on('connection.lost', resolve));
    await expect(client.listTools()).rejects.toBeDefined();
    // The transport fails with why, and the connection reconnects (here: is done, reconnect off).
    expect(causes((await lost).cause).find((cause) => cause instanceof HttpRedirectError)).toMatchObject({ status: 307, location: other.url });
    expect(other.paths).toEqual([]);
  });
});

/**
 * What a server can make the client write is bounded. A server that keeps
 * sending requests (here `ping`) without reading the answers would make the
 * client buffer them without end (about 70 MB a second over stdio, until the
 * heap gives out); instead, a request that arrives while more than
 * `maxBacklogBytes` written to the server are unread drops the transport with
 * PeerNotReadingError. A server that does read its answers is never dropped,
 * however many requests it sends at once.
 *
 * Scripted peers: no real server floods on cue.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { PeerNotReadingError } from '../../src/protocol/errors.ts';
import type { StdioClientTransport } from '../../src/transport/stdio.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { readyStdioTransport } from '../fixtures/ready-stdio-transport.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

const LIMIT = 1024 * 1024;
const PEER = fixtureBundle('test/fixtures/flooding-peer.ts');

const clients: McpClient[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

function floodingPeer(args: string[], maxBacklogBytes?: number): { client: McpClient; children: StdioClientTransport[]; errors: Error[] } {
  const children: StdioClientTransport[] = [];
  const transport = readyStdioTransport(
    { command: process.execPath, args: [PEER, ...args], ...(maxBacklogBytes !== undefined ? { maxBacklogBytes } : {}) },
    (child) => children.push(child),
  );
  const client = createClient({ transport, era: 'legacy', reconnect: false });
  clients.push(client);
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  return { client, children, errors };
}

/** The cause the connection closed with, which must be a PeerNotReadingError. */
async function notReadingCause(client: McpClient): Promise<PeerNotReadingError> {
  const reason = await client.closed;
  expect(reason.type).toBe('transport_closed');
  const cause = (reason as { cause: unknown }).cause;
  expect(cause).toBeInstanceOf(PeerNotReadingError);
  return cause as PeerNotReadingError;
}

describe('stdio: a server that sends requests', () => {
  it('without reading the answers is dropped with PeerNotReadingError once the unread answers pass maxBacklogBytes, and its process is stopped', async () => {
    const { client, children, errors } = floodingPeer([], LIMIT);
    await client.connect();
    await client.request('test/flood');
    const cause = await notReadingCause(client);
    expect(cause.code).toBe('peer_not_reading');
    expect(cause.maxBacklogBytes).toBe(LIMIT);
    // Checked at every request: past the limit by less than one answer.
    expect(cause.backlogBytes).toBeGreaterThan(LIMIT);
    expect(cause.backlogBytes).toBeLessThan(LIMIT + 100);
    await client.close();
    expect(children).toHaveLength(1);
    expect(children[0]!.exitStatus).toBeDefined();
    // The answers the dropped transport never took are not reported one by one: the closed reason says why.
    expect(errors).toEqual([]);
  });

  it('while reading the answers is answered in full, 20,000 pings in one write, under the default limit', async () => {
    const { client, errors } = floodingPeer(['--read', '--pings', '20000']);
    await client.connect();
    const answered = new Promise<unknown>((resolve) => client.onNotification('notifications/test/answered', (params) => resolve(params)));
    await client.request('test/flood');
    expect(await answered).toEqual({ answers: 20_000 });
    expect(client.state).toBe('online.ready.legacy');
    expect(errors).toEqual([]);
  });
});

/**
 * A legacy HTTP server on loopback that answers `initialize`, then floods
 * pings on the GET stream and never answers the POSTs that carry the
 * client's answers (they stay open).
 */
async function floodingHttpServer(): Promise<{ url: string; answersPosted: () => number }> {
  let answersPosted = 0;
  const server = createHttpServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let id = 0;
      const pump = (): void => {
        if (response.destroyed) return;
        while (response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: `ping-${id++}`, method: 'ping' })}\n\n`));
        response.once('drain', pump);
      };
      pump();
      return;
    }
    if (request.method === 'DELETE') return void response.writeHead(204).end();
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: string | number; method?: string };
      if (message.method === 'initialize') {
        response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'flood' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'flooding-http', version: '1.0.0' } } }));
      } else if (message.method === 'notifications/initialized') {
        response.writeHead(202).end();
      } else if (message.method === undefined) {
        answersPosted++; // an answer to a ping: never taken
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, answersPosted: () => answersPosted };
}

describe('HTTP: a server that sends requests', () => {
  it('and leaves the POSTs of the answers unanswered is dropped with PeerNotReadingError, each open POST counted with its request', async () => {
    const server = await floodingHttpServer();
    const client = createClient({ transport: httpTransport({ url: server.url, maxBacklogBytes: LIMIT }), era: 'legacy', reconnect: false });
    clients.push(client);
    const errors: Error[] = [];
    client.onError((error) => errors.push(error));
    await client.connect();
    const cause = await notReadingCause(client);
    expect(cause.maxBacklogBytes).toBe(LIMIT);
    // An answer is its body plus 4 KiB for the POST it holds open: fewer than 256 of them pass 1 MiB.
    expect(cause.backlogBytes).toBeGreaterThan(LIMIT);
    expect(cause.backlogBytes).toBeLessThan(LIMIT + 4 * 1024 + 100);
    expect(server.answersPosted()).toBeLessThan(LIMIT / 4096);
    await client.close();
    expect(errors).toEqual([]);
  });
});

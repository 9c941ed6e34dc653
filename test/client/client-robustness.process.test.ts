/**
 * The client's own guarantees where an HTTP peer misbehaves: listen streams
 * that an HTTP server refuses or ends on its own. The caller's mistakes are
 * in client-robustness.test.ts, over the in-memory pair.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { HttpStatusError } from '../../src/protocol/errors.ts';
import { httpTransport } from '../../src/transport/http.ts';

const clients: McpClient[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A modern HTTP peer whose `subscriptions/listen` behaves as the test says. */
async function listenPeer(onListen: (id: unknown, response: ServerResponse) => void): Promise<string> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: unknown; method: string };
      if (message.method === 'subscriptions/listen') return onListen(message.id, response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          // The resync snapshot lists the tools; everything else is the discover answer.
          result:
            message.method === 'tools/list'
              ? { resultType: 'complete', tools: [] }
              : { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true } } },
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('listen streams an HTTP server refuses or ends', () => {
  it('an HTTP error status on the listen refuses that stream only', async () => {
    const url = await listenPeer((_id, response) => response.writeHead(503).end());
    const client = createClient({ transport: httpTransport({ url }) });
    clients.push(client);
    await client.connect();
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpStatusError);
    expect(failure).toMatchObject({ status: 503 });
    expect(client.state).toBe('online.ready.modern');
  });

  /** A peer that acknowledges every listen, then ends the response stream without an answer while `endIt(nth)` says so. */
  const endingPeer = (endIt: (nth: number) => boolean) => {
    const listens: unknown[] = [];
    const url = listenPeer((id, response) => {
      listens.push(id);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const ack = {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': id }, notifications: { toolsListChanged: true } },
      };
      response.write(`event: message\ndata: ${JSON.stringify(ack)}\n\n`);
      if (endIt(listens.length)) setImmediate(() => response.end());
    });
    return { url, listens };
  };

  it('with reconnection off, a stream the live server ends without an answer ends as remote; the connection stays up', async () => {
    const peer = endingPeer(() => true);
    const client = createClient({ transport: httpTransport({ url: await peer.url }), reconnect: false });
    clients.push(client);
    await client.connect();
    const events: string[] = [];
    client.on('*', (event) => events.push(event.type));
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    expect(await stream.closed).toMatchObject({ type: 'remote' });
    expect(client.state).toBe('online.ready.modern');
    expect(events).not.toContain('connection.lost');
  });

  it('with reconnection on, the stream listens again under the same id and resyncs, and the connection stays up', async () => {
    const peer = endingPeer((nth) => nth === 1);
    const client = createClient({ transport: httpTransport({ url: await peer.url }), reconnect: { baseDelayMs: 5, maxDelayMs: 10 } });
    clients.push(client);
    await client.connect();
    const messages: SubscriberMessage[] = [];
    const reconnected = new Promise<void>((resolve) => {
      void client.listen({ toolsListChanged: true }, (message) => {
        messages.push(message);
        if (message.type === 'reconnected') resolve();
      });
    });
    await reconnected;
    expect(peer.listens).toHaveLength(2);
    expect(peer.listens[1]).toBe(peer.listens[0]);
    expect(messages.map((message) => message.type)).toEqual(['reconnected']);
    expect(client.state).toBe('online.ready.modern');
  });

  it('with reconnection on, a server that keeps ending the stream unanswered exhausts it as reconnect_exhausted', async () => {
    const peer = endingPeer(() => true);
    // Short delays, but a long maxDelayMs: no run here lasts long enough to count as recovered.
    const client = createClient({ transport: httpTransport({ url: await peer.url }), reconnect: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 5_000 } });
    clients.push(client);
    await client.connect();
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    expect(await stream.closed).toMatchObject({ type: 'reconnect_exhausted', attempts: 2 });
    // The first listen and two more, all under the stream's one id.
    expect(peer.listens).toEqual([stream.id, stream.id, stream.id]);
    expect(client.state).toBe('online.ready.modern');
  });
});

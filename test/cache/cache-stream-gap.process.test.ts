/**
 * Modern era over loopback HTTP: the live server ends the cache's listen
 * stream without an answer, and the stream listens again under the same id;
 * the server then acknowledges less than before. A scripted HTTP peer, since
 * no real server narrows a re-listen on cue. Before, the cache went on
 * claiming stream coverage through the gap (reads `current`, backed by
 * `stream`, while nothing could tell it of a change) and kept the first
 * acknowledgment's coverage after the narrower one. Now it is `recovering`
 * and covers nothing until the stream resumes, then covers exactly what the
 * new acknowledgment honors. The client's re-listen backoff runs on a
 * simulated clock, so the gap lasts until the test ends it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatedClock } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import type { McpClient } from '../../src/client/client.ts';
import { backoffDelay, DEFAULT_BACKOFF } from '../../machines/backoff.ts';
import { connectionActorOf, createTestChangeCache, createTestClient } from '../../src/testing/index.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { recordCache } from './cache-recorder.ts';

const caches: ChangeCacheHandle[] = [];
const clients: McpClient[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

const R = 'test://watched';

/**
 * A modern HTTP peer advertising tool-list changes and resource subscriptions. Its first listen is acknowledged as
 * asked; every later one (a re-listen) only for tool-list changes. Each listen's response stays open until the test ends it.
 */
async function narrowingPeer() {
  const listens: { id: unknown; response: ServerResponse }[] = [];
  const answer = (method: string, params: Record<string, unknown>): Record<string, unknown> => {
    if (method === 'tools/list') return { tools: [] };
    if (method === 'resources/read') return { contents: [{ uri: params.uri, text: 'watched' }] };
    if (method === 'server/discover') {
      return { supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true }, resources: { subscribe: true } } };
    }
    return {};
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: unknown; method: string; params?: Record<string, unknown> };
      if (message.id === undefined) return void response.writeHead(202).end();
      if (message.method === 'subscriptions/listen') {
        const requested = (message.params?.notifications ?? {}) as Record<string, unknown>;
        listens.push({ id: message.id, response });
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const ack = {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: {
            _meta: { 'io.modelcontextprotocol/subscriptionId': message.id },
            notifications: listens.length === 1 ? requested : { toolsListChanged: true },
          },
        };
        return void response.write(`event: message\ndata: ${JSON.stringify(ack)}\n\n`);
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...answer(message.method, message.params ?? {}) } }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, listens };
}

describe('a change cache whose listen stream the live HTTP server ends and then re-acknowledges narrower', () => {
  it('covers nothing while the stream is down, then covers only what the new acknowledgment honors', async () => {
    const peer = await narrowingPeer();
    const clock = new SimulatedClock();
    const client = createTestClient({ transport: httpTransport({ url: peer.url }), clock, random: () => 1 });
    clients.push(client);
    await client.connect();
    const cache = createTestChangeCache(client, { interest: { tools: true, uris: [R] } });
    caches.push(cache);
    const recorder = recordCache(cache);
    await recorder.state('listening');
    await Promise.all([recorder.replaced('tools', 0), recorder.replaced(`resource:${R}`, 0)]);
    expect((await cache.contents(R)).backedBy).toBe('stream');

    // The server ends the open stream's response with no answer; the connection judges that it ended alone.
    const endedAlone = new Promise<void>((resolve) => connectionActorOf(client).on('listen.ended_alone', () => resolve()));
    peer.listens[0]!.response.end();
    await endedAlone;

    // The stream waits out its re-listen backoff: nothing backs what the cache holds.
    expect(cache.state).toBe('recovering');
    expect(await cache.tools({ mode: 'stale' })).toMatchObject({ freshness: 'stale', backedBy: 'none' });
    expect(await cache.contents(R, { mode: 'stale' })).toMatchObject({ freshness: 'stale', backedBy: 'none' });

    const from = recorder.mark();
    clock.increment(backoffDelay(1, DEFAULT_BACKOFF, 1));
    await recorder.state('listening', from);
    await Promise.all([recorder.replaced('tools', from), recorder.replaced(`resource:${R}`, from)]);
    expect(peer.listens.map((listen) => listen.id)).toEqual([peer.listens[0]!.id, peer.listens[0]!.id]);

    // Re-acknowledged for tool-list changes only: the resource is refetched for the gap but no longer covered.
    expect((await cache.tools()).backedBy).toBe('stream');
    expect(await cache.contents(R, { mode: 'stale' })).toMatchObject({ freshness: 'stale', backedBy: 'none' });
  });
});

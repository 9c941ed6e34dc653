/**
 * Issue 5: an unexpected close recovers with "a fresh negotiation and
 * intersection before reopening" even when the connection itself stayed up.
 * A minimal 2026-07-28 HTTP peer (no real server cancels a stream and changes
 * its capabilities on cue): it cancels the first listen stream, and by then
 * advertises prompts changes too; the cache asks server/discover again and
 * reopens with the new intersection.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createChangeCache, type ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { httpTransport } from '../../src/transport/http.ts';

const servers: Server[] = [];
const clients: McpClient[] = [];
const caches: ChangeCacheHandle[] = [];
afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Answers discover with `capabilities()`, lists with nothing, and acknowledges each listen; the first listen it then cancels. */
async function changingPeer() {
  let capabilities: Record<string, unknown> = { tools: { listChanged: true } };
  const discovers: unknown[] = [];
  const listens: { id: unknown; filter: unknown }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const message = JSON.parse(body) as { id: unknown; method: string; params?: { notifications?: unknown } };
      const answer = (result: object) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...result } }));
      };
      if (message.method === 'server/discover') {
        discovers.push(message.id);
        return answer({ supportedVersions: ['2026-07-28'], capabilities, serverInfo: { name: 'changing', version: '1' } });
      }
      if (message.method === 'tools/list') return answer({ tools: [] });
      if (message.method === 'prompts/list') return answer({ prompts: [] });
      if (message.method !== 'subscriptions/listen') return answer({});
      listens.push({ id: message.id, filter: message.params?.notifications });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (frame: object) => response.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...frame })}\n\n`);
      send({ method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUBSCRIPTION_ID]: message.id }, notifications: message.params?.notifications } });
      if (listens.length === 1) {
        // The server changed while the connection stays up: it now offers prompts changes, and drops this stream.
        capabilities = { tools: { listChanged: true }, prompts: { listChanged: true } };
        send({ method: 'notifications/cancelled', params: { requestId: message.id, reason: 'reconfigured' } });
        response.end();
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, discovers, listens };
}

describe('cache recovery on a connection that stayed up', () => {
  it('asks server/discover again and reopens with the new intersection', async () => {
    const peer = await changingPeer();
    const client = createClient({ transport: httpTransport({ url: peer.url }) });
    clients.push(client);
    await client.connect();
    const cache = createChangeCache(client, { interest: { tools: true, prompts: true }, recovery: { baseDelayMs: 5, maxDelayMs: 10 } });
    caches.push(cache);
    const reopened = new Promise<void>((resolve) =>
      cache.subscribe((event) => {
        if (event.type === 'state' && event.state === 'listening' && (event.detail as { resumed: boolean }).resumed) resolve();
      }),
    );
    await reopened;
    // The cache is listening once it asked; the peer has the request a moment later.
    await expect.poll(() => peer.listens.length).toBe(2);
    expect(peer.listens.map((listen) => listen.filter)).toEqual([{ toolsListChanged: true }, { toolsListChanged: true, promptsListChanged: true }]);
    // One discover to connect, one for the recovery: the connection itself never dropped.
    expect(peer.discovers).toHaveLength(2);
    expect(cache.filter).toEqual({ toolsListChanged: true, promptsListChanged: true });
    expect(client.state).toBe('online.ready.modern');
  });
});

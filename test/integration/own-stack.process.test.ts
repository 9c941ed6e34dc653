/**
 * Our client against our server: the same behaviours the server's tests
 * show with the official client, over loopback HTTP (server in this process)
 * and stdio (server in a child process), in both eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientOptions, McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import type { McpServer } from '../../src/server/index.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer, type FixtureOptions } from '../fixtures/own-server-setup.ts';
import { stdioPeer } from '../fixtures/stdio-peers.ts';

const ours = new OwnClients();
const servers: McpServer[] = [];
afterEach(async () => {
  await ours.disconnectAll();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function httpServer(options: FixtureOptions = {}): Promise<{ server: McpServer; url: string }> {
  const server = buildFixtureServer(options);
  servers.push(server);
  const handle = await server.listenHttp({ port: 0 });
  return { server, url: `http://127.0.0.1:${handle.port}/mcp` };
}

const connect = (url: string, options: Partial<ClientOptions> = {}): Promise<McpClient> => ours.connectHttp(url, options);

function collect() {
  const messages: SubscriberMessage[] = [];
  let wake: (() => void) | undefined;
  const subscriber = (message: SubscriberMessage) => {
    messages.push(message);
    wake?.();
  };
  const count = (type: SubscriberMessage['type']) => messages.filter((message) => message.type === type).length;
  const until = async (predicate: () => boolean) => {
    while (!predicate()) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { subscriber, messages, count, until };
}

const emit = (client: McpClient, kind: string, uri?: string) => client.callTool('emit', { kind, ...(uri ? { uri } : {}) });

describe('our client against our server over HTTP', () => {
  it('legacy: a list change is broadcast to every session', async () => {
    const { url } = await httpServer();
    const first = await connect(url, { era: 'legacy' });
    const second = await connect(url, { era: 'legacy' });
    expect([first.era, second.era]).toEqual(['legacy', 'legacy']);
    const a = collect();
    const b = collect();
    await first.subscribeNotifications({ toolsListChanged: true }, a.subscriber);
    await second.subscribeNotifications({ toolsListChanged: true }, b.subscriber);
    await emit(first, 'tools');
    await Promise.all([a.until(() => a.count('notification') === 1), b.until(() => b.count('notification') === 1)]);
  });

  it("modern: 'auto' negotiates 2026-07-28 and the ack carries the honored subset", async () => {
    const { url } = await httpServer({
      features: { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscriptions: false },
    });
    const client = await connect(url);
    expect(client.era).toBe('modern');
    const stream = await client.listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, () => {});
    expect(stream.honoredFilter).toEqual({ toolsListChanged: true });
  });

  it('modern: a resource update reaches only the streams that listed its URI', async () => {
    const { url } = await httpServer();
    const client = await connect(url);
    const one = collect();
    const two = collect();
    await client.listen({ resourceSubscriptions: ['test://resource/1'] }, one.subscriber);
    await client.listen({ resourceSubscriptions: ['test://resource/2'] }, two.subscriber);
    await emit(client, 'updated', 'test://resource/1');
    await one.until(() => one.count('notification') === 1);
    await emit(client, 'updated', 'test://resource/2');
    await two.until(() => two.count('notification') === 1);
    expect(one.count('notification')).toBe(1);
  });

  it.each(['legacy', 'modern'] as const)('%s: progress reaches only the caller', async (era) => {
    const { url } = await httpServer();
    const caller = await connect(url, { era });
    const bystander = await connect(url, { era });
    const seen: string[] = [];
    bystander.onNotification('*', (_params, method) => seen.push(method));
    const progress: unknown[] = [];
    await caller.callTool('progress', { steps: 3 }, { onProgress: (params) => progress.push(params.progress) });
    await bystander.callTool('echo', { text: 'barrier' });
    expect(progress).toEqual([1, 2, 3]);
    expect(seen).toEqual([]);
  });

  it("modern: server.close() ends a stream as graceful", async () => {
    const { server, url } = await httpServer();
    const client = await connect(url, { reconnect: false });
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    await server.close();
    expect(await stream.closed).toEqual({ type: 'graceful' });
  });

  it('lists follow nextCursor across pages', async () => {
    const { url } = await httpServer({ pageSize: 2 });
    const client = await connect(url);
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThan(4);
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
  });
});

describe('our client against our server over stdio', () => {
  it.each(['legacy', 'modern'] as const)('%s: listens, receives a change, and survives a restart', async (era) => {
    const peer = stdioPeer('own-server-stdio.ts');
    const client = await ours.connect({ transport: peer.factory, era, reconnect: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 } });
    expect(client.era).toBe(era);
    const box = collect();
    if (era === 'modern') await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, box.subscriber);
    else await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, box.subscriber);
    await emit(client, 'tools');
    await box.until(() => box.count('notification') === 1);
    peer.kill();
    await box.until(() => box.count('reconnected') === 1);
    await emit(client, 'updated', 'test://resource/1');
    await box.until(() => box.count('notification') === 2);
    expect(box.messages.at(-1)).toMatchObject({ type: 'notification', params: { uri: 'test://resource/1' } });
  });
});

/**
 * Our client against our server, both in this process, joined by the
 * in-memory linked pair (the stdio framing; the server serves each link as
 * it serves its stdio): the behaviours of the own stack that are not about a
 * process or HTTP boundary (those stay in own-stack.process.test.ts). Each
 * link is one connection, so two links to one server stand for two sessions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientOptions, McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { inMemoryTransport, type InMemoryClientTransport } from '../../src/transport/in-memory.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { collect } from '../fixtures/message-collector.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer, type FixtureOptions } from '../fixtures/own-server-setup.ts';
import { listensAcrossRestart, RESTART_RECONNECT } from './restart-scenario.ts';

const ours = new OwnClients();
const servers: McpServer[] = [];
afterEach(async () => {
  await ours.disconnectAll();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A transport factory whose every connection attempt is a fresh link to a new fixture server. */
function memoryServer(options: FixtureOptions = {}): () => InMemoryClientTransport {
  const server = buildFixtureServer(options);
  servers.push(server);
  return inMemoryTransport((end) => server.serveStdio(end));
}

const connect = (link: TransportFactory, options: Partial<ClientOptions> = {}): Promise<McpClient> => ours.connect({ transport: link, ...options });

const emit = (client: McpClient, kind: string, uri?: string) => client.callTool('emit', { kind, ...(uri ? { uri } : {}) });

describe('our client against our server over the in-memory pair', () => {
  it("modern: 'auto' negotiates 2026-07-28 and the ack carries the honored subset", async () => {
    const link = memoryServer({
      features: { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscriptions: false },
    });
    const client = await connect(link);
    expect(client.era).toBe('modern');
    const stream = await client.listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, () => {});
    expect(stream.honoredFilter).toEqual({ toolsListChanged: true });
  });

  it('modern: a resource update reaches only the streams that listed its URI', async () => {
    const link = memoryServer();
    const client = await connect(link);
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
    const link = memoryServer();
    const caller = await connect(link, { era });
    const bystander = await connect(link, { era });
    const seen: string[] = [];
    bystander.onNotification('*', (_params, method) => seen.push(method));
    const progress: unknown[] = [];
    await caller.callTool('progress', { steps: 3 }, { onProgress: (params) => progress.push(params.progress) });
    await bystander.callTool('echo', { text: 'barrier' });
    expect(progress).toEqual([1, 2, 3]);
    expect(seen).toEqual([]);
  });

  it('lists follow nextCursor across pages', async () => {
    const link = memoryServer({ pageSize: 2 });
    const client = await connect(link);
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThan(4);
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
  });
});

describe('our client against our server over an in-memory link cut as a dead process', () => {
  // The modern era of this scenario kills a real stdio child in own-stack.process.test.ts.
  it('legacy: listens, receives a change, and survives a restart', async () => {
    const links: InMemoryClientTransport[] = [];
    const fresh = memoryServer();
    const link: TransportFactory = () => {
      const transport = fresh();
      links.push(transport);
      return transport;
    };
    const client = await connect(link, { era: 'legacy', reconnect: RESTART_RECONNECT });
    await listensAcrossRestart(client, 'legacy', () => links.at(-1)!.cut());
  });
});

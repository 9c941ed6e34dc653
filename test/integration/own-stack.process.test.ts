/**
 * Our client against our server across a real boundary: loopback HTTP
 * (server in this process; sessions, and the SSE stream a close ends) and
 * stdio (server in a child process that is killed and restarted). The behaviours that are not about the boundary run over the
 * in-memory pair in own-stack.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientOptions, McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { collect } from '../fixtures/message-collector.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer, type FixtureOptions } from '../fixtures/own-server-setup.ts';
import { stdioPeer } from '../fixtures/stdio-peers.ts';
import { listensAcrossRestart, RESTART_RECONNECT } from './restart-scenario.ts';

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

  it("modern: server.close() ends a stream as graceful", async () => {
    const { server, url } = await httpServer();
    const client = await connect(url, { reconnect: false });
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    await server.close();
    expect(await stream.closed).toEqual({ type: 'graceful' });
  });
});

describe('our client against our server over stdio', () => {
  // The legacy era of this scenario runs over an in-memory link cut in own-stack.test.ts.
  it('modern: listens, receives a change, and survives a restart', async () => {
    const peer = stdioPeer('own-server-stdio.ts');
    const client = await ours.connect({ transport: peer.factory, era: 'modern', reconnect: RESTART_RECONNECT });
    await listensAcrossRestart(client, 'modern', () => peer.kill());
  });
});

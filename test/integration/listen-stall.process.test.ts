/**
 * A modern listen stream over HTTP whose path goes silent without closing: a
 * loopback proxy swallows everything the server sends on the open listen
 * stream (keep-alives and changes alike) and keeps its connection open, as a
 * proxy or load balancer that lost the other side may. Before, the stream
 * waited for ever and the change it missed was never known. Now a stream
 * whose server has sent a keep-alive and then nothing for `stallAfterMs`
 * listens again under the same id, and the subscriber gets a resync
 * snapshot. Against our server and the official 2.x server, each sending
 * keep-alives every 50 ms.
 *
 * Every request of the client goes out on a connection of its own (a fresh
 * undici Agent each), so the proxy blackholes the listen stream's
 * connection alone and the re-listen and the snapshot's requests get through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpClient } from '../../src/client/client.ts';
import { httpTransport } from '../../src/transport/http.ts';
import type { McpServer } from '../../src/server/index.ts';
import { CuttingProxy } from '../fixtures/cutting-proxy.ts';
import { freshConnectionFetch } from '../fixtures/fresh-connection-fetch.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';

const KEEP_ALIVE_MS = 50;
const STALL_AFTER_MS = 400;

const ours = new OwnClients();
const connections = freshConnectionFetch();
const proxies: CuttingProxy[] = [];
const servers: McpServer[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await ours.disconnectAll();
  await connections.destroyAll();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Source {
  url: string;
  /** Makes the server announce that its tool list changed. */
  changeTools(client: McpClient): Promise<void>;
}

async function ourServer(): Promise<Source> {
  const server = buildFixtureServer();
  servers.push(server);
  const handle = await server.listenHttp({ port: 0, keepAliveMs: KEEP_ALIVE_MS });
  return { url: handle.url, changeTools: async () => server.notifyToolsListChanged() };
}

async function officialServer(): Promise<Source> {
  const fixture = await startHttpFixture('official', { args: ['--keep-alive-ms', String(KEEP_ALIVE_MS)] });
  fixtures.push(fixture);
  return { url: fixture.url, changeTools: async (client) => void (await client.callTool('emit', { kind: 'tools' })) };
}

describe.each([
  ['our server', ourServer],
  ['the official 2.x server', officialServer],
])('a listen stream whose path goes silent, against %s', (_name, start) => {
  it('listens again under the same id once a keep-alive was heard and then nothing for stallAfterMs, with a resync snapshot', async () => {
    const source = await start();
    const proxy = await CuttingProxy.start(Number(new URL(source.url).port));
    proxies.push(proxy);
    const url = `http://127.0.0.1:${proxy.port}${new URL(source.url).pathname}`;
    const client = await ours.connect({ transport: httpTransport({ url, fetch: connections.fetch }) });
    expect(client.era).toBe('modern');
    const box = inbox();
    const stream = await client.listen({ toolsListChanged: true }, box.subscriber, { stallAfterMs: STALL_AFTER_MS });

    const first = box.next('notification');
    await source.changeTools(client);
    expect(await first).toMatchObject({ method: 'notifications/tools/list_changed' });
    // The stream has shown that its server sends keep-alives.
    await proxy.commentsForwarded(1);

    // From now on the open listen stream's connection swallows everything, and stays open.
    proxy.blackhole('POST');
    const reconnected = box.next('reconnected');
    await source.changeTools(client);
    const resynced = await reconnected;
    expect(resynced).toMatchObject({ type: 'reconnected', ref: { id: stream.id } });
    expect(resynced.type === 'reconnected' && 'snapshot' in resynced && resynced.snapshot.tools).toBeDefined();

    // The re-listened stream delivers again, under the same id.
    const after = box.next('notification');
    await source.changeTools(client);
    expect(await after).toMatchObject({ method: 'notifications/tools/list_changed', ref: { id: stream.id } });
    expect(box.count('closed')).toBe(0);
  });
});

/**
 * A legacy GET stream whose path goes silent without closing: a loopback
 * proxy swallows everything the server sends on the open GET stream
 * (keep-alives and changes alike) and keeps its connection open, as a proxy
 * or load balancer that lost the other side may. Before, the stream waited
 * for ever and the changes sent into it were never known. Now a GET stream
 * whose server has sent a keep-alive and then nothing for the transport's
 * `stallAfterMs` is reopened with `Last-Event-ID`, as after any break, and
 * what the server sent into the dead path arrives, once, without a
 * reconnect. Our client against our server (in this process, loopback
 * HTTP), keep-alives every 50 ms.
 *
 * Every request of the client goes out on a connection of its own (a fresh
 * undici Agent each), so the proxy blackholes the GET stream's connection
 * alone and the reopened GET gets through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { CuttingProxy } from '../fixtures/cutting-proxy.ts';
import { freshConnectionFetch } from '../fixtures/fresh-connection-fetch.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';

const KEEP_ALIVE_MS = 50;
const STALL_AFTER_MS = 400;
const TOOLS_CHANGED = 'notifications/tools/list_changed';
const PROMPTS_CHANGED = 'notifications/prompts/list_changed';

const ours = new OwnClients();
const connections = freshConnectionFetch();
const proxies: CuttingProxy[] = [];
const servers: McpServer[] = [];
afterEach(async () => {
  await ours.disconnectAll();
  await connections.destroyAll();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('a legacy GET stream whose path goes silent, against our server', () => {
  it('is reopened with Last-Event-ID once a keep-alive was heard and then nothing for stallAfterMs: what it missed arrives, once', async () => {
    // A short retry, so the reopen waits little.
    const server = buildFixtureServer({ limits: { sseRetryMs: 10 } });
    servers.push(server);
    const handle = await server.listenHttp({ port: 0, keepAliveMs: KEEP_ALIVE_MS });
    const proxy = await CuttingProxy.start(handle.port);
    proxies.push(proxy);
    const url = `http://127.0.0.1:${proxy.port}/mcp`;
    const client = await ours.connect({ era: 'legacy', transport: httpTransport({ url, fetch: connections.fetch, stallAfterMs: STALL_AFTER_MS }) });
    const lost: unknown[] = [];
    client.on('connection.lost', (event) => lost.push(event.cause));
    const box = inbox();
    await client.subscribeNotifications({ toolsListChanged: true, promptsListChanged: true }, box.subscriber);

    // The first change arriving shows the GET stream is open; a keep-alive on it shows its server sends them.
    const first = box.next('notification');
    server.notifyToolsListChanged();
    expect(await first).toMatchObject({ method: TOOLS_CHANGED });
    await proxy.commentsForwarded(1, 'GET');

    // From now on the open GET stream's connection swallows everything, and stays open.
    proxy.blackhole('GET');
    const missed = box.next('notification');
    server.notifyPromptsListChanged();
    await proxy.swallowedEvents(1);
    // Sent into the dead path, it arrives through the reopened stream.
    expect(await missed).toMatchObject({ method: PROMPTS_CHANGED });

    // The reopened stream delivers again, and nothing came twice.
    const after = box.next('notification');
    server.notifyToolsListChanged();
    expect(await after).toMatchObject({ method: TOOLS_CHANGED });
    expect(box.messages.map((message) => (message.type === 'notification' ? message.method : message.type))).toEqual([
      TOOLS_CHANGED,
      PROMPTS_CHANGED,
      TOOLS_CHANGED,
    ]);
    // The session survived: no reconnect.
    expect(lost).toEqual([]);
  });
});

/**
 * A `cache.subscribe` listener that throws, against our own server over the
 * in-memory pair in both eras. Before, the throw escaped into the cache's
 * actor and its refetch promises and took the process down; now it is
 * reported through the client's `onError` (as a throwing `client.on` handler
 * is), and the other listeners and the cache go on.
 */
import { describe, expect, it } from 'vitest';
import { createChangeCache } from '../../src/cache/change-cache.ts';
import type { McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { createTestClient } from '../../src/testing/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });

describe.each(['modern', 'legacy'] as const)('a cache listener that throws (%s)', (era) => {
  it('is reported through client.onError for every event kind, and the other listeners and the cache go on', async () => {
    const server = buildFixtureServer();
    servers.push(server);
    const client = createTestClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
    clients.push(client);
    await client.connect();
    const reported: Error[] = [];
    client.onError((error) => reported.push(error));

    const cache = createChangeCache(client, { interest: { tools: true } });
    // Subscribed first, so every event reaches it before the recorder.
    cache.subscribe(() => {
      throw new Error('listener bug');
    });
    const recorder = recordCache(cache);
    await recorder.state('listening');
    await recorder.replaced('tools', 0);

    const from = recorder.mark();
    await client.callTool('emit', { kind: 'tools' });
    await recorder.replaced('tools', from);
    expect(recorder.steps(from)).toEqual(['invalidated tools', 'refetching tools', 'replaced tools']);
    expect((await cache.tools()).freshness).toBe('current');
    expect(cache.state).toBe('listening');

    expect(new Set(recorder.events.map((event) => event.type))).toEqual(new Set(['state', 'notification', 'invalidated', 'refetching', 'replaced']));
    // One report per event the throwing listener was called with, each the listener's own error.
    expect(reported).toHaveLength(recorder.events.length);
    expect(new Set(reported.map((error) => error.message))).toEqual(new Set(['listener bug']));
  });
});

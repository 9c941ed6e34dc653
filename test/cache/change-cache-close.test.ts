/**
 * A change cache whose client closes, over the in-memory pair with our
 * server: the cache hears the close before its stream or listener does (the
 * connection tells its watchers first), and it must leave the stream or
 * listener to end with the connection rather than stop it under the
 * connection's announcement (xstate reports an event to a stopped actor).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChangeCache, CacheClosedError } from '../../src/index.ts';
import { createTestClient } from '../../src/testing/index.ts';
import type { McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { buildFixtureServer, FIXTURE_URIS } from '../fixtures/own-server-setup.ts';

const servers: McpServer[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe.each(['legacy', 'modern'] as const)('a change cache when its client closes (%s)', (era) => {
  it.each(['close', 'shutdown'] as const)('%s: the cache closes and no event is sent to an actor already stopped', async (how) => {
    const server = buildFixtureServer();
    servers.push(server);
    const client = createTestClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
    clients.push(client);
    await client.connect();
    const cache = createChangeCache(client, { interest: { tools: true, uris: [FIXTURE_URIS[0]!] } });
    await cache.tools();
    const warnings: string[] = [];
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(' ')));
    await client[how]();
    expect(cache.state).toBe('closed');
    await expect(cache.tools()).rejects.toBeInstanceOf(CacheClosedError);
    expect(warnings.filter((line) => line.includes('stopped actor'))).toEqual([]);
  });
});

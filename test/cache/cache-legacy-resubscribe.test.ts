/**
 * Legacy era: after a reconnect the listener subscribes its URIs again, and
 * the new server refuses one (our own server, whose second instance holds a
 * session to fewer subscribed URI bytes than the cache needs). Before, the
 * cache took the whole filter as covered again, so the refused URI's contents
 * were served as current for ever with no notification behind them. Now the
 * refused URI is not covered: its entry is refetched for the gap and read as
 * stale (nothing backs it), while the URI that was resubscribed is current.
 */
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import type { McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { createTestChangeCache, createTestClient } from '../../src/testing/index.ts';
import { inMemoryTransport, type InMemoryClientTransport } from '../../src/transport/in-memory.ts';
import { buildFixtureServer, FIXTURE_URIS } from '../fixtures/own-server-setup.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { caches, clients, servers } = closedAfterEach({ caches: [] as ChangeCacheHandle[], clients: [] as McpClient[], servers: [] as McpServer[] });

const [R1, R2] = [FIXTURE_URIS[0]!, FIXTURE_URIS[1]!];

describe('a legacy change cache whose resubscribe of one URI is refused after a reconnect', () => {
  it('no longer takes that URI as covered: its contents read stale, the resubscribed one current', async () => {
    const first = buildFixtureServer();
    // Room for one of the two URIs (17 bytes each): the second `resources/subscribe` is refused (LimitExceeded).
    const restarted = buildFixtureServer({ limits: { maxSubscribedUriBytes: R1.length + 3 } });
    servers.push(first, restarted);
    let links = 0;
    const serve = inMemoryTransport((end) => (links++ === 0 ? first : restarted).serveStdio(end));
    let link: InMemoryClientTransport | undefined;
    const clock = new SimulatedClock();
    const client = createTestClient({ transport: () => (link = serve()), era: 'legacy', clock, random: () => 1 });
    clients.push(client);
    await client.connect();

    const cache = createTestChangeCache(client, { interest: { tools: true, uris: [R1, R2] } });
    caches.push(cache);
    const recorder = recordCache(cache);
    await recorder.state('listening');
    await Promise.all([recorder.replaced(`resource:${R1}`, 0), recorder.replaced(`resource:${R2}`, 0)]);
    expect((await cache.contents(R2)).backedBy).toBe('stream');

    link!.cut();
    await recorder.state('recovering');
    const from = recorder.mark();
    clock.increment(60_000); // the reconnect's backoff
    await recorder.state('listening', from);
    // The gap is refetched for both URIs.
    await Promise.all([recorder.replaced(`resource:${R1}`, from), recorder.replaced(`resource:${R2}`, from)]);

    expect(links).toBe(2);
    expect(await cache.contents(R1, { mode: 'stale' })).toMatchObject({ freshness: 'current', backedBy: 'stream' });
    expect(await cache.contents(R2, { mode: 'stale' })).toMatchObject({ freshness: 'stale', backedBy: 'none' });
    expect((await cache.tools()).backedBy).toBe('stream');
  });
});

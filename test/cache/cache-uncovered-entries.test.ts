/**
 * Entries no stream covers: the server does not advertise the change
 * notification the entry needs, so no notification will ever invalidate it.
 * Our own legacy server over the in-memory pair; legacy results carry no
 * `ttlMs`, so nothing says such an entry is fresh. Before, a valid uncovered
 * entry without a ttl was answered from the store on every read, `wait` or
 * `stale`, and never refetched: the application saw a list the server had
 * changed long ago, for ever. Now it is served as the cache promises for an
 * entry nothing backs: a `wait` read refetches it, a `stale` read answers at
 * once marked stale and refetches it in the background, as for an entry past
 * its ttl.
 */
import { describe, expect, it } from 'vitest';
import type { ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import type { McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { createTestChangeCache, createTestClient } from '../../src/testing/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { buildFixtureServer, type FixtureOptions } from '../fixtures/own-server-setup.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { caches, clients, servers } = closedAfterEach({ caches: [] as ChangeCacheHandle[], clients: [] as McpClient[], servers: [] as McpServer[] });

async function legacyCache(features: FixtureOptions['features'], interest: { tools?: boolean; prompts?: boolean }) {
  const server = buildFixtureServer({ features });
  servers.push(server);
  const client = createTestClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era: 'legacy' });
  clients.push(client);
  await client.connect();
  const cache = createTestChangeCache(client, { interest });
  caches.push(cache);
  return { server, cache, recorder: recordCache(cache) };
}

const names = (items: { name?: unknown }[]) => items.map((item) => item.name);

describe('a change cache entry that no stream covers (legacy server, no ttl)', () => {
  it('noOverlap: a wait read refetches the tool list, so a tool the server removed is gone', async () => {
    const { server, cache, recorder } = await legacyCache({ toolsListChanged: false }, { tools: true });
    const first = await cache.tools();
    expect(cache.state).toBe('noOverlap');
    expect(names(first.value)).toContain('echo');
    expect(first).toMatchObject({ freshness: 'stale', backedBy: 'none' });

    server.removeTool('echo'); // nothing announces it: the server offers no tools/list_changed
    const from = recorder.mark();
    const second = await cache.tools();
    expect(names(second.value)).not.toContain('echo');
    expect(second).toMatchObject({ freshness: 'stale', backedBy: 'none' });
    expect(recorder.steps(from)).toEqual(['refetching tools', 'replaced tools']);
  });

  it('noOverlap: a stale read answers the old list at once, marked stale, and refetches it for the next read', async () => {
    const { server, cache, recorder } = await legacyCache({ toolsListChanged: false }, { tools: true });
    await cache.tools();
    server.removeTool('echo');
    const from = recorder.mark();
    const stale = await cache.tools({ mode: 'stale' });
    expect(names(stale.value)).toContain('echo');
    expect(stale).toMatchObject({ freshness: 'stale', backedBy: 'none' });
    expect(recorder.steps(from)).toEqual(['refetching tools']);
    await recorder.replaced('tools', from);
    expect(names((await cache.tools({ mode: 'stale' })).value)).not.toContain('echo');
  });

  it('listening for tools only: the prompt list, which the stream does not cover, is refetched on read while tools stay stream-backed', async () => {
    const { server, cache, recorder } = await legacyCache({ promptsListChanged: false }, { tools: true, prompts: true });
    await recorder.state('listening');
    expect(cache.filter).toEqual({ toolsListChanged: true });
    expect(await cache.tools()).toMatchObject({ freshness: 'current', backedBy: 'stream' });
    expect(names((await cache.prompts()).value)).toContain('greeting');

    server.removePrompt('greeting');
    const from = recorder.mark();
    const prompts = await cache.prompts();
    expect(names(prompts.value)).not.toContain('greeting');
    expect(prompts).toMatchObject({ freshness: 'stale', backedBy: 'none' });
    // The covered entry is served from the store: only the uncovered one went to the server.
    expect(await cache.tools()).toMatchObject({ freshness: 'current', backedBy: 'stream' });
    expect(recorder.steps(from)).toEqual(['refetching prompts', 'replaced prompts']);
  });
});

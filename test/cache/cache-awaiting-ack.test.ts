/**
 * The cache's state while its modern listen is sent but not yet acknowledged,
 * and the `ackTimeoutMs` option that bounds that wait. The never-acknowledging
 * server is the scripted peer over the in-memory pair (no real server withholds
 * the acknowledgment on cue); the client's ack timeout runs on a simulated clock.
 */
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import type { McpClient } from '../../src/client/client.ts';
import { InvalidCacheOptionError, ListenAckTimeoutError } from '../../src/index.ts';
import { createTestChangeCache, createTestClient } from '../../src/testing/index.ts';
import { scriptedMemory } from '../fixtures/scripted-memory.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { caches, clients } = closedAfterEach({ caches: [] as ChangeCacheHandle[], clients: [] as McpClient[] });

async function connected(listen: string[], ackClock = new SimulatedClock()) {
  const client = createTestClient({ transport: scriptedMemory(['--era', 'modern', ...listen]), clock: ackClock, random: () => 1 });
  clients.push(client);
  await client.connect();
  return client;
}

async function cacheOn(client: McpClient, options: { ackTimeoutMs?: number } = {}) {
  const recovery = { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 4_000 };
  const cache = createTestChangeCache(client, { interest: { tools: true }, recovery, random: () => 1, clock: new SimulatedClock(), ...options });
  caches.push(cache);
  return { cache, recorder: recordCache(cache) };
}

describe('a change cache whose listen is not yet acknowledged', () => {
  it('reports awaitingAck, never listening, while the acknowledgment is pending', async () => {
    const client = await connected(['--listen', 'silent']);
    const { cache, recorder } = await cacheOn(client);
    const awaiting = await recorder.state('awaitingAck');
    expect(awaiting).toMatchObject({ previous: 'negotiating', detail: { era: 'modern', filter: { toolsListChanged: true } } });
    // A round trip: the listen has reached the peer, and still nothing acknowledged it.
    await client.request('script/requests', {});
    expect(cache.state).toBe('awaitingAck');
    expect(recorder.states()).not.toContain('listening');
  });

  it('reports listening once the server acknowledged the listen, not as resumed: it is the first stream', async () => {
    const client = await connected([]);
    const { cache, recorder } = await cacheOn(client);
    const listening = await recorder.state('listening');
    expect(listening).toMatchObject({ previous: 'awaitingAck', detail: { resumed: false } });
    expect(recorder.states()).toEqual(['negotiating', 'awaitingAck', 'listening']);
    expect(cache.state).toBe('listening');
  });

  it('waits for the acknowledgment as long as ackTimeoutMs says, then recovers with ListenAckTimeoutError', async () => {
    const ackClock = new SimulatedClock();
    const client = await connected(['--listen', 'silent'], ackClock);
    const { recorder } = await cacheOn(client, { ackTimeoutMs: 5_000 });
    await recorder.state('awaitingAck');
    ackClock.increment(5_000);
    const recovering = await recorder.state('recovering');
    expect(recovering.detail).toMatchObject({ attempt: 1, cause: { type: 'remote', cause: expect.any(ListenAckTimeoutError) } });
    expect((recovering.detail as { cause: { cause: ListenAckTimeoutError } }).cause.cause.timeoutMs).toBe(5_000);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5000'])('refuses ackTimeoutMs %s with InvalidCacheOptionError', async (value) => {
    const client = await connected(['--listen', 'silent']);
    const create = () => createTestChangeCache(client, { interest: { tools: true }, ackTimeoutMs: value as number });
    expect(create).toThrow(InvalidCacheOptionError);
    expect(create).toThrow(expect.objectContaining({ code: 'invalid_cache_option', option: 'ackTimeoutMs' }));
  });
});

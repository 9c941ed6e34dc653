/**
 * A modern server that accepts `subscriptions/listen` but never sends
 * `notifications/subscriptions/acknowledged`: the scripted peer (no real
 * server does this on cue) over the in-memory pair. The cache's first reads
 * wait for the fetch the opening stream starts, but never unboundedly: each
 * read gives up after its read timeout (CacheReadTimeoutError), and the
 * stream's ack timeout ends the start, after which reads are served uncovered
 * (`backedBy: 'none'`), the state is `recovering` with the timeout as cause,
 * and once the bounded recovery runs out, `degraded`. The client's ack
 * timeout and the cache's backoff run on simulated clocks.
 */
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import type { McpClient } from '../../src/client/client.ts';
import { CacheReadTimeoutError, DEFAULT_ACK_TIMEOUT_MS, ListenAckTimeoutError } from '../../src/index.ts';
import { createTestChangeCache, createTestClient } from '../../src/testing/index.ts';
import { scriptedMemory } from '../fixtures/scripted-memory.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { caches, clients } = closedAfterEach({ caches: [] as ChangeCacheHandle[], clients: [] as McpClient[] });

async function neverAcknowledging(options: { readTimeoutMs?: number } = {}) {
  const ackClock = new SimulatedClock();
  const client = createTestClient({ transport: scriptedMemory(['--era', 'modern', '--listen', 'silent']), clock: ackClock, random: () => 1 });
  clients.push(client);
  await client.connect();
  const clock = new SimulatedClock();
  const recovery = { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 4_000 };
  const cache = createTestChangeCache(client, { interest: { tools: true }, recovery, random: () => 1, clock, ...options });
  caches.push(cache);
  /** The methods the peer received so far (a round trip: everything sent before it has arrived). */
  const received = async () => {
    const { requests } = await client.request('script/requests', {});
    return (requests as { method: string }[]).map((request) => request.method).filter((method) => method !== 'script/requests');
  };
  return { client, cache, clock, ackClock, received, recorder: recordCache(cache) };
}

const ackTimedOut = { type: 'remote', cause: expect.any(ListenAckTimeoutError) };

describe('a change cache whose modern server never acknowledges its listen', () => {
  it('a first read gives up after its read timeout with CacheReadTimeoutError, having fetched nothing', async () => {
    const { cache, received, recorder } = await neverAcknowledging({ readTimeoutMs: 50 });
    await recorder.state('awaitingAck');
    // The ack clock is never advanced here: the acknowledgment cannot come, so only the read timeout can end the read.
    const failure = await cache.tools().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CacheReadTimeoutError);
    expect(failure).toMatchObject({ key: 'tools', timeoutMs: 50 });
    expect(await received()).toEqual(['server/discover', 'subscriptions/listen']);
  });

  it('once the ack timeout passes, reads are served uncovered, the state says why, and bounded recovery ends degraded', async () => {
    const { cache, clock, ackClock, received, recorder } = await neverAcknowledging();
    await recorder.state('awaitingAck');
    const first = cache.tools({ timeoutMs: 600_000 });
    expect(await received()).toEqual(['server/discover', 'subscriptions/listen']);

    ackClock.increment(DEFAULT_ACK_TIMEOUT_MS);
    const recovering = await recorder.state('recovering');
    expect(recovering.detail).toMatchObject({ attempt: 1, cause: ackTimedOut });
    expect(await first).toMatchObject({ value: [{ name: 'scripted' }], freshness: 'stale', backedBy: 'none' });

    // Attempt 2: server/discover again, a new listen, again never acknowledged.
    let from = recorder.mark();
    clock.increment(1_000);
    await recorder.state('awaitingAck', from);
    expect((await received()).filter((method) => method === 'subscriptions/listen')).toHaveLength(2);
    from = recorder.mark();
    ackClock.increment(DEFAULT_ACK_TIMEOUT_MS);
    await recorder.state('recovering', from);

    // Attempt 2 was the last: its stream times out too, and the cache is degraded with the timeout as cause.
    from = recorder.mark();
    clock.increment(2_000);
    await recorder.state('awaitingAck', from);
    expect((await received()).filter((method) => method === 'subscriptions/listen')).toHaveLength(3);
    ackClock.increment(DEFAULT_ACK_TIMEOUT_MS);
    const degraded = await recorder.state('degraded', from);
    expect(degraded.detail).toEqual({ type: 'recovery_exhausted', attempts: 2, cause: ackTimedOut });
    expect(cache.degradedBy).toEqual(degraded.detail);
    expect(await cache.tools()).toMatchObject({ value: [{ name: 'scripted' }], backedBy: 'none' });
  });
});

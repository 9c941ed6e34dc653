import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeDelivery, ChangeEvent } from '../../src/server/bus.ts';
import { createRedisBus, type RedisBus, type RedisBusHealth } from '../../src/redis/index.ts';
import { startRedis, type RedisProcess } from './redis-server.ts';

interface Received {
  event: ChangeEvent;
  remote: boolean;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function redis(): Promise<RedisProcess> {
  const server = await startRedis();
  cleanups.push(() => server.stop());
  return server;
}

function waitForHealth(bus: RedisBus, wanted: RedisBusHealth): Promise<void> {
  if (bus.health === wanted) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = bus.onHealth((health) => {
      if (health !== wanted) return;
      stop();
      resolve();
    });
  });
}

async function node(url: string, options: { maxLen?: number; maxQueued?: number; logs?: string[] } = {}) {
  const received: Received[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const bus = await createRedisBus({ redis: url, blockMs: 1000, log: (line) => options.logs?.push(line), ...options });
  cleanups.push(() => bus.close());
  bus.subscribe((event: ChangeEvent, delivery?: ChangeDelivery) => {
    received.push({ event, remote: delivery?.remote ?? false });
    for (const waiter of waiters.filter((candidate) => received.length >= candidate.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const receivedCount = (count: number) =>
    received.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
  return { bus, received, receivedCount };
}

const updated = (uri: string): ChangeEvent => ({ type: 'resource_updated', uri });

describe('Redis bus', () => {
  it('every node applies every event once, its own included, in one order', async () => {
    const server = await redis();
    const nodes = await Promise.all([node(server.url), node(server.url), node(server.url)]);
    await Promise.all(nodes.map(({ bus }) => waitForHealth(bus, 'connected')));
    for (let i = 0; i < 30; i++) nodes[i % 3]!.bus.publish(updated(`test://${i}`));
    await Promise.all(nodes.map(({ receivedCount }) => receivedCount(30)));
    const orders = nodes.map(({ received }) => received.map(({ event }) => (event.type === 'resource_updated' ? event.uri : event.type)));
    expect(orders[0]).toHaveLength(30);
    expect(new Set(orders[0])).toHaveProperty('size', 30);
    expect(orders[1]).toEqual(orders[0]);
    expect(orders[2]).toEqual(orders[0]);
    // Each origin's events keep their order.
    const fromFirst = orders[0]!.filter((uri) => Number(uri.slice('test://'.length)) % 3 === 0);
    expect(fromFirst).toEqual(Array.from({ length: 10 }, (_, k) => `test://${k * 3}`));
    // Own events are local, the others' remote.
    expect(nodes[0]!.received.filter(({ remote }) => !remote).map(({ event }) => event)).toEqual(fromFirst.map(updated));
  });
});

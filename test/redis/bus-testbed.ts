/**
 * Redis bus nodes for the tests of one file, each on a private redis-server:
 * `busTestbed()` (called once at the top of a file) registers the afterEach
 * that closes what its `redis()` and `node()` started, and keeps the test's
 * timeline of published events, so `uncovered` can tell an event a node
 * missed from one a later `everything_changed` covers.
 */
import { afterEach } from 'vitest';
import type { ChangeDelivery, ChangeEvent } from '../../src/server/bus.ts';
import { createRedisBus, type RedisBus, type RedisBusHealth, type RedisBusOptions, type RedisClientLike } from '../../src/redis/index.ts';
import { createClient } from 'redis';
import { startRedis, type RedisProcess } from './redis-server.ts';

/** One event as a node's handler received it. */
export interface Received {
  event: ChangeEvent;
  remote: boolean;
  /** How many events the test had published when this one arrived. */
  at: number;
}

/** What `node()` takes besides the Redis: the bus's bounds, and where its log lines (and their errors) go. */
export interface NodeOptions extends Pick<RedisBusOptions, 'maxLen' | 'maxQueued' | 'settleTimeoutMs'> {
  logs?: string[];
  errors?: Error[];
}

export const updated = (uri: string): ChangeEvent => ({ type: 'resource_updated', uri });

/** Whether `event` is the same change as `expected`. */
export const sameEvent = (event: ChangeEvent, expected: ChangeEvent): boolean => JSON.stringify(event) === JSON.stringify(expected);

export function waitForHealth(bus: RedisBus, wanted: RedisBusHealth): Promise<void> {
  if (bus.health === wanted) return Promise.resolve();
  return nextHealth(bus, wanted);
}

/** A promise for the next time `bus` reaches `wanted`, made before the action that leads there. */
export function nextHealth(bus: RedisBus, wanted: RedisBusHealth): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = bus.onHealth((health) => {
      if (health !== wanted) return;
      stop();
      resolve();
    });
  });
}

/** A command that is the bus's publish (the script that XADDs its entry). */
export const isPublish = (args: ReadonlyArray<string>): boolean => args[0] === 'EVAL' && args[1]?.includes('XADD') === true;

/**
 * `target` with some members replaced (`sendCommand`, `duplicate`) and the rest bound to it: the seam through which a
 * test holds or orders the commands a node sends on a real client.
 */
export function withOverrides<T extends object>(target: T, overrides: Record<string | symbol, unknown>): T {
  return new Proxy(target, {
    get(object, key) {
      if (key in overrides) return overrides[key];
      const value: unknown = Reflect.get(object, key, object);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}

export function busTestbed() {
  /** The test's timeline: events published so far, across every node. */
  const published: ChangeEvent[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    published.length = 0;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function redis(): Promise<RedisProcess> {
    const server = await startRedis();
    cleanups.push(() => server.stop());
    return server;
  }

  /** The test's own node-redis client on `url`, connected; destroyed after the test. */
  async function client(url: string) {
    const connected = createClient({ url });
    connected.on('error', () => {});
    await connected.connect();
    cleanups.push(async () => connected.destroy());
    return connected;
  }

  async function node(url: string | RedisClientLike, options: NodeOptions = {}) {
    const { logs, errors, ...bounds } = options;
    const received: Received[] = [];
    const waiters: Array<{ count: number; resolve: () => void }> = [];
    const log = (line: string, error?: Error) => {
      logs?.push(line);
      if (error) errors?.push(error);
    };
    const bus = await createRedisBus({ redis: url, blockMs: 1000, log, ...bounds });
    cleanups.push(() => bus.close());
    bus.subscribe((event: ChangeEvent, delivery?: ChangeDelivery) => {
      received.push({ event, remote: delivery?.remote ?? false, at: published.length });
      for (const waiter of waiters.filter((candidate) => received.length >= candidate.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
    const receivedCount = (count: number) =>
      received.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
    const publish = (event: ChangeEvent) => {
      published.push(event);
      bus.publish(event);
    };
    /** Resolves once an event matching `test` arrives (already or later). */
    const receivedWhere = (test: (item: Received) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!received.some(test)) return false;
          resolve();
          return true;
        };
        if (check()) return;
        const stop = bus.subscribe(() => queueMicrotask(() => check() && stop()));
      });
    return { bus, received, receivedCount, publish, receivedWhere };
  }

  /** Every published event reached the node, or an everything_changed that arrived after it was published covers it. */
  function uncovered(received: Received[]): ChangeEvent[] {
    const got = new Set(received.map(({ event }) => JSON.stringify(event)));
    const lastResync = Math.max(-1, ...received.filter(({ event }) => event.type === 'everything_changed').map(({ at }) => at));
    return published.filter((event, index) => !got.has(JSON.stringify(event)) && index >= lastResync);
  }

  /** Each distinct event at most once: resent copies and own events applied early are not applied twice. */
  function duplicates(received: Received[]): string[] {
    const seen = new Set<string>();
    return received
      .map(({ event }) => JSON.stringify(event))
      .filter((key) => key !== '{"type":"everything_changed"}' && (seen.has(key) || !seen.add(key)));
  }

  return { cleanups, redis, client, node, uncovered, duplicates };
}

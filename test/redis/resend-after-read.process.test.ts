/**
 * An own event resent under a new seq after a later own event was read back, against a real redis-server: the
 * node applied the first at once when Redis refused it, and must not apply its resent copy again.
 */
import { describe, expect, it } from 'vitest';
import type { RedisClientLike } from '../../src/redis/index.ts';
import { busTestbed, isPublish, nextHealth, sameEvent, updated, waitForHealth, withOverrides, type Received } from './bus-testbed.ts';

const { redis, client, node, uncovered, duplicates } = busTestbed();

const uris = (received: Received[]) => received.map(({ event }) => (event.type === 'resource_updated' ? event.uri : event.type));

/**
 * The application's client, with two seams that put the node's second publish between two of its own steps: that
 * publish reaches Redis only after the answer to the first came back (the node handled it first: its handler was
 * attached before) and `between()` ran; and the node's reader (the client's duplicate) sends a catch-up read (an
 * XREAD without BLOCK) only once that second publish landed. `secondLanded()` resolves then.
 */
function secondPublishAfterFirstAnswered(client: RedisClientLike, between: () => Promise<unknown>) {
  let first: Promise<unknown> | undefined;
  let second: Promise<unknown> | undefined;
  const settled = (promise: Promise<unknown>) => promise.then(() => undefined, () => undefined);
  const reader = client.duplicate();
  const heldReader = withOverrides(reader, {
    sendCommand: (...[args, options]: Parameters<RedisClientLike['sendCommand']>) => {
      if (second === undefined || args[0] !== 'XREAD' || args.includes('BLOCK')) return reader.sendCommand(args, options);
      return settled(second).then(() => reader.sendCommand(args, options));
    },
  });
  const writer = withOverrides(client, {
    sendCommand: (...[args, options]: Parameters<RedisClientLike['sendCommand']>) => {
      if (!isPublish(args) || second !== undefined) return client.sendCommand(args, options);
      if (first === undefined) return (first = client.sendCommand(args, options));
      second = settled(first)
        .then(between)
        .then(() => client.sendCommand(args, options));
      return second;
    },
    duplicate: () => heldReader,
  });
  return { writer, secondLanded: () => settled(second ?? Promise.reject(new Error('no second publish yet'))) };
}

describe('Redis bus: an own event resent after a later one was read back', () => {
  it('is applied once on its node: refused and applied at once, then resent under a new seq after the later one was read', async () => {
    const server = await redis();
    const application = await client(server.url);
    // Redis accepts writes again between the refused publish and the next one.
    const seam = secondPublishAfterFirstAnswered(application, () => server.command(['CONFIG', 'SET', 'maxmemory', '0']));
    const logs: string[] = [];
    const a = await node(server.url);
    const b = await node(seam.writer, { logs });
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    await server.command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await server.command(['CONFIG', 'SET', 'maxmemory', '1']);
    const down = nextHealth(b.bus, 'disconnected');
    // Both sent while live: seq 1 is refused (OOM) and applied at once; seq 2 lands after that, the link up.
    b.publish(updated('test://refused'));
    b.publish(updated('test://through'));
    await down;
    await seam.secondLanded();
    expect(logs.some((line) => /publishing resource_updated failed.*OOM/.test(line))).toBe(true);
    // B's retry catches up (reading seq 2), then resends seq 1 under seq 3.
    await waitForHealth(b.bus, 'connected');
    b.publish(updated('test://last'));
    await Promise.all([a, b].map(({ receivedWhere }) => receivedWhere(({ event }) => sameEvent(event, updated('test://last')))));
    expect(uris(b.received)).toEqual(['test://refused', 'test://through', 'test://last']);
    expect(uris(a.received)).toEqual(['test://through', 'test://refused', 'test://last']);
    for (const { received } of [a, b]) {
      expect(duplicates(received)).toEqual([]);
      expect(uncovered(received)).toEqual([]);
    }
  });
});

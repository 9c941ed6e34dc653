import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/server/bus.ts';
import { createClient, RESP_TYPES } from 'redis';
import { createRedisBus, type RedisBus, type RedisClientLike } from '../../src/redis/index.ts';
import { busTestbed, nextHealth, updated, waitForHealth, withOverrides } from './bus-testbed.ts';
import { cuttableLink } from './cuttable-link.ts';

const { cleanups, redis, client, node, uncovered, duplicates } = busTestbed();

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

describe('Redis bus recovery', () => {
  it('Redis SIGKILLed and restarted without persistence: events published meanwhile apply locally at once, and every node resyncs', async () => {
    const server = await redis();
    const [a, b] = await Promise.all([node(server.url), node(server.url)]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    a.publish(updated('test://before'));
    await Promise.all([a, b].map(({ receivedCount }) => receivedCount(1)));
    await server.kill();
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'disconnected')));
    a.publish(updated('test://while-down'));
    // Applied at once on the publishing node, while Redis is away.
    expect(a.received.at(-1)).toMatchObject({ event: updated('test://while-down'), remote: false });
    b.publish(updated('test://while-down-b'));
    await server.restart();
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'resynced')));
    await Promise.all([a, b].map(({ receivedWhere }) => receivedWhere(({ event }) => event.type === 'everything_changed')));
    a.publish(updated('test://after'));
    await Promise.all([a, b].map(({ receivedWhere }) => receivedWhere(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://after')))));
    for (const { received } of [a, b]) {
      expect(uncovered(received)).toEqual([]);
      expect(duplicates(received)).toEqual([]);
    }
  });

  it('a node cut off (CLIENT KILL) while more than the retention is published resyncs, and misses nothing silently', async () => {
    const server = await redis();
    const link = await cuttableLink(server.port);
    cleanups.push(() => link.close());
    const logs: string[] = [];
    const [a, c] = await Promise.all([node(server.url, { maxLen: 100 }), node(link.url, { maxLen: 100, logs })]);
    await Promise.all([a, c].map(({ bus }) => waitForHealth(bus, 'connected')));
    a.publish(updated('test://0'));
    await c.receivedCount(1);
    for (const address of link.cut()) await server.command(['CLIENT', 'KILL', 'ADDR', address]);
    await waitForHealth(c.bus, 'disconnected');
    // Far past the retention (MAXLEN ~ trims whole stream nodes of 100 entries), in steps the connected node keeps up with.
    for (let step = 0; step < 8; step++) {
      for (let i = 1; i <= 50; i++) a.publish(updated(`test://${step * 50 + i}`));
      await a.receivedCount(1 + (step + 1) * 50);
    }
    expect(Number(await server.command(['XLEN', '{mcp-actors}:events']))).toBeLessThan(400);
    c.publish(updated('test://from-c-while-cut'));
    link.restore();
    await waitForHealth(c.bus, 'resynced');
    await a.receivedWhere(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://from-c-while-cut')));
    a.publish(updated('test://last'));
    // Both: the publishing node applies its own event when it reads it back, which may come after the other's read.
    await Promise.all([a, c].map(({ receivedWhere }) => receivedWhere(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://last')))));
    expect(c.received.filter(({ event }) => event.type === 'everything_changed')).toHaveLength(1);
    expect(logs.some((line) => /trimmed/.test(line))).toBe(true);
    for (const { received } of [a, c]) {
      expect(uncovered(received)).toEqual([]);
      expect(duplicates(received)).toEqual([]);
    }
    // The node that stayed connected never had to resync.
    expect(a.received.some(({ event }) => event.type === 'everything_changed')).toBe(false);
  });

  it('a node whose outbound queue overflowed while cut off announces one everything_changed to every node', async () => {
    const server = await redis();
    const link = await cuttableLink(server.port);
    cleanups.push(() => link.close());
    const [a, c] = await Promise.all([node(server.url), node(link.url, { maxQueued: 3 })]);
    await Promise.all([a, c].map(({ bus }) => waitForHealth(bus, 'connected')));
    for (const address of link.cut()) await server.command(['CLIENT', 'KILL', 'ADDR', address]);
    await waitForHealth(c.bus, 'disconnected');
    for (let i = 0; i < 5; i++) c.publish(updated(`test://queued-${i}`));
    expect(c.received.map(({ event }) => event)).toEqual(Array.from({ length: 5 }, (_, i) => updated(`test://queued-${i}`)));
    link.restore();
    await a.receivedWhere(({ event }) => event.type === 'everything_changed');
    await c.receivedWhere(({ event }) => event.type === 'everything_changed');
    await waitForHealth(c.bus, 'connected');
    expect(a.received.map(({ event }) => event)).toEqual([{ type: 'everything_changed' }]);
    for (const { received } of [a, c]) expect(uncovered(received)).toEqual([]);
  });
});

/** A handler standing in for a slow `onRemoteChange`: it holds every remote event until `open()`. */
function heldApplier(bus: RedisBus) {
  const applied: ChangeEvent[] = [];
  const arrivals: Array<() => void> = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  bus.subscribe((event, delivery) => {
    if (!delivery?.remote) return undefined;
    for (const arrived of arrivals.splice(0)) arrived();
    return gate.then(() => void applied.push(event));
  });
  /** Resolves once a remote event reached the handler (and is being held). */
  const arrived = () => new Promise<void>((resolve) => arrivals.push(resolve));
  return { applied, arrived, open };
}

/** Whether `promise` settled by now: every reply already received and every microtask run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('Redis bus read barrier (settled)', () => {
  it("settled() on B waits until B applied an event published on A, its slow handler included", async () => {
    const server = await redis();
    // B's writer is the test's own client, so a PING on it proves B's XREVRANGE was answered before.
    const writer = await client(server.url);
    const a = await node(server.url);
    // An application's own node-redis client is accepted as it is typed (no cast).
    const bBus = await createRedisBus({ redis: writer, blockMs: 1000, settleTimeoutMs: 60_000, log: () => {} });
    cleanups.push(() => bBus.close());
    await Promise.all([a.bus, bBus].map((bus) => waitForHealth(bus, 'connected')));
    const held = heldApplier(bBus);
    const arrived = held.arrived();
    a.publish(updated('test://new'));
    await arrived;
    const settled = bBus.settled();
    await writer.sendCommand(['PING']);
    expect(await settledYet(settled)).toBe(false);
    expect(held.applied).toEqual([]);
    held.open();
    await settled;
    expect(held.applied).toEqual([updated('test://new')]);
    // Nothing new since: the next barrier costs one round trip and passes.
    await bBus.settled();
    await a.bus.settled();
    expect(a.received.map(({ event }) => event)).toEqual([updated('test://new')]);
  });

  it('a read waiting on a node that loses Redis is let go, and settled() answers at once while disconnected', async () => {
    const server = await redis();
    const link = await cuttableLink(server.port);
    cleanups.push(() => link.close());
    const a = await node(server.url);
    const c = await node(link.url, { settleTimeoutMs: 60_000 });
    await Promise.all([a, c].map(({ bus }) => waitForHealth(bus, 'connected')));
    const held = heldApplier(c.bus);
    const arrived = held.arrived();
    a.publish(updated('test://held'));
    await arrived;
    const waiting = c.bus.settled();
    for (const address of link.cut()) await server.command(['CLIENT', 'KILL', 'ADDR', address]);
    await waitForHealth(c.bus, 'disconnected');
    await waiting;
    expect(held.applied).toEqual([]);
    await c.bus.settled();
    held.open();
    // Back on Redis, so the bus closes cleanly.
    link.restore();
    await waitForHealth(c.bus, 'connected');
  });

  it('gives up after settleTimeoutMs and answers anyway, logged', async () => {
    const server = await redis();
    const logs: string[] = [];
    const a = await node(server.url);
    const b = await node(server.url, { settleTimeoutMs: 50, logs });
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    const held = heldApplier(b.bus);
    const arrived = held.arrived();
    a.publish(updated('test://stuck'));
    await arrived;
    await b.bus.settled();
    expect(held.applied).toEqual([]);
    expect(logs.some((line) => /settle timeout/.test(line))).toBe(true);
    held.open();
  });
});

/** A Redis server and two connected nodes, `a` logging to `logs`, both past one event `a` published. */
async function twoNodesPastFirstEvent(logs: string[]) {
  const server = await redis();
  const [a, b] = await Promise.all([node(server.url, { logs }), node(server.url)]);
  await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
  a.publish(updated('test://first'));
  await Promise.all([a, b].map(({ receivedCount }) => receivedCount(1)));
  return { server, a, b };
}

describe('Redis bus faults with the link up', () => {
  it('a publish Redis refuses (OOM) is applied at once, resent once the node is live again, and reaches every node', async () => {
    const logs: string[] = [];
    const { server, a, b } = await twoNodesPastFirstEvent(logs);
    await server.command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await server.command(['CONFIG', 'SET', 'maxmemory', '1']);
    const down = nextHealth(a.bus, 'disconnected');
    a.publish(updated('test://refused'));
    await down;
    expect(a.received.at(-1)).toMatchObject({ event: updated('test://refused'), remote: false });
    expect(logs.some((line) => /publishing resource_updated failed.*OOM/.test(line))).toBe(true);
    await server.command(['CONFIG', 'SET', 'maxmemory', '0']);
    a.publish(updated('test://while-refused'));
    // No reconnect happens (the link stayed up): the node retries on its own.
    await waitForHealth(a.bus, 'connected');
    await b.receivedWhere(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://while-refused')));
    a.publish(updated('test://last'));
    await Promise.all([a, b].map(({ receivedWhere }) => receivedWhere(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://last')))));
    for (const { received } of [a, b]) {
      expect(uncovered(received)).toEqual([]);
      expect(duplicates(received)).toEqual([]);
      expect(received.some(({ event }) => event.type === 'everything_changed')).toBe(false);
    }
  });

  it('a publish Redis refuses again on every resend is applied locally once', async () => {
    const server = await redis();
    const logs: string[] = [];
    const a = await node(server.url, { logs });
    await waitForHealth(a.bus, 'connected');
    // An entry with the last id there is: XADD refuses every later entry, the head script (no write) still runs.
    const ordinal = String(await server.command(['INCR', '{mcp-actors}:ordinal']));
    await server.command(['XADD', '{mcp-actors}:events', '18446744073709551615-18446744073709551615', 'n', ordinal, 'o', 'someone', 's', '1', 'e', '{"type":"tools_list_changed"}']);
    const down = nextHealth(a.bus, 'disconnected');
    a.publish(updated('test://refused'));
    await down;
    // The node resends once live again; each disconnect after the first is that resend refused.
    await nextHealth(a.bus, 'disconnected');
    await nextHealth(a.bus, 'disconnected');
    expect(logs.filter((line) => /publishing resource_updated failed.*exhausted/.test(line))).toHaveLength(3);
    expect(a.received.filter(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://refused')))).toHaveLength(1);
  });

  it('a publish Redis refuses (the events key holds another type) costs no ordinal: no node sees a gap once it goes through', async () => {
    const logs: string[] = [];
    const { server, a, b } = await twoNodesPastFirstEvent(logs);
    // The stream set aside, a string in its place: XADD refused, its entries kept for when it comes back.
    await server.command(['RENAME', '{mcp-actors}:events', '{mcp-actors}:aside']);
    await server.command(['SET', '{mcp-actors}:events', 'not a stream']);
    const down = nextHealth(a.bus, 'disconnected');
    a.publish(updated('test://refused'));
    await down;
    expect(logs.some((line) => /publishing resource_updated failed.*WRONGTYPE/.test(line))).toBe(true);
    expect(await server.command(['GET', '{mcp-actors}:ordinal'])).toBe('1');
    await server.command(['RENAME', '{mcp-actors}:aside', '{mcp-actors}:events']);
    a.publish(updated('test://after'));
    await b.receivedWhere(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://after')));
    await Promise.all([a, b].map(({ bus }) => bus.settled()));
    for (const { received } of [a, b]) {
      expect(uncovered(received)).toEqual([]);
      expect(received.some(({ event }) => event.type === 'everything_changed')).toBe(false);
    }
  });

  it('an error reply to the blocking read leaves the node disconnected only until its retry, logged with why', async () => {
    const server = await redis();
    const logs: string[] = [];
    const [a, b] = await Promise.all([node(server.url, { logs }), node(server.url)]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    const down = nextHealth(a.bus, 'disconnected');
    // Both nodes' blocking reads get an error reply (in the field: LOADING, BUSY, a wrong type); the link stays up.
    const clients = String(await server.command(['CLIENT', 'LIST'])).split('\n');
    const blocked = clients.filter((line) => /cmd=xread/.test(line) && /flags=b/.test(line)).map((line) => /id=(\d+)/.exec(line)![1]!);
    expect(blocked.length).toBeGreaterThan(0);
    for (const id of blocked) await server.command(['CLIENT', 'UNBLOCK', id, 'ERROR']);
    await down;
    expect(logs.some((line) => /reading the stream failed/.test(line))).toBe(true);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    b.publish(updated('test://after-the-error'));
    a.publish(updated('test://from-a'));
    await Promise.all([a, b].map(({ receivedCount }) => receivedCount(2)));
    for (const { received } of [a, b]) expect(uncovered(received)).toEqual([]);
  });

  it("a change handler that throws is logged and costs neither the node's other handlers nor its read loop", async () => {
    const server = await redis();
    const logs: string[] = [];
    const [a, b] = await Promise.all([node(server.url), node(server.url, { logs })]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    b.bus.subscribe(() => {
      throw new Error('a handler bug');
    });
    a.publish(updated('test://one'));
    a.publish(updated('test://two'));
    await b.receivedCount(2);
    expect(b.received.map(({ event }) => event)).toEqual([updated('test://one'), updated('test://two')]);
    expect(b.bus.health).toBe('connected');
    expect(logs.filter((line) => /a change handler threw on resource_updated: a handler bug/.test(line))).toHaveLength(2);
  });
});

describe('Redis bus with a node slower than the stream', () => {
  it('reads no further than its handlers got, so past the retention it resyncs instead of holding the stream', async () => {
    const server = await redis();
    const logs: string[] = [];
    const [a, b] = await Promise.all([node(server.url, { maxLen: 100 }), node(server.url, { maxLen: 100, logs })]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    const held = heldApplier(b.bus);
    const arrived = held.arrived();
    a.publish(updated('test://0'));
    await arrived;
    // B's handler holds its first event while ten times the retention is published.
    for (let step = 0; step < 10; step++) {
      for (let i = 1; i <= 100; i++) a.publish(updated(`test://${step * 100 + i}`));
      await a.receivedCount(1 + (step + 1) * 100);
    }
    const resynced = nextHealth(b.bus, 'resynced');
    held.open();
    await resynced;
    await b.receivedWhere(({ event }) => event.type === 'everything_changed');
    // Held: the first event; then at most the one batch it had read; the trimmed rest is covered by the resync.
    expect(held.applied.length).toBeLessThan(600);
    expect(logs.some((line) => /trimmed or lost/.test(line))).toBe(true);
    a.publish(updated('test://last'));
    await b.receivedWhere(({ event }) => JSON.stringify(event) === JSON.stringify(updated('test://last')));
    expect(uncovered(b.received)).toEqual([]);
  });
});

describe("Redis bus on an application's client with a reply type mapping", () => {
  // The bus reads with a duplicate of the application's client, so it gets the client's type mapping too.
  it.each([
    ['RESP2, bulk strings as Buffers', (url: string) => createClient({ url }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })],
    ['RESP3, maps as Map', (url: string) => createClient({ url, RESP: 3 }).withTypeMapping({ [RESP_TYPES.MAP]: Map })],
  ] as const)('%s: every event reaches both nodes', async (_label, make) => {
    const server = await redis();
    const [a, b] = await Promise.all([0, 1].map(async () => {
      const client = make(server.url);
      client.on('error', () => {});
      await client.connect();
      cleanups.push(async () => void (await client.close()));
      return node(client as unknown as RedisClientLike);
    }));
    await Promise.all([a!, b!].map(({ bus }) => waitForHealth(bus, 'connected')));
    a!.publish(updated('test://typed-1'));
    b!.publish(updated('test://typed-2'));
    await Promise.all([a!, b!].map(({ receivedCount }) => receivedCount(2)));
    // The read barrier parses the newest entry's id too.
    await a!.bus.settled();
    const both = new Set([updated('test://typed-1'), updated('test://typed-2')].map((event) => JSON.stringify(event)));
    for (const { received, bus } of [a!, b!]) {
      expect(new Set(received.map(({ event }) => JSON.stringify(event)))).toEqual(both);
      expect(bus.health).toBe('connected');
    }
  });
});

/**
 * The application's client, whose duplicate (the bus's reader) holds its first catch-up read (an XREAD without
 * BLOCK) until `release()`; `held` is that read's reply as the bus receives it.
 */
function catchUpReadHeld(client: RedisClientLike) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held: Promise<unknown> | undefined;
  const duplicate = client.duplicate();
  const reader = withOverrides(duplicate, {
    sendCommand(...command: Parameters<RedisClientLike['sendCommand']>) {
      const [args] = command;
      if (held !== undefined || args[0] !== 'XREAD' || args.includes('BLOCK')) return duplicate.sendCommand(...command);
      held = released.then(() => duplicate.sendCommand(...command));
      return held;
    },
  });
  return { writer: withOverrides(client, { duplicate: () => reader }), release, held: () => held };
}

describe('Redis bus with only its writer dropped during a catch-up', () => {
  it('the catch-up the drop interrupted stops: the next one alone reads, with no resync and no event twice', async () => {
    const server = await redis();
    const a = await node(server.url);
    await waitForHealth(a.bus, 'connected');
    const own = await client(server.url);
    const writerId = String(await own.sendCommand(['CLIENT', 'ID']));
    const seam = catchUpReadHeld(own as unknown as RedisClientLike);
    const b = await node(seam.writer);
    // B's first catch-up proved continuity and waits on its read; the events land after the head it saw.
    await waitForHealth(b.bus, 'catching_up');
    for (let i = 0; i < 3; i++) a.publish(updated(`test://${i}`));
    await a.receivedCount(3);
    // Only the writer drops; node-redis reconnects it and B catches up again, reading the three events.
    const down = nextHealth(b.bus, 'disconnected');
    await server.command(['CLIENT', 'KILL', 'ID', writerId]);
    await down;
    await waitForHealth(b.bus, 'connected');
    await b.receivedCount(3);
    // The interrupted catch-up's read now answers: it must be dropped, not consumed behind the newer one.
    seam.release();
    await seam.held();
    await new Promise((resolve) => setImmediate(resolve));
    a.publish(updated('test://after'));
    await b.receivedCount(4);
    expect(b.received.map(({ event }) => event)).toEqual([0, 1, 2].map((i) => updated(`test://${i}`)).concat(updated('test://after')));
    expect(b.bus.health).toBe('connected');
  });
});

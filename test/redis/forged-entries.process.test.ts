/**
 * Entries the bus did not write, appended to the stream by anyone with write
 * access to it (or a buggy writer), against a real redis-server: malformed,
 * huge, or well-formed in another node's name or in the reader's own. None may
 * mute a node or hide a change: each is skipped (or, where the reader cannot
 * tell it from a genuine one, applied) and reported through the bus's log
 * with a StreamEntryError, and a node that cannot prove it read everything
 * says so with `everything_changed`.
 */
import { describe, expect, it } from 'vitest';
import { EventTooLargeError, StreamEntryError, type RedisClientLike } from '../../src/redis/index.ts';
import type { ChangeEvent } from '../../src/server/bus.ts';
import { busTestbed, isPublish, nextHealth, sameEvent, updated, waitForHealth, withOverrides, type Received } from './bus-testbed.ts';
import type { RedisProcess } from './redis-server.ts';

const { redis, client, node, uncovered } = busTestbed();

const KEYS = { events: '{mcp-actors}:events', ordinal: '{mcp-actors}:ordinal' };

/**
 * Appends an entry as a bus writes one, with the next ordinal (so it costs no gap): `origin`, `seq` and the event
 * are whatever the forger claims. `id` is `*` unless given.
 */
async function forge(server: RedisProcess, entry: { origin: string; seq: number | string; event: ChangeEvent | string; id?: string }): Promise<void> {
  const ordinal = String(await server.command(['INCR', KEYS.ordinal]));
  const event = typeof entry.event === 'string' ? entry.event : JSON.stringify(entry.event);
  await server.command(['XADD', KEYS.events, entry.id ?? '*', 'n', ordinal, 'o', entry.origin, 's', String(entry.seq), 'e', event]);
}

const uris = (received: Received[]) => received.map(({ event }) => (event.type === 'resource_updated' ? event.uri : event.type));

/** The problems reported with a StreamEntryError, by type. */
const problems = (errors: Error[]) => errors.filter((error) => error instanceof StreamEntryError).map((error) => error.problem.type);

describe('Redis bus: malformed entries', () => {
  it.each([
    ['without an ordinal (another program on the key)', () => ['XADD', KEYS.events, '*', 'note', 'not from a bus']],
    ['with a seq that is no number', { origin: 'someone', seq: 'x1', event: { type: 'tools_list_changed' } }],
    ['with an event that is no JSON', { origin: 'someone', seq: 1, event: '{"type":' }],
    ['with an event of an unknown type', { origin: 'someone', seq: 1, event: '{"type":"all_gone"}' }],
    ['with an origin longer than a node id', { origin: 'o'.repeat(65), seq: 1, event: { type: 'tools_list_changed' } }],
  ] as const)('an entry %s is skipped and reported; the next entry is delivered, with no resync', async (_label, entry) => {
    const server = await redis();
    const logs: string[] = [];
    const errors: Error[] = [];
    const [a, b] = await Promise.all([node(server.url), node(server.url, { logs, errors })]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    if (typeof entry === 'function') await server.command(entry());
    else await forge(server, entry);
    a.publish(updated('test://after'));
    await b.receivedCount(1);
    await b.bus.settled();
    expect(uris(b.received)).toEqual(['test://after']);
    expect(b.bus.health).toBe('connected');
    expect(logs.some((line) => /skipped stream entry \d+-\d+: /.test(line))).toBe(true);
    expect(problems(errors)).toEqual(['malformed']);
  });

  it('an entry with an ordinal out of line makes the node resync, said to its clients, and costs no event after it', async () => {
    const server = await redis();
    const [a, b] = await Promise.all([node(server.url), node(server.url)]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    const resynced = nextHealth(b.bus, 'resynced');
    await server.command(['XADD', KEYS.events, '*', 'n', '999999999999999', 'o', 'someone', 's', '1', 'e', JSON.stringify(updated('test://odd'))]);
    a.publish(updated('test://after'));
    await resynced;
    await b.receivedWhere(({ event }) => sameEvent(event, updated('test://after')));
    expect(uris(b.received)).toContain('everything_changed');
  });

  it('an event over the 1 MiB limit is skipped and reported (its publisher would have been refused: EventTooLargeError)', async () => {
    const server = await redis();
    const errors: Error[] = [];
    const [a, b] = await Promise.all([node(server.url), node(server.url, { errors })]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    const huge = updated(`test://${'x'.repeat(2 * 1024 * 1024)}`);
    expect(() => a.bus.publish(huge)).toThrow(EventTooLargeError);
    await forge(server, { origin: 'someone', seq: 1, event: huge });
    a.publish(updated('test://after'));
    await b.receivedCount(1);
    await b.bus.settled();
    expect(uris(b.received)).toEqual(['test://after']);
    expect(errors.map((error) => error instanceof StreamEntryError && error.problem)).toEqual([{ type: 'malformed', detail: 'too_large' }]);
  });
});

describe("Redis bus: entries in another node's name", () => {
  it('one with a seq far ahead of that node\'s does not mute it: its later events reach every node, and the entry is reported', async () => {
    const server = await redis();
    const errors: Error[] = [];
    const [a, b] = await Promise.all([node(server.url), node(server.url, { errors })]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    a.publish(updated('test://1'));
    await b.receivedCount(1);
    await forge(server, { origin: a.bus.nodeId, seq: 999_999_999_999_999, event: updated('test://forged') });
    a.publish(updated('test://2'));
    a.publish(updated('test://3'));
    await a.receivedCount(3);
    await b.bus.settled();
    // B cannot tell the forged entry from one of A's (it applies it); it can tell that A's order broke after it.
    expect(uris(b.received)).toEqual(['test://1', 'test://forged', 'test://2', 'test://3']);
    expect(problems(errors)).toEqual(['out_of_sequence']);
    expect(uris(a.received)).toEqual(['test://1', 'test://2', 'test://3']);
    expect(b.bus.health).toBe('connected');
  });

  it("one with the seq of that node's next event does not hide that event", async () => {
    const server = await redis();
    const errors: Error[] = [];
    const [a, b] = await Promise.all([node(server.url), node(server.url, { errors })]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    // A has published nothing: its next event goes out as seq 1.
    await forge(server, { origin: a.bus.nodeId, seq: 1, event: updated('test://forged') });
    a.publish(updated('test://real'));
    await a.receivedCount(1);
    await b.bus.settled();
    expect(uris(b.received)).toEqual(['test://forged', 'test://real']);
    expect(problems(errors)).toEqual(['out_of_sequence']);
    expect(uris(a.received)).toEqual(['test://real']);
  });
});

/**
 * The application's client, whose first publish (the publish script's EVAL) waits until `release()`: the node
 * sent it, and it is not in the stream yet. `release()` resolves once Redis carried it out.
 */
function firstPublishHeld(client: RedisClientLike) {
  let open!: () => void;
  const released = new Promise<void>((resolve) => (open = resolve));
  let landed: Promise<unknown> = Promise.resolve();
  let held = false;
  const writer = withOverrides(client, {
    sendCommand: (...command: Parameters<RedisClientLike['sendCommand']>) => {
      const [args] = command;
      if (held || !isPublish(args)) return client.sendCommand(...command);
      held = true;
      landed = released.then(() => client.sendCommand(...command));
      return landed;
    },
  });
  const release = async () => {
    open();
    await landed;
  };
  return { writer, release };
}

describe("Redis bus: entries in the reader's own name", () => {
  it('one with a seq it never sent is skipped and reported; its own events still apply', async () => {
    const server = await redis();
    const errors: Error[] = [];
    const [a, b] = await Promise.all([node(server.url), node(server.url, { errors })]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    await forge(server, { origin: b.bus.nodeId, seq: 999_999_999_999_999, event: updated('test://forged') });
    b.publish(updated('test://own-after'));
    a.publish(updated('test://other-after'));
    await b.receivedCount(2);
    await b.bus.settled();
    expect(uris(b.received).sort()).toEqual(['test://other-after', 'test://own-after']);
    expect(problems(errors)).toEqual(['not_sent_by_this_node']);
  });

  it('one with the seq of an own event in flight is skipped there; the event reaches every node', async () => {
    const server = await redis();
    const held = firstPublishHeld((await client(server.url)) as unknown as RedisClientLike);
    const errors: Error[] = [];
    const a = await node(server.url);
    const b = await node(held.writer, { errors });
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    // B sent its first event (seq 1); before it lands, an entry in B's name with seq 1 does.
    b.publish(updated('test://own'));
    await forge(server, { origin: b.bus.nodeId, seq: 1, event: updated('test://forged') });
    await held.release();
    await Promise.all([a, b].map(({ bus }) => bus.settled()));
    expect(uris(b.received)).toEqual(['test://own']);
    expect(problems(errors)).toEqual(['not_sent_by_this_node']);
    expect(uris(a.received)).toEqual(['test://forged', 'test://own']);
  });
});

describe('Redis bus: entry ids', () => {
  it('a node that read an entry with an id far in the future is not muted when the stream is then deleted: it resyncs', async () => {
    const server = await redis();
    const [a, b] = await Promise.all([node(server.url), node(server.url)]);
    await Promise.all([a, b].map(({ bus }) => waitForHealth(bus, 'connected')));
    await forge(server, { origin: 'someone', seq: 1, event: updated('test://future'), id: '99999999999999-0' });
    await Promise.all([a, b].map(({ receivedCount }) => receivedCount(1)));
    // Someone cleans up (the entry's id keeps every later one in year 5138): new entries start at today's ids.
    await server.command(['DEL', KEYS.events]);
    const resynced = Promise.all([a, b].map(({ bus }) => nextHealth(bus, 'resynced')));
    a.publish(updated('test://after-cleanup'));
    await resynced;
    a.publish(updated('test://later'));
    await Promise.all([a, b].map(({ receivedWhere }) => receivedWhere(({ event }) => sameEvent(event, updated('test://later')))));
    for (const { received } of [a, b]) expect(uncovered(received)).toEqual([]);
  });
});

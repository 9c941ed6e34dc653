/**
 * Own events Redis refuses with an error reply, resent under new seqs, against a real redis-server: a refused
 * publish wrote nothing, so the node keeps no mark of its seq once it goes out under another (marks count events,
 * not refusals), and an entry later claiming that seq is not one the node sent.
 */
import { describe, expect, it, vi } from 'vitest';
import type { RedisClientLike } from '../../src/redis/index.ts';
import { StreamEntryError } from '../../src/redis/entry-errors.ts';
import { isErrorReply } from '../../src/redis/connection.ts';
import { encodeChangeEvent, publishCommand, streamKeys } from '../../src/redis/stream-protocol.ts';
import { busTestbed, isPublish, nextHealth, sameEvent, updated, waitForHealth, withOverrides } from './bus-testbed.ts';

const { redis, client, node, uncovered, duplicates } = busTestbed();

/** What a replica answers a write with: a real error reply from Redis, as after a failover. */
const READONLY = ['EVAL', "return redis.error_reply('READONLY You can''t write against a read only replica.')", '0'];

/** The application's client, whose publishes Redis answers with READONLY until `accept()`. */
function refusingPublishes(client: RedisClientLike) {
  let refusing = true;
  const writer = withOverrides(client, {
    sendCommand: (...[args, options]: Parameters<RedisClientLike['sendCommand']>) =>
      refusing && isPublish(args) ? client.sendCommand(READONLY) : client.sendCommand(args, options),
  });
  return { writer, accept: () => (refusing = false) };
}

describe('Redis bus: publishes Redis refuses with an error reply', () => {
  it('an entry claiming the seq of a refused publish, read after its resend, is reported as not sent by the node', async () => {
    const server = await redis();
    const seam = refusingPublishes(await client(server.url));
    const errors: Error[] = [];
    const a = await node(seam.writer, { errors });
    await waitForHealth(a.bus, 'connected');
    const first = updated('test://first');
    // Both sent while live (seqs 1 and 2) and refused; once live again resent as 3 and 4, refused again.
    const down = nextHealth(a.bus, 'disconnected');
    a.publish(first);
    a.publish(updated('test://second'));
    await down;
    await nextHealth(a.bus, 'disconnected');
    // Someone writes an entry in A's name as seq 1 with A's first event, then one of its own that shows when A read it.
    const someone = await client(server.url);
    const keys = streamKeys('mcp-actors');
    await someone.sendCommand(publishCommand(keys, 10_000, a.bus.nodeId, 1, encodeChangeEvent(first)));
    await someone.sendCommand(publishCommand(keys, 10_000, 'someone', 1, encodeChangeEvent(updated('test://marker'))));
    seam.accept();
    await a.receivedWhere(({ event }) => sameEvent(event, updated('test://marker')));
    expect(errors.map((error) => error instanceof StreamEntryError && error.problem)).toEqual([{ type: 'not_sent_by_this_node', seq: 1 }]);
    // A's resends land (as 5 and 6) and are read back before its next publish: none is applied again.
    await waitForHealth(a.bus, 'connected');
    a.publish(updated('test://last'));
    await a.receivedWhere(({ event }) => sameEvent(event, updated('test://last')));
    // Its writer's answers to them came too: settled() asks the writer, which answers in order.
    await a.bus.settled();
    expect(uncovered(a.received)).toEqual([]);
    expect(duplicates(a.received)).toEqual([]);
  });

  // The bus takes an error reply to a publish as proof that nothing was written (the ledger drops that seq's mark), so
  // the script must refuse before its XADD whatever its INCR after it would refuse.
  it.each([
    ['a leading zero', '007'],
    ['the largest counter INCR cannot raise', '9223372036854775807'],
    ['past 2^63 - 1', '12345678901234567890'],
    ['more digits than a Lua number holds exactly', '1234567890123456'],
    ['no number', 'x'],
  ])('a publish over an ordinal key holding %s is an error reply, and writes no entry', async (_, ordinal) => {
    const server = await redis();
    const writer = await client(server.url);
    const keys = streamKeys('mcp-actors');
    await writer.sendCommand(['SET', keys.ordinal, ordinal]);
    const publishing = writer.sendCommand(publishCommand(keys, 10_000, 'someone', 1, encodeChangeEvent(updated('test://a'))));
    const refusal = await publishing.then(() => undefined, (error: unknown) => error);
    expect(isErrorReply(refusal)).toBe(true);
    expect(await writer.sendCommand(['XLEN', keys.events])).toBe(0);
    expect(await writer.sendCommand(['GET', keys.ordinal])).toBe(ordinal);
  });

  it.each([['0'], ['999999999999999']])('a publish over an ordinal key holding %s writes the next ordinal', async (ordinal) => {
    const server = await redis();
    const writer = await client(server.url);
    const keys = streamKeys('mcp-actors');
    await writer.sendCommand(['SET', keys.ordinal, ordinal]);
    await writer.sendCommand(publishCommand(keys, 10_000, 'someone', 1, encodeChangeEvent(updated('test://a'))));
    const next = String(BigInt(ordinal) + 1n);
    expect(await writer.sendCommand(['GET', keys.ordinal])).toBe(next);
    const [[, fields]] = (await writer.sendCommand(['XRANGE', keys.events, '-', '+'])) as [[string, string[]]];
    expect(fields.slice(0, 2)).toEqual(['n', next]);
  });

  it('a refusal that comes after the bus closed is dropped: nothing is sent to its stopped actor', async () => {
    const server = await redis();
    const real = await client(server.url);
    // The publish's reply, held until the test gives one: resolves with the function that rejects it.
    let handOver: (reject: (error: unknown) => void) => void = () => {};
    const handedOver = new Promise<(error: unknown) => void>((resolve) => (handOver = resolve));
    const writer = withOverrides(real, {
      sendCommand: (...[args, options]: Parameters<RedisClientLike['sendCommand']>) =>
        isPublish(args) ? new Promise((_, reject) => handOver(reject)) : real.sendCommand(args, options),
    });
    const a = await node(writer);
    await waitForHealth(a.bus, 'connected');
    a.publish(updated('test://late'));
    const refuse = await handedOver;
    await a.bus.close();
    const warn = vi.spyOn(console, 'warn');
    try {
      refuse(await real.sendCommand(READONLY).catch((error: unknown) => error));
      // The bus's catch runs in the microtasks that follow; every one of them runs before the next macrotask.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(warn.mock.calls.flat().join('\n')).not.toContain('stopped actor');
    } finally {
      warn.mockRestore();
    }
  });
});

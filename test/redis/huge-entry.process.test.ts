/**
 * An entry too large for a JavaScript string, against a real redis-server.
 * Redis takes a field value of up to 512 MB (proto-max-bulk-len); a JavaScript
 * string ends at 536,870,888 UTF-16 units. A reader that made a string of such
 * a reply failed inside node-redis's reply parser, which dropped the reply: the
 * node's read never answered, its health stayed `connected`, nothing was
 * logged, and it delivered no entry again. Its own file, as it moves 512 MB
 * through Redis and the node (about 15 s and 1.6 GB on a quiet 2-core
 * machine, two minutes under `npm run test:loaded`: hence the long budgets).
 */
import { describe, expect, it } from 'vitest';
import { StreamEntryError } from '../../src/redis/index.ts';
import { busTestbed, updated, waitForHealth } from './bus-testbed.ts';

const { redis, client, node } = busTestbed();

describe('Redis bus: an entry larger than a JavaScript string can be', () => {
  it('is skipped and reported, and the node reads on', { timeout: 300_000 }, async () => {
    const server = await redis();
    const errors: Error[] = [];
    const b = await node(server.url, { errors, settleTimeoutMs: 240_000 });
    await waitForHealth(b.bus, 'connected');
    // The test's own client, to send the value as bytes; with the next ordinal, so it costs no gap.
    const writer = await client(server.url);
    const ordinal = String(await writer.sendCommand(['INCR', '{mcp-actors}:ordinal']));
    await writer.sendCommand(['XADD', '{mcp-actors}:events', '*', 'n', ordinal, 'o', 'someone', 's', '1', 'e', Buffer.alloc(536_870_900, 'a')]);
    b.publish(updated('test://after'));
    await b.bus.settled();
    expect(b.received.map(({ event }) => event)).toEqual([updated('test://after')]);
    expect(errors.map((error) => error instanceof StreamEntryError && error.problem)).toEqual([{ type: 'malformed', detail: 'too_large' }]);
  });
});

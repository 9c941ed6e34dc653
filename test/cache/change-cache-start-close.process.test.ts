/**
 * The change cache's start and end against the official
 * @modelcontextprotocol/server 2.x over stdio, in both eras: a read issued
 * right after createChangeCache waits for the initial fetch, each entry is
 * fetched exactly once at start (counted on the wire), closing the client
 * ends the cache as `closed` with the client's reason and no refetch, and
 * `await using` closes the cache.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createChangeCache, type ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import { CacheClosedError } from '../../src/cache/errors.ts';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';
import { WireRecord } from '../client/recording-transport.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { caches, clients } = closedAfterEach({ caches: [] as ChangeCacheHandle[], clients: [] as McpClient[] });

const R1 = 'test://resource/1';
const interest = { tools: true, prompts: true, uris: [R1] };

async function connect(flags: string[]) {
  const wire = new WireRecord(officialStdio(flags).factory);
  const client = createClient({ transport: wire.factory });
  await client.connect();
  return { client, wire };
}

/** A client of the test's own, closed in afterEach (for the tests that close it themselves). */
async function connected(flags: string[]) {
  const connection = await connect(flags);
  clients.push(connection.client);
  return connection;
}

/**
 * One connected client per era for the tests that leave it connected: a stdio server is one per client, so a client of
 * its own costs a test a child start (~0.4 s of CPU). Each test opens its own cache on it (closed in afterEach, which
 * ends its stream or listener) and reads the wire from its own start: the record is emptied on each call.
 */
function sharedConnection(flags: string[]) {
  let shared: ReturnType<typeof connect> | undefined;
  afterAll(async () => {
    if (shared) await (await shared).client.close();
  });
  return async () => {
    shared ??= connect(flags);
    const connection = await shared;
    connection.wire.sent.splice(0);
    return connection;
  };
}

function open(client: McpClient) {
  const cache = createChangeCache(client, { interest });
  caches.push(cache);
  return { cache, recorder: recordCache(cache) };
}

for (const { era, flags } of [
  { era: 'modern', flags: [] },
  { era: 'legacy', flags: ['--modern-off'] },
]) {
  describe(`change cache start and close against the official server, ${era} era`, () => {
    const shared = sharedConnection(flags);

    it('answers a read issued right after creation with the initial fetch, current and stream-backed', async () => {
      const { client, wire } = await shared();
      const { cache } = open(client);
      const [tools, stale] = await Promise.all([cache.tools(), cache.prompts({ mode: 'stale' })]);
      expect(cache.state).toBe('listening');
      expect(tools).toMatchObject({ freshness: 'current', backedBy: 'stream' });
      expect(tools.value.map((tool) => tool.name)).toContain('emit');
      // `stale` has nothing to answer with before the first value: it waits as well.
      expect(stale).toMatchObject({ freshness: 'current', backedBy: 'stream' });
      expect(wire.calls('tools/list')).toHaveLength(1);
      expect(wire.calls('prompts/list')).toHaveLength(1);
    });

    it('fetches each entry exactly once at start', async () => {
      const { client, wire } = await shared();
      const { cache, recorder } = open(client);
      await recorder.state('listening');
      await Promise.all(['tools', 'prompts', `resource:${R1}`].map((key) => recorder.replaced(key as 'tools', 0)));
      await cache.tools();
      expect(wire.calls('tools/list')).toHaveLength(1);
      expect(wire.calls('prompts/list')).toHaveLength(1);
      expect(wire.calls('resources/read')).toHaveLength(1);
      expect(recorder.steps()).toHaveLength(6);
    });

    for (const how of ['close', 'shutdown'] as const) {
      it(`ends cleanly when the client closes (${how}): closed with the client's reason, no refetch, reads rejected`, async () => {
        const { client, wire } = await connected(flags);
        const { cache, recorder } = open(client);
        await cache.tools();
        const from = recorder.mark();
        const pending = cache.prompts({ mode: 'wait' }).then((read) => read, (error: unknown) => error);
        await client[how]();
        const closed = await recorder.state('closed', from);
        expect(closed.detail).toMatchObject({ type: how === 'close' ? 'disconnected' : 'shutdown' });
        expect(cache.state).toBe('closed');
        expect(recorder.states(from)).toEqual(['closed']);
        expect(recorder.steps(from).filter((step) => !step.endsWith('prompts'))).toEqual([]);
        expect(recorder.events.some((event) => event.type === 'refetch_failed')).toBe(false);
        await expect(cache.tools()).rejects.toBeInstanceOf(CacheClosedError);
        // The prompts read either got the initial fetch before the close or was rejected by it; never a fetch failure.
        const settled = await pending;
        if (settled instanceof Error) expect(settled).toBeInstanceOf(CacheClosedError);
        expect(wire.calls('tools/list')).toHaveLength(1);
      });
    }

    it('closes with await using', async () => {
      const { client } = await shared();
      let handle: ChangeCacheHandle | undefined;
      {
        await using cache = createChangeCache(client, { interest });
        handle = cache;
        await cache.tools();
      }
      await expect(handle.tools()).rejects.toBeInstanceOf(CacheClosedError);
    });
  });
}

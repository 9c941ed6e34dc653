/**
 * The change cache against the official @modelcontextprotocol/server 2.x over
 * stdio, in both eras: a notification's invalidate → refetch → replace, a
 * graceful end, an unexpected close with a restart on other capabilities,
 * recovery running out, and a server that offers nothing the cache wants.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { NotInInterestError } from '../../src/cache/errors.ts';
import type { ChangeCacheHandle, ChangeCacheOptions } from '../../src/cache/change-cache.ts';
import { createTestChangeCache } from '../../src/testing/index.ts';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { officialStdio, type PeerOptions } from '../fixtures/stdio-peers.ts';
import { WireRecord } from '../client/recording-transport.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { caches, clients } = closedAfterEach({ caches: [] as ChangeCacheHandle[], clients: [] as McpClient[] });

const fastReconnect = { maxAttempts: 40, baseDelayMs: 10, maxDelayMs: 200 };
const R1 = 'test://resource/1';
const R2 = 'test://resource/2';
const everything = { tools: true, prompts: true, uris: [R1, R2] };

const ERAS: { era: 'modern' | 'legacy'; flags: string[] }[] = [
  { era: 'modern', flags: [] },
  { era: 'legacy', flags: ['--modern-off'] },
];

/** A connected client of the official stdio server, recording what it sends and the legacy listeners it adds. */
async function connect(flags: string[], peerOptions: PeerOptions = {}, inspect?: (event: InspectionEvent) => void) {
  const peer = officialStdio(flags, peerOptions);
  const wire = new WireRecord(peer.factory);
  const client = createClient({ transport: wire.factory, reconnect: fastReconnect, ...(inspect ? { inspect } : {}) });
  const listeners = vi.spyOn(client, 'subscribeNotifications');
  await client.connect();
  return { peer, wire, client, listeners };
}

/** A change cache opened now on `connection`, with the streams it opens counted from now. */
function openCache(
  { peer, wire, client, listeners }: Awaited<ReturnType<typeof connect>>,
  cacheOptions: Omit<ChangeCacheOptions, 'interest'> & { interest?: ChangeCacheOptions['interest'] } = {},
) {
  const since = wire.sent.length;
  const listenersBefore = listeners.mock.calls.length;
  const cache = createTestChangeCache(client, { interest: everything, recovery: { baseDelayMs: 5, maxDelayMs: 20 }, random: () => 1, ...cacheOptions });
  caches.push(cache);
  const recorder = recordCache(cache);
  const callsSince = (method: string) => wire.calls(method).filter((call) => call.index >= since);
  // Streams opened: modern, one subscription id each (a stream that re-listens keeps its id); legacy, one listener each.
  const opened = () => new Set(callsSince('subscriptions/listen').map((call) => call.id)).size + listeners.mock.calls.length - listenersBefore;
  /** How many requests of `method` the client sent on connection attempt `attempt` (0: the first server, 1: the restarted one). */
  const sent = (method: string, attempt: number) => wire.calls(method).filter((call) => call.attempt === attempt).length;
  return { peer, client, cache, recorder, opened, sent };
}

/** A client and server of the test's own, closed in afterEach, with a cache opened on it. */
async function start(
  flags: string[],
  cacheOptions: Parameters<typeof openCache>[1] = {},
  peerOptions: PeerOptions = {},
  inspect?: (event: InspectionEvent) => void,
) {
  const connection = await connect(flags, peerOptions, inspect);
  clients.push(connection.client);
  return openCache(connection, cacheOptions);
}

// The two modern tests that neither kill nor close their server share one client (a stdio server is one per client:
// ~0.4 s of CPU a start), each with a cache of its own, closed in afterEach. It hands every inspection event to `inspected`.
const inspected: InspectionEvent[] = [];
let sharedModern: ReturnType<typeof connect> | undefined;
afterAll(async () => {
  if (sharedModern) await (await sharedModern).client.close();
});

/** A cache opened on the shared modern client (connected on first use). */
async function startShared() {
  sharedModern ??= connect([], {}, (event) => inspected.push(event));
  return openCache(await sharedModern);
}

const ALL_KEYS = ['tools', 'prompts', `resource:${R1}`, `resource:${R2}`] as const;
const allReplaced = (recorder: ReturnType<typeof recordCache>, from: number) => Promise.all(ALL_KEYS.map((key) => recorder.replaced(key, from)));

const emit = (client: McpClient, kind: string, uri?: string) => client.callTool('emit', { kind, ...(uri ? { uri } : {}) });

for (const { era, flags } of ERAS) {
  describe(`change cache against the official server, ${era} era`, () => {
    it('on one notification invalidates, refetches and replaces only the affected entry, in that order', async () => {
      const { client, cache, recorder, opened } = era === 'modern' ? await startShared() : await start(flags);
      await recorder.state('listening');
      expect(client.era).toBe(era);
      expect(opened()).toBe(1);
      expect(cache.filter).toEqual({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [R1, R2] });
      // The stream's opening fetches everything it covers.
      await allReplaced(recorder, 0);
      const prompts = await cache.prompts();

      let from = recorder.mark();
      await emit(client, 'tools');
      await recorder.replaced('tools', from);
      expect(recorder.steps(from)).toEqual(['invalidated tools', 'refetching tools', 'replaced tools']);
      expect(recorder.events.slice(from).find((event) => event.type === 'notification')).toMatchObject({
        method: 'notifications/tools/list_changed',
      });
      const tools = await cache.tools();
      expect(tools.freshness).toBe('current');
      expect(tools.value.map((tool) => tool.name)).toContain('emit');
      expect(await cache.prompts()).toEqual(prompts);

      from = recorder.mark();
      await emit(client, 'updated', R2);
      await recorder.replaced(`resource:${R2}`, from);
      expect(recorder.steps(from)).toEqual([`invalidated resource:${R2}`, `refetching resource:${R2}`, `replaced resource:${R2}`]);
      expect((await cache.contents(R2)).value).toMatchObject({ contents: [{ uri: R2, text: 'Resource 2' }] });
      expect(cache.state).toBe('listening');
      expect(opened()).toBe(1);
    });

    it('opens nothing for a server that advertises none of the interest set, and invents no types', async () => {
      const { cache, recorder, opened } = await start([...flags, '--caps', 'tools'], { interest: { prompts: true } });
      const noOverlap = await recorder.state('noOverlap');
      expect(noOverlap.detail).toMatchObject({ capabilities: { tools: { listChanged: true } } });
      expect(cache.filter).toBeNull();
      expect(opened()).toBe(0);
      expect(cache.interest).toEqual({ prompts: true });
      // Still readable, but nothing backs it: never presented as current.
      const prompts = await cache.prompts();
      expect(prompts.value.map((prompt) => prompt.name)).toEqual(['greeting']);
      expect(prompts.freshness).toBe('stale');
      expect(recorder.states()).toEqual(['negotiating', 'noOverlap']);
      await expect(cache.tools()).rejects.toBeInstanceOf(NotInInterestError);
    });

    it('keeps the interest set through no overlap and listens once a restarted server advertises it', async () => {
      const { peer, cache, recorder, opened } = await start([...flags, '--caps', 'tools'], { interest: { prompts: true } }, { restartArgs: flags });
      await recorder.state('noOverlap');
      const from = recorder.mark();
      peer.kill();
      await recorder.state('listening', from);
      expect(cache.filter).toEqual({ promptsListChanged: true });
      expect(opened()).toBe(1);
      await recorder.replaced('prompts', from);
      expect((await cache.prompts()).freshness).toBe('current');
    });

    it('after an unexpected close renegotiates, intersects afresh and refetches everything the interrupted stream covered', async () => {
      const { peer, cache, recorder, opened, sent } = await start(flags, {}, { restartArgs: [...flags, '--caps', 'tools'] });
      await recorder.state('listening');
      await allReplaced(recorder, 0);
      expect(cache.filter).toEqual({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [R1, R2] });
      const probes = sent('server/discover', 0);

      const from = recorder.mark();
      peer.kill();
      const recovering = await recorder.state('recovering', from);
      expect(recovering.detail).toMatchObject({ cause: expect.anything() });
      await recorder.state('listening', from);
      // The restarted server advertises only tools: the filter is computed again, not carried over.
      expect(cache.filter).toEqual({ toolsListChanged: true });
      expect(opened()).toBe(2);
      await allReplaced(recorder, from);
      const steps = recorder.steps(from);
      for (const key of ALL_KEYS) {
        expect(steps.filter((step) => step.endsWith(` ${key}`))).toEqual([`invalidated ${key}`, `refetching ${key}`, `replaced ${key}`]);
      }
      // One recovery, the connection's: the cache waits it out and listens once for the new intersection.
      expect(recorder.states(from)).toEqual(['recovering', 'awaitingAck', 'listening']);
      // One retry sequence on the wire: the reconnect's negotiation (the same discover probe as the first
      // connect) and one listen for the new intersection; the old stream never re-listens, the cache never rediscovers.
      expect(sent('server/discover', 1)).toBe(probes);
      expect(sent('subscriptions/listen', 1)).toBe(era === 'modern' ? 1 : 0);
      expect(sent('initialize', 1)).toBe(sent('initialize', 0));
      // Only what the new stream covers is notification-backed.
      expect(await cache.tools()).toMatchObject({ freshness: 'current', backedBy: 'stream' });
      expect((await cache.prompts()).freshness).toBe('stale');
      expect((await cache.contents(R1)).freshness).toBe('stale');
    });

    it('degrades once recovery runs out, and then presents nothing as notification-backed', async () => {
      const { peer, cache, recorder } = await start(flags, { recovery: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 }, negotiationTimeoutMs: 50 }, { failAfter: 1 });
      await recorder.state('listening');
      await allReplaced(recorder, 0);
      expect((await cache.tools()).freshness).toBe('current');

      const from = recorder.mark();
      peer.kill();
      const degraded = await recorder.state('degraded', from);
      // The bound counts the connection's reconnect attempts: the cache runs none of its own.
      expect(recorder.states(from)).toEqual(['recovering', 'degraded']);
      expect(degraded.detail).toMatchObject({ type: 'recovery_exhausted', attempts: 2 });
      expect(cache.state).toBe('degraded');
      expect(cache.degradedBy).toMatchObject({ type: 'recovery_exhausted', attempts: 2 });
      const tools = await cache.tools({ mode: 'stale' });
      expect(tools).toMatchObject({ freshness: 'stale', backedBy: 'none' });
      expect(tools.value.map((tool) => tool.name)).toContain('echo');
    });
  });
}

describe('change cache against the official server, graceful end (modern era; a legacy connection has no graceful end)', () => {
  it('completes when the server answers the listen, with no recovery attempt, and listens again once the client reconnects', async () => {
    const { peer, client, cache, recorder, opened } = await start([]);
    await recorder.state('listening');
    await allReplaced(recorder, 0);
    const reconnected = new Promise<void>((resolve) => {
      const ready = client.on('connection.ready', () => (ready.unsubscribe(), resolve()));
    });
    peer.kill('SIGTERM');
    const completed = await recorder.state('completed');
    const from = recorder.mark();
    expect(opened()).toBe(1);
    // The stdio client respawns the server; its negotiation, not a recovery attempt, brings the cache back.
    await reconnected;
    const listening = await recorder.state('listening', from);
    expect(listening).toMatchObject({ previous: 'awaitingAck', detail: { resumed: true } });
    expect(recorder.states()).toEqual(['negotiating', 'awaitingAck', 'listening', 'completed', 'awaitingAck', 'listening']);
    expect(recorder.events.find((event, index) => index >= from && event.type === 'state' && event.state === 'awaitingAck')).toMatchObject({ previous: 'completed' });
    expect(recorder.events.indexOf(completed)).toBeLessThan(from);
    expect(opened()).toBe(2);
    // The new stream's opening refetches everything it covers from the new server.
    await allReplaced(recorder, from);
    expect((await cache.tools()).freshness).toBe('current');
  });
});

describe('change cache against the official server, modern era: a restart on the same capabilities', () => {
  it("resumes its stream under the same id, so the restart costs one discover and one listen on the wire, then refetches what the gap covered", async () => {
    const { peer, cache, recorder, opened, sent } = await start([]);
    await recorder.state('listening');
    await allReplaced(recorder, 0);
    const probes = sent('server/discover', 0);
    expect(sent('subscriptions/listen', 0)).toBe(1);

    const from = recorder.mark();
    peer.kill();
    const listening = await recorder.state('listening', from);
    expect(listening.detail).toMatchObject({ resumed: true });
    expect(recorder.states(from)).toEqual(['recovering', 'listening']);
    expect(sent('server/discover', 1)).toBe(probes);
    expect(sent('subscriptions/listen', 1)).toBe(1);
    // The same stream listened again: one subscription id across both servers.
    expect(opened()).toBe(1);
    await allReplaced(recorder, from);
    const steps = recorder.steps(from);
    for (const key of ALL_KEYS) {
      expect(steps.filter((step) => step.endsWith(` ${key}`))).toEqual([`invalidated ${key}`, `refetching ${key}`, `replaced ${key}`]);
    }
    expect((await cache.tools()).freshness).toBe('current');
  });
});

describe('change cache against the official server, legacy era: no graceful end exists', () => {
  it('treats a legacy server stopped by SIGTERM as an unexpected close and recovers on the respawned server', async () => {
    const { peer, recorder, opened, sent } = await start(['--modern-off']);
    await recorder.state('listening');
    await allReplaced(recorder, 0);
    const from = recorder.mark();
    peer.kill('SIGTERM');
    await recorder.state('listening', from);
    expect(recorder.states(from)).toEqual(['recovering', 'listening']);
    // The listener survives the restart and is resubscribed (its reconnect report resumes the cache): no second listener.
    expect(opened()).toBe(1);
    expect(sent('initialize', 1)).toBe(1);
    expect(sent('resources/subscribe', 1)).toBe(2);
    await allReplaced(recorder, from);
  });
});

describe('change cache inspection', () => {
  it("hands the client's inspect to the cache actor", async () => {
    const { cache, recorder } = await startShared();
    await recorder.state('listening');
    expect(inspected.some((event) => event.type === '@xstate.snapshot' && event.actorRef === cache.actor)).toBe(true);
  });
});

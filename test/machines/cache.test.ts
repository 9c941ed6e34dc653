import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, waitFor, type EventObject, type SnapshotFrom } from 'xstate';
import {
  cacheMachine,
  type CacheEmitted,
  type CacheMachineEvent,
  type CacheNegotiation,
  type CacheRecovery,
  type ListenInput,
  type NegotiationInput,
} from '../../machines/cache.machine.ts';
import { backoffDelay } from '../../machines/backoff.ts';
import { HttpStatusError } from '../../src/protocol/errors.ts';
import { computeFilter, type Interest } from '../../src/cache/interest.ts';
import type { ServerCapabilities } from '../../src/protocol/versions.ts';

const interest: Interest = { tools: true, prompts: true, uris: ['file:///notes.txt'] };
const everything: ServerCapabilities = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true } };
const toolsOnly: ServerCapabilities = { tools: { listChanged: true } };
const modern = (capabilities: ServerCapabilities): CacheNegotiation => ({ era: 'modern', capabilities });
const legacy = (capabilities: ServerCapabilities): CacheNegotiation => ({ era: 'legacy', capabilities });
/** The connection negotiated again (a reconnect), as the cache hears it. */
const ready = (negotiation: CacheNegotiation, generation = 2) => ({ type: 'connection.ready' as const, generation, ...negotiation });

interface OpenStream {
  input: ListenInput;
  send(event: CacheMachineEvent): void;
  /** What the cache told this stream in place of the connection. */
  /** Whatever the cache sent its stream: nothing, since the connection actor owns the stream's lifecycle. */
  commands: EventObject[];
  stopped: boolean;
}

/** Drives the cache with scripted negotiations, fake streams and a simulated clock. */
function startCache(script: Array<CacheNegotiation | Error>, recovery: CacheRecovery = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 3_000 }) {
  const clock = new SimulatedClock();
  const negotiations: NegotiationInput[] = [];
  const streams: OpenStream[] = [];
  const machine = cacheMachine.provide({
    actors: {
      negotiation: fromPromise<CacheNegotiation, NegotiationInput>(async ({ input }) => {
        negotiations.push(input);
        const next = script.shift();
        if (next === undefined) throw new Error('the test scripted no further negotiation');
        if (next instanceof Error) throw next;
        return next;
      }),
      listen: fromCallback<EventObject, ListenInput>(({ input, sendBack, receive }) => {
        const stream: OpenStream = { input, send: sendBack, commands: [], stopped: false };
        streams.push(stream);
        receive((command) => stream.commands.push(command));
        return () => {
          stream.stopped = true;
        };
      }),
    },
  });
  const actor = createActor(machine, {
    input: { intersect: (capabilities) => computeFilter(interest, capabilities as ServerCapabilities), recovery, random: () => 1 },
    clock,
  });
  // Work (notifications, invalidations) apart from coverage announcements and the start's end, which the tests check on their own.
  const emitted: CacheEmitted[] = [];
  const coverage: CacheEmitted[] = [];
  let started = 0;
  actor.on('*', (event) => {
    if (event.type === 'cache.started') started += 1;
    else (event.type === 'cache.covered' || event.type === 'cache.uncovered' ? coverage : emitted).push(event);
  });
  const visited: string[] = [];
  actor.subscribe((snapshot) => visited.push(JSON.stringify(snapshot.value)));
  actor.start();
  const until = (predicate: (snapshot: SnapshotFrom<typeof cacheMachine>) => boolean) => waitFor(actor, predicate);
  const state = () => actor.getSnapshot().value;
  const lastStream = () => {
    const stream = streams.at(-1);
    if (!stream) throw new Error('no stream was opened');
    return stream;
  };
  return { actor, clock, negotiations, streams, emitted, coverage, visited, until, state, lastStream, started: () => started };
}

describe('cache machine', () => {
  it('listens for the intersection in the negotiated era, and treats notifications as work, never as an end', async () => {
    const cache = startCache([modern(toolsOnly)]);
    expect(cache.state()).toBe('idle');
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    expect(cache.streams.map((s) => s.input)).toEqual([{ era: 'modern', filter: { toolsListChanged: true } }]);

    cache.lastStream().send({ type: 'stream.opened' });
    cache.lastStream().send({ type: 'stream.notification', method: 'notifications/tools/list_changed', params: {} });
    cache.lastStream().send({ type: 'stream.notification', method: 'notifications/tools/list_changed', params: undefined });
    expect(cache.state()).toEqual({ listening: 'open' });
    expect(cache.emitted).toEqual([
      { type: 'cache.notification', method: 'notifications/tools/list_changed', params: {} },
      { type: 'cache.notification', method: 'notifications/tools/list_changed', params: undefined },
    ]);
    expect(cache.lastStream().stopped).toBe(false);
  });

  it('opens the same way on a legacy connection; the era only reaches the stream actor', async () => {
    const cache = startCache([legacy(everything)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    expect(cache.lastStream().input).toEqual({
      era: 'legacy',
      filter: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///notes.txt'] },
    });
  });

  it('completes on a graceful end without any recovery attempt', async () => {
    const cache = startCache([modern(everything)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.opened' });
    cache.lastStream().send({ type: 'stream.ended_gracefully' });

    expect(cache.state()).toBe('completed');
    cache.clock.increment(60_000);
    // A lost connection is no reason to recover a stream the server ended.
    cache.actor.send({ type: 'connection.lost', cause: 'server exited' });
    cache.clock.increment(60_000);
    expect(cache.state()).toBe('completed');
    expect(cache.visited.some((value) => value.includes('recovering') || value.includes('interrupted'))).toBe(false);
    expect(cache.negotiations).toHaveLength(1);
    expect(cache.streams).toHaveLength(1);
    expect(cache.lastStream().stopped).toBe(true);
    expect(cache.emitted).toEqual([]);
  });

  it('listens again after completing once the connection negotiates anew, intersecting with the new capabilities', async () => {
    const cache = startCache([modern(everything)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.opened' });
    cache.lastStream().send({ type: 'stream.ended_gracefully' });
    expect(cache.state()).toBe('completed');

    cache.actor.send(ready(legacy(toolsOnly)));
    expect(cache.state()).toEqual({ listening: 'awaitingAck' });
    expect(cache.streams.map((s) => s.input)).toEqual([
      { era: 'modern', filter: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///notes.txt'] } },
      { era: 'legacy', filter: { toolsListChanged: true } },
    ]);
    expect(cache.negotiations).toHaveLength(1);
    expect(cache.visited.some((value) => value.includes('recovering'))).toBe(false);
    cache.lastStream().send({ type: 'stream.opened' });
    expect(cache.actor.getSnapshot().context.streamsOpened).toBe(2);
  });

  it('degrades from completed when the connection closes for good', async () => {
    const cache = startCache([modern(toolsOnly)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.ended_gracefully' });
    cache.actor.send({ type: 'connection.closed', reason: { type: 'transport_closed', cause: 'eof' } });
    expect(cache.state()).toBe('degraded');
    expect(cache.actor.getSnapshot().context.degradedBy).toEqual({ type: 'connection_closed', reason: { type: 'transport_closed', cause: 'eof' } });
  });

  it('recovers an unexpected close with growing delays, bounded by the maximum, then degrades', async () => {
    const cache = startCache([modern(everything), modern(everything), new Error('discover failed'), modern(everything)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.opened' });
    cache.lastStream().send({ type: 'stream.closed_unexpectedly', cause: 'eof' });
    expect(cache.lastStream().stopped).toBe(true);

    // Attempt 1 waits 1 s, attempt 2 waits 2 s, attempt 3 is capped at 3 s (not 4 s).
    const waits: number[] = [];
    for (const attempt of [1, 2, 3]) {
      expect(cache.state()).toBe('recovering');
      expect(cache.actor.getSnapshot().context.attempt).toBe(attempt);
      const delay = backoffDelay(attempt, { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 3_000 }, 1);
      cache.clock.increment(delay - 1);
      expect(cache.state()).toBe('recovering');
      cache.clock.increment(1);
      waits.push(delay);
      expect(cache.negotiations.at(-1)).toEqual({ attempt });
      // Attempt 1 reopens and fails before opening; attempt 2's negotiation fails; attempt 3 reopens and fails.
      await cache.until((s) => !s.matches('negotiating'));
      if (cache.actor.getSnapshot().matches('listening')) cache.lastStream().send({ type: 'stream.closed_unexpectedly', cause: `eof ${attempt}` });
    }
    expect(waits).toEqual([1_000, 2_000, 3_000]);
    expect(cache.state()).toBe('degraded');
    expect(cache.actor.getSnapshot().context.degradedBy).toEqual({ type: 'recovery_exhausted', attempts: 3, cause: 'eof 3' });
    expect(cache.negotiations).toEqual([{ attempt: 0 }, { attempt: 1 }, { attempt: 2 }, { attempt: 3 }]);
    expect(cache.streams).toHaveLength(3);
    expect(cache.streams.every((stream) => stream.stopped)).toBe(true);
    // Degraded: what the interrupted stream covered is no longer notification-backed.
    expect(cache.emitted).toEqual([
      { type: 'cache.invalidate', filter: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///notes.txt'] } },
    ]);
    cache.clock.increment(600_000);
    expect(cache.state()).toBe('degraded');
    expect(cache.negotiations).toHaveLength(4);
  });

  it("waits out a failed recovery's Retry-After instead of the shorter backoff", async () => {
    const busy = new HttpStatusError(503, 'Service Unavailable', undefined, 20_000);
    const cache = startCache([modern(everything), busy, modern(everything)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.closed_unexpectedly', cause: 'eof' });
    cache.clock.increment(1_000);
    // Attempt 1's negotiation meets a server in a deploy, which asks for 20 s: attempt 2 waits that, not 2 s.
    await cache.until((s) => s.matches('recovering') && s.context.attempt === 2);
    cache.clock.increment(19_999);
    expect(cache.negotiations).toHaveLength(2);
    cache.clock.increment(1);
    expect(cache.negotiations).toEqual([{ attempt: 0 }, { attempt: 1 }, { attempt: 2 }]);
    await cache.until((s) => s.matches('listening'));
  });

  it('renegotiates and recomputes the intersection before reopening, and invalidates what the interrupted stream covered once the new one is open', async () => {
    const cache = startCache([modern(everything), modern(toolsOnly)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.opened' });
    cache.lastStream().send({ type: 'stream.closed_unexpectedly', cause: 'killed' });
    cache.clock.increment(1_000);
    await cache.until((s) => s.matches('listening'));

    expect(cache.streams.map((s) => s.input.filter)).toEqual([
      { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///notes.txt'] },
      { toolsListChanged: true },
    ]);
    expect(cache.emitted).toEqual([]);
    cache.lastStream().send({ type: 'stream.opened' });
    expect(cache.emitted).toEqual([
      { type: 'cache.invalidate', filter: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///notes.txt'] } },
    ]);
    // The attempts are forgiven only once the stream stayed open for the longest backoff delay.
    expect(cache.actor.getSnapshot().context.attempt).toBe(1);
    cache.clock.increment(3_000);
    expect(cache.actor.getSnapshot().context.attempt).toBe(0);

    // A stream that stayed open resets the bound: a later close starts again from the first delay.
    cache.lastStream().send({ type: 'stream.closed_unexpectedly', cause: 'killed again' });
    expect(cache.actor.getSnapshot().context.attempt).toBe(1);
  });

  it('opens nothing when interest and capabilities share nothing, and leaves noOverlap on a later negotiation that overlaps', async () => {
    const cache = startCache([modern({ resources: { listChanged: true }, logging: {} })]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('noOverlap'));
    expect(cache.streams).toEqual([]);
    expect(cache.actor.getSnapshot().context.filter).toBeNull();

    cache.actor.send(ready(modern(toolsOnly)));
    expect(cache.state()).toEqual({ listening: 'awaitingAck' });
    expect(cache.lastStream().input).toEqual({ era: 'modern', filter: { toolsListChanged: true } });
  });

  it('intersects again when the connection renegotiates under an open stream', async () => {
    const cache = startCache([modern(everything)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    const first = cache.lastStream();
    first.send({ type: 'stream.opened' });
    cache.actor.send(ready(legacy({})));

    expect(first.stopped).toBe(true);
    expect(cache.state()).toBe('noOverlap');
    expect(cache.streams).toHaveLength(1);
    expect(cache.emitted).toEqual([
      { type: 'cache.invalidate', filter: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///notes.txt'] } },
    ]);
  });

  it('degrades with the reason when the connection closes for good on its own', async () => {
    const cache = startCache([modern(toolsOnly)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.opened' });
    cache.actor.send({ type: 'connection.closed', reason: { type: 'transport_closed', cause: 'eof' } });

    expect(cache.state()).toBe('degraded');
    expect(cache.actor.getSnapshot().context.degradedBy).toEqual({ type: 'connection_closed', reason: { type: 'transport_closed', cause: 'eof' } });
    expect(cache.lastStream().stopped).toBe(true);
  });

  for (const reason of [{ type: 'disconnected' as const }, { type: 'shutdown' as const, cause: 'stopping' }]) {
    it(`ends (closed, final) with the client's reason when the client closes the connection (${reason.type}), invalidating nothing`, async () => {
      const cache = startCache([modern(toolsOnly)]);
      cache.actor.send({ type: 'cache.start' });
      await cache.until((s) => s.matches('listening'));
      cache.lastStream().send({ type: 'stream.opened' });
      // The stream lost before the close: its coverage is in doubt, but a closing cache refetches nothing.
      cache.actor.send({ type: 'connection.lost', cause: 'closing' });
      cache.actor.send({ type: 'connection.closed', reason });

      expect(cache.state()).toBe('closed');
      expect(cache.actor.getSnapshot().status).toBe('done');
      expect(cache.actor.getSnapshot().context.closedBy).toEqual(reason);
      expect(cache.actor.getSnapshot().context.degradedBy).toBeUndefined();
      expect(cache.emitted).toEqual([]);
      expect(cache.lastStream().stopped).toBe(true);
    });
  }

  it('ends its start once: at the first stream that opens, not before, and not again', async () => {
    const cache = startCache([modern(toolsOnly), modern(toolsOnly)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    expect(cache.started()).toBe(0);
    cache.lastStream().send({ type: 'stream.opened' });
    expect(cache.started()).toBe(1);
    cache.lastStream().send({ type: 'stream.closed_unexpectedly', cause: 'cancelled' });
    cache.clock.increment(1_000);
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.opened' });
    expect(cache.started()).toBe(1);
  });

  it('ends its start without a stream when nothing overlaps, or when the first stream fails', async () => {
    const none = startCache([modern({})]);
    none.actor.send({ type: 'cache.start' });
    await none.until((s) => s.matches('noOverlap'));
    expect(none.started()).toBe(1);

    const failing = startCache([modern(toolsOnly)]);
    failing.actor.send({ type: 'cache.start' });
    await failing.until((s) => s.matches('listening'));
    failing.lastStream().send({ type: 'stream.closed_unexpectedly', cause: 'refused' });
    expect(failing.state()).toBe('recovering');
    expect(failing.started()).toBe(1);
  });

  it('stops waiting to retry when the connection closes during recovery', async () => {
    const cache = startCache([modern(toolsOnly)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.actor.send({ type: 'connection.lost', cause: 'transport dropped' });
    // The connection's recovery, which the stream waits out with it.
    expect(cache.state()).toEqual({ listening: 'paused' });
    cache.actor.send({ type: 'connection.closed', reason: { type: 'reconnect_exhausted', cause: 'gone', attempts: 5 } });
    cache.clock.increment(60_000);
    expect(cache.state()).toBe('degraded');
    expect(cache.negotiations).toHaveLength(1);
  });

  it('announces coverage when a stream opens (the honored filter where the server narrowed it) and its end when it leaves', async () => {
    const cache = startCache([modern(everything)]);
    cache.actor.send({ type: 'cache.start' });
    await cache.until((s) => s.matches('listening'));
    cache.lastStream().send({ type: 'stream.opened', honored: { toolsListChanged: true } });
    expect(cache.coverage).toEqual([{ type: 'cache.covered', filter: { toolsListChanged: true } }]);
    cache.actor.send({ type: 'connection.lost', cause: 'dropped' });
    expect(cache.coverage).toEqual([{ type: 'cache.covered', filter: { toolsListChanged: true } }, { type: 'cache.uncovered' }]);
  });

  describe('a lost connection: the connection and the stream recover, the cache only follows', () => {
    const full = { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///notes.txt'] };

    /** A started cache whose first stream is open. */
    async function listeningCache(script: CacheNegotiation[], recovery?: CacheRecovery) {
      const cache = startCache(script, recovery);
      cache.actor.send({ type: 'cache.start' });
      await cache.until((s) => s.matches('listening'));
      const stream = cache.lastStream();
      stream.send({ type: 'stream.opened' });
      return { cache, stream };
    }

    it('keeps its stream through the loss, resumes it on a negotiation with the same intersection, and invalidates the gap once it resumed', async () => {
      const { cache, stream } = await listeningCache([modern(everything)]);
      const from = cache.visited.length;

      cache.actor.send({ type: 'connection.lost', cause: 'server exited' });
      expect(cache.state()).toEqual({ listening: 'paused' });
      expect(stream.stopped).toBe(false);
      // Pausing is the connection's (the stream's owner), not the cache's: the cache tells its stream nothing.
      expect(stream.commands).toEqual([]);
      expect(cache.coverage).toEqual([{ type: 'cache.covered', filter: full }, { type: 'cache.uncovered' }]);
      // No retry timer of its own: however long the connection takes, the cache neither negotiates nor reopens.
      cache.actor.send({ type: 'connection.reconnecting', attempt: 1, quickReadies: 0, delayMs: 250, cause: 'server exited' });
      cache.clock.increment(600_000);
      expect(cache.negotiations).toHaveLength(1);
      expect(cache.streams).toHaveLength(1);

      cache.actor.send(ready(modern(everything)));
      expect(stream.commands).toEqual([]);
      expect(stream.stopped).toBe(false);
      expect(cache.state()).toEqual({ listening: 'paused' });
      expect(cache.emitted).toEqual([]);
      stream.send({ type: 'stream.resumed' });
      expect(cache.state()).toEqual({ listening: 'open' });
      expect(cache.coverage.at(-1)).toEqual({ type: 'cache.covered', filter: full });
      expect(cache.emitted).toEqual([{ type: 'cache.invalidate', filter: full }]);
      expect(cache.negotiations).toHaveLength(1);
      expect(cache.streams).toHaveLength(1);
      expect(cache.visited.slice(from).some((value) => value.includes('recovering') || value.includes('negotiating'))).toBe(false);
    });

    it('closes the paused stream without resuming it when the new server changes the intersection, and opens one for the new intersection', async () => {
      const { cache, stream: first } = await listeningCache([modern(everything)]);
      cache.actor.send({ type: 'connection.lost', cause: 'server exited' });

      cache.actor.send(ready(modern(toolsOnly)));
      expect(first.stopped).toBe(true);
      expect(first.commands).toEqual([]);
      expect(cache.streams.map((s) => s.input)).toEqual([
        { era: 'modern', filter: full },
        { era: 'modern', filter: { toolsListChanged: true } },
      ]);
      expect(cache.emitted).toEqual([]);
      cache.lastStream().send({ type: 'stream.opened' });
      expect(cache.emitted).toEqual([{ type: 'cache.invalidate', filter: full }]);
      expect(cache.negotiations).toHaveLength(1);
    });

    it('degrades once the connection starts more reconnect attempts than the bound, and listens again when it does come back', async () => {
      const { cache, stream: first } = await listeningCache([modern(everything)], { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 3_000 });
      cache.actor.send({ type: 'connection.lost', cause: 'server exited' });
      cache.actor.send({ type: 'connection.reconnecting', attempt: 1, quickReadies: 0, delayMs: 250, cause: 'spawn failed' });
      cache.actor.send({ type: 'connection.reconnecting', attempt: 2, quickReadies: 0, delayMs: 500, cause: 'spawn failed again' });
      expect(cache.state()).toEqual({ listening: 'paused' });
      cache.actor.send({ type: 'connection.reconnecting', attempt: 3, quickReadies: 0, delayMs: 1_000, cause: 'spawn failed a third time' });
      expect(cache.state()).toBe('degraded');
      expect(cache.actor.getSnapshot().context.degradedBy).toEqual({ type: 'recovery_exhausted', attempts: 2, cause: 'spawn failed a third time' });
      expect(first.stopped).toBe(true);
      expect(cache.emitted).toEqual([{ type: 'cache.invalidate', filter: full }]);

      cache.actor.send(ready(modern(everything), 3));
      expect(cache.state()).toEqual({ listening: 'awaitingAck' });
      expect(cache.streams).toHaveLength(2);
      expect(cache.negotiations).toHaveLength(1);
    });

    it('degrades when a server crashes right after each start: quick readies count against the bound as attempts do', async () => {
      const { cache } = await listeningCache([modern(everything)], { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 3_000 });
      // Each restart negotiates and resumes the stream, then is lost at once: no attempt ever fails.
      const crashAfterStart = (quickReadies: number) => {
        cache.actor.send({ type: 'connection.lost', cause: 'server exited' });
        cache.actor.send({ type: 'connection.reconnecting', attempt: 1, quickReadies, delayMs: 250, cause: 'server exited' });
        if (cache.state() === 'degraded') return;
        cache.actor.send(ready(modern(everything)));
        cache.lastStream().send({ type: 'stream.resumed' });
        expect(cache.state()).toEqual({ listening: 'open' });
      };
      crashAfterStart(1);
      crashAfterStart(2);
      expect(cache.state()).toEqual({ listening: 'open' });
      crashAfterStart(3);
      expect(cache.state()).toBe('degraded');
      expect(cache.actor.getSnapshot().context.degradedBy).toEqual({ type: 'recovery_exhausted', attempts: 3, cause: 'server exited' });

      // It listens again on the next negotiation, and is degraded again by the next quick loss.
      cache.actor.send(ready(modern(everything), 3));
      cache.lastStream().send({ type: 'stream.opened' });
      expect(cache.state()).toEqual({ listening: 'open' });
      expect(cache.actor.getSnapshot().context.degradedBy).toBeUndefined();
      crashAfterStart(4);
      expect(cache.state()).toBe('degraded');

      // Once a connection lasted (the connection forgot its quick readies), a loss is an ordinary one again.
      cache.actor.send(ready(modern(everything), 4));
      cache.lastStream().send({ type: 'stream.opened' });
      crashAfterStart(0);
      expect(cache.state()).toEqual({ listening: 'open' });
    });

    it("degrades without retrying on its own when the stream's re-listens run out", async () => {
      const { cache } = await listeningCache([modern(everything)]);
      cache.lastStream().send({ type: 'stream.exhausted', attempts: 5, cause: 'stream cut' });
      expect(cache.state()).toBe('degraded');
      expect(cache.actor.getSnapshot().context.degradedBy).toEqual({ type: 'recovery_exhausted', attempts: 5, cause: 'stream cut' });
      cache.clock.increment(600_000);
      expect(cache.negotiations).toHaveLength(1);
      expect(cache.streams).toHaveLength(1);
      expect(cache.emitted).toEqual([{ type: 'cache.invalidate', filter: full }]);
    });

    it('invalidates what an open stream covers when it resumes after re-listening on its own', async () => {
      const { cache } = await listeningCache([modern(toolsOnly)]);
      cache.lastStream().send({ type: 'stream.resumed' });
      expect(cache.state()).toEqual({ listening: 'open' });
      expect(cache.emitted).toEqual([{ type: 'cache.invalidate', filter: { toolsListChanged: true } }]);
    });

    it('opens a stream lost before its first acknowledgment when it is acknowledged on the next connection', async () => {
      const cache = startCache([modern(toolsOnly)]);
      cache.actor.send({ type: 'cache.start' });
      await cache.until((s) => s.matches('listening'));
      cache.actor.send({ type: 'connection.lost', cause: 'dropped' });
      cache.actor.send(ready(modern(toolsOnly)));
      cache.lastStream().send({ type: 'stream.opened' });
      expect(cache.state()).toEqual({ listening: 'open' });
      expect(cache.coverage).toEqual([{ type: 'cache.covered', filter: { toolsListChanged: true } }]);
      expect(cache.actor.getSnapshot().context.streamsOpened).toBe(1);
    });
  });
});

import { streamActorOf } from '../../src/testing/index.ts';
/**
 * No bytes from a peer can hurt the client. A property test plays random
 * interleavings of valid answers and stream events with hostile frames
 * (nesting to 100,000 levels, 5 MB lines, truncated and non-UTF-8 bytes,
 * duplicate and wrong-type ids, results for unknown ids, tagged events and
 * acknowledgments for unknown streams) to the client, over a real stdio
 * child and over loopback HTTP (SSE and JSON bodies). Each run checks that
 * the process never threw, every request resolved with its own response,
 * every listen stream delivered exactly its honored events, and each
 * hostile frame was reported as what it is, and nothing else was.
 *
 * A scripted peer is right here: no real server sends these frames on cue.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationFilter } from '../../src/protocol/filter.ts';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import type { ListenStream } from '../../src/client/subscription.ts';
import { RpcError, StreamEndedError } from '../../src/protocol/errors.ts';
import { stdioTransport } from '../../src/transport/stdio.ts';
import { httpTransport } from '../../src/transport/http.ts';
import {
  delivers,
  EVENT_METHODS,
  expectedReport,
  SENTINEL,
  STREAM_FILTERS,
  type HostileFrame,
  type Plan,
  type PlanStep,
} from '../fixtures/hostile-frames.ts';
import { startHostileHttpPeer, type HostileHttpPeer, type JunkKind } from '../fixtures/hostile-http-peer.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

const hostileFrame: fc.Arbitrary<HostileFrame> = fc.oneof(
  // 513: one level past MAX_FRAME_DEPTH.
  { arbitrary: fc.record({ kind: fc.constant('deep' as const), depth: fc.constantFrom(513, 5_000, 100_000) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('deep-response' as const), depth: fc.constantFrom(600, 100_000) }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'huge' as const, bytes: 5 * 1024 * 1024 }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'truncated' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'binary' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'binary-string' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'duplicate' as const }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'id-as-string' as const }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant('id-of-wrong-type' as const), id: fc.constantFrom<boolean | null | Record<string, number> | number[]>(true, null, { a: 1 }, [1]) }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('unknown-id' as const), error: fc.boolean() }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'unknown-stream-event' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'unknown-stream-ack' as const }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('repeat-ack' as const), stream: fc.nat(2) }), weight: 1 },
);

/** One run's plan before its tokens get names: steps in a random order. */
const planArbitrary = fc.record({
  answers: fc.array(fc.constantFrom<'result' | 'error'>('result', 'result', 'error'), { minLength: 1, maxLength: 5 }),
  events: fc.array(
    fc.record({
      stream: fc.nat(STREAM_FILTERS.length - 1),
      method: fc.constantFrom(...EVENT_METHODS),
      uri: fc.constantFrom('test://r/1', 'test://r/2'),
    }),
    { maxLength: 8 },
  ),
  hostile: fc.array(fc.record({ frame: hostileFrame, carrier: fc.nat(20) }), { minLength: 1, maxLength: 6 }),
  order: fc.array(fc.integer(), { minLength: 20, maxLength: 20 }),
  chunking: fc.constantFrom<'whole' | 'frames'>('whole', 'frames'),
  bodies: fc.array(fc.constantFrom<'sse' | 'json'>('sse', 'json'), { minLength: 5, maxLength: 5 }),
  junk: fc.constantFrom<JunkKind>('truncated', 'huge', 'binary', 'deep', 'empty'),
});

type Drawn = typeof planArbitrary extends fc.Arbitrary<infer T> ? T : never;

let runs = 0;

/** Names the tokens (unique across runs) and interleaves the steps by the drawn order. */
function namePlan(drawn: Drawn) {
  runs += 1;
  const tokens = drawn.answers.map((_, i) => `run${runs}-token${i}`);
  let marker = 0;
  const steps: PlanStep[] = [
    ...drawn.answers.map((as, i): PlanStep => ({ kind: 'answer', token: tokens[i]!, as })),
    ...drawn.events.map((event): PlanStep => ({ kind: 'event', ...event, marker: marker++ })),
    ...drawn.hostile.map(({ frame, carrier }): PlanStep => ({ kind: 'hostile', frame, carrier })),
  ];
  const keyed = steps.map((step, i) => ({ step, key: drawn.order[i % drawn.order.length]! * 100 + i }));
  keyed.sort((a, b) => a.key - b.key);
  const plan: Plan = { tokens, steps: keyed.map(({ step }) => step), chunking: drawn.chunking };
  const bodies = Object.fromEntries(tokens.map((token, i) => [token, drawn.bodies[i % drawn.bodies.length]!]));
  return { plan, bodies, junk: drawn.junk };
}

/** Everything the process itself would die of. */
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

interface Harness {
  client: McpClient;
  streams: ListenStream[];
  inboxes: SubscriberMessage[][];
  reports: Error[];
  /** Resolves once every stream delivered `count` sentinels. */
  sentinels(count: number): Promise<void>;
  close(): Promise<void>;
}

async function harness(transport: 'stdio' | 'http'): Promise<Harness> {
  let peer: HostileHttpPeer | undefined;
  const factory =
    transport === 'stdio'
      ? stdioTransport({
          command: process.execPath,
          args: [fixtureBundle(new URL('../fixtures/hostile-peer.ts', import.meta.url))],
          stderr: 'ignore',
        })
      : httpTransport({ url: (peer = await startHostileHttpPeer()).url });
  const client = createClient({ transport: factory });
  const reports: Error[] = [];
  client.onError((error) => reports.push(error));
  await client.connect();
  const inboxes: SubscriberMessage[][] = STREAM_FILTERS.map(() => []);
  const waiters = new Set<() => void>();
  const streams: ListenStream[] = [];
  for (const [index, filter] of STREAM_FILTERS.entries()) {
    streams.push(
      await client.listen(structuredClone(filter) as NotificationFilter, (message) => {
        inboxes[index]!.push(message);
        for (const waiter of [...waiters]) waiter();
      }),
    );
  }
  const sentinelCount = (inbox: SubscriberMessage[]) =>
    inbox.filter((message) => message.type === 'notification' && message.params.marker === SENTINEL).length;
  return {
    client,
    streams,
    inboxes,
    reports,
    sentinels: (count) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!inboxes.every((inbox) => sentinelCount(inbox) >= count)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close: async () => {
      await client.close();
      await peer?.close();
    },
  };
}

describe.each(['stdio', 'http'] as const)('hostile frames over %s', (transport) => {
  let h: Harness;
  let played = 0;

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    h = await harness(transport);
  });
  afterAll(async () => {
    await h?.close();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  });

  it('never throw, never resolve the wrong request, never reach a stream they were not for', async () => {
    await fc.assert(
      fc.asyncProperty(planArbitrary, async (drawn) => {
        const { plan, bodies, junk } = namePlan(drawn);
        const starts = h.inboxes.map((inbox) => inbox.length);
        h.reports.length = 0;
        const echoes = plan.tokens.map((token) => h.client.request('test/echo', { token }).then((value) => ({ value }), (error: unknown) => ({ error })));
        const junked = transport === 'http' ? h.client.request('test/junk', { kind: junk }).then(() => 'resolved', (error: unknown) => error) : undefined;
        await h.client.request('script/play', { plan, bodies });
        played += 1;
        const settled = await Promise.all(echoes);
        await h.sentinels(played);

        // Every request resolved with its own response.
        for (const [i, token] of plan.tokens.entries()) {
          const step = plan.steps.find((s) => s.kind === 'answer' && s.token === token) as Extract<PlanStep, { kind: 'answer' }>;
          const outcome = settled[i]!;
          if (step.as === 'result') expect(outcome).toEqual({ value: { token, resultType: 'complete' } });
          else {
            expect('error' in outcome && outcome.error).toBeInstanceOf(RpcError);
            expect((outcome as { error: RpcError }).error.data).toEqual({ token });
          }
        }
        if (junked) expect(await junked).toBeInstanceOf(StreamEndedError);

        // Every stream delivered exactly the events its filter asks for, in order, and is still open.
        for (const [index, inbox] of h.inboxes.entries()) {
          const got = inbox.slice(starts[index]).map((message) => (message.type === 'notification' ? message.params.marker : message.type));
          const want = plan.steps.filter((s) => s.kind === 'event' && s.stream === index && delivers(index, s)).map((s) => (s as { marker: number }).marker);
          expect(got, `stream ${index}`).toEqual([...want, SENTINEL]);
          expect(streamActorOf(h.streams[index]!).getSnapshot().status).toBe('active');
        }

        // Each hostile frame reported as what it is; nothing else reported.
        const want = plan.steps.flatMap((s) => (s.kind === 'hostile' ? [expectedReport(s.frame)] : [])).filter((name) => name !== undefined);
        if (junked) want.push('FrameError');
        expect(h.reports.map((error) => error.name).sort()).toEqual(want.sort());
        expect(h.client.state).toBe('online.ready.modern');
        expect(uncaught).toEqual([]);
      }),
      { numRuns: transport === 'stdio' ? 25 : 20 },
    );
    // Bounded by its runs (5 MB lines, 100,000-deep nesting), not by waiting: a few seconds of CPU here and the
    // child's, several times that on a loaded 2-core machine, past the default 20 s.
  }, 120_000);
});

import { streamActorOf } from '../../src/testing/index.ts';
/**
 * No slow server can fool the negotiation. The real dual-era server (the
 * official `@modelcontextprotocol/server` 2.4.0 `serveStdio`, in
 * official-stdio-server.ts) behind a wrapper that delays its start
 * (delayed-start.ts), as a server slow to come back after a crash:
 *
 * - killed and restarted 10 times with start delays from 0 to 8 s, every
 *   listen stream listens again under its own id, hands its subscriber a
 *   resync snapshot and delivers live events again; none ends, none as
 *   `era_changed`, and the connection never changes era;
 * - a first connect that misses the 2 s probe timeout is still modern, and
 *   a legacy-only server that slow is still legacy;
 * - `era: 'modern'` with a probe timeout of 1 ms negotiates modern, and so
 *   does `auto`, and the server agrees (it serves a listen).
 *
 * The start delays are the scenario (real time, the wrapper's); every wait
 * in the test is on a signal: a subscriber message or a connection event.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it, type TestContext } from 'vitest';
import { createClient, type ClientEvent, type McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import type { ListenStream } from '../../src/client/subscription.ts';
import { stdioTransport, type StdioClientTransport } from '../../src/transport/stdio.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { WireRecord } from './recording-transport.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/**
 * Start delays of the ten restarts, 0 to 8 s, alternating short and long:
 * five miss the client's 2 s probe timeout (by 0.2 s to 6 s) and five beat
 * it. The delays are the scenario and cost real time, so they span the range
 * with a sum of 20.6 s rather than spreading evenly over it.
 */
const RESTART_DELAYS_MS = [8_000, 0, 2_500, 300, 4_000, 0, 2_200, 100, 3_000, 500];

/**
 * The official dual-era server, started `delays[attempt]` ms late on each
 * connection attempt. Unlike the other stdio peers (ready-stdio-transport.ts)
 * the client does not wait for the server's readiness line: racing the probe
 * timeout against a slow start is what these tests are about.
 */
function delayedOfficial(delays: (attempt: number) => number, flags: string[] = []) {
  const transports: StdioClientTransport[] = [];
  const factory: TransportFactory = () => {
    const delay = delays(transports.length);
    const transport = stdioTransport({
      command: process.execPath,
      args: [fixtureBundle(fixture('delayed-start.ts')), String(delay), fixtureBundle(fixture('official-stdio-server.ts')), ...flags],
      stderr: 'ignore',
    })();
    transports.push(transport);
    return transport;
  };
  return { factory, transports, kill: () => process.kill(transports.at(-1)!.pid!, 'SIGKILL') };
}

/**
 * A client that disconnects when its test ends. Per test, not in afterEach:
 * the tests run concurrently (they mostly wait on start delays, each with
 * its own server process), and an afterEach would end the others' clients.
 */
function clientFor(onTestFinished: TestContext['onTestFinished'], options: Parameters<typeof createClient>[0]): McpClient {
  const client = createClient(options);
  onTestFinished(() => client.close());
  return client;
}

/** Resolves once `check` holds; re-checked whenever `notify` is called. */
function signals() {
  const waiters = new Set<() => void>();
  return {
    notify: () => {
      for (const waiter of [...waiters]) waiter();
    },
    until: (check: () => boolean) =>
      new Promise<void>((resolve) => {
        const waiter = () => {
          if (!check()) return;
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
        waiter();
      }),
  };
}

const FILTERS = [{ toolsListChanged: true }, { promptsListChanged: true }, { resourceSubscriptions: ['test://resource/1'] }];
const EMIT_KINDS = ['tools', 'prompts', 'updated'] as const;

// One concurrent suite around all of them: the 3 s first-connect cases wait out their start delays while the ten
// restarts wait out theirs, instead of after them (each test has its own server process and client).
describe.concurrent('slow servers', () => {
  describe.concurrent('a dual-era server slow to restart (the official 2.4.0 serveStdio behind a delayed start)', () => {
    it('keeps every listen stream across 10 restarts with start delays from 0 to 8 s: same ids, resync snapshots, no era change', async ({ onTestFinished }) => {
      const server = delayedOfficial((attempt) => (attempt === 0 ? 0 : RESTART_DELAYS_MS[(attempt - 1) % RESTART_DELAYS_MS.length]!));
      const wire = new WireRecord(server.factory);
      // Reconnect at once after each kill: the server's start delays are the scenario, the client's backoff is not
      // (the library default would add ~0.2 s per restart, ten times over).
      const client = clientFor(onTestFinished, { transport: wire.factory, reconnect: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 } });
      const signal = signals();
      const events: ClientEvent[] = [];
      client.on('*', (event) => {
        events.push(event);
        signal.notify();
      });
      await client.connect();
      expect(client.era).toBe('modern');

      const inboxes: SubscriberMessage[][] = FILTERS.map(() => []);
      const streams: ListenStream[] = [];
      for (const [index, filter] of FILTERS.entries()) {
        streams.push(
          await client.listen(filter, (message) => {
            inboxes[index]!.push(message);
            signal.notify();
          }),
        );
      }
      const count = (index: number, type: SubscriberMessage['type']) => inboxes[index]!.filter((message) => message.type === type).length;

      for (let restart = 1; restart <= RESTART_DELAYS_MS.length; restart++) {
        server.kill();
        // Each stream resumes (its subscriber gets `reconnected` with the snapshot) before any live event.
        await signal.until(() => FILTERS.every((_, index) => count(index, 'reconnected') === restart));
        expect(client.era).toBe('modern');
        // And is live again: a change on the restarted server reaches exactly the stream that asked for it.
        for (const [index, kind] of EMIT_KINDS.entries()) {
          const before = count(index, 'notification');
          await client.callTool('emit', { kind, uri: 'test://resource/1' });
          await signal.until(() => count(index, 'notification') === before + 1);
        }
      }

      for (const [index, stream] of streams.entries()) {
        const reconnected = inboxes[index]!.filter((message) => message.type === 'reconnected');
        expect(reconnected).toHaveLength(RESTART_DELAYS_MS.length);
        for (const message of reconnected) expect(message).toMatchObject({ snapshot: expect.any(Object) });
        expect(inboxes[index]!.filter((message) => message.type === 'closed')).toEqual([]);
        expect(streamActorOf(stream).getSnapshot().status).toBe('active');
        // On the wire: one listen per connection attempt that got that far, every one under the stream's first id.
        const listens = wire.calls('subscriptions/listen').filter((call) => call.params.notifications !== undefined && JSON.stringify(call.params.notifications) === JSON.stringify(FILTERS[index]));
        expect(new Set(listens.map((call) => call.id))).toEqual(new Set([stream.id]));
        expect(listens.length).toBeGreaterThanOrEqual(RESTART_DELAYS_MS.length + 1);
      }
      expect(events.filter((event) => event.type === 'connection.era_changed')).toEqual([]);
      expect(events.filter((event) => event.type === 'connection.ready')).toHaveLength(RESTART_DELAYS_MS.length + 1);
      // No reconnect considered legacy: nothing but server/discover went out to decide the era.
      expect(wire.calls('initialize').filter((call) => call.attempt > 0)).toEqual([]);
    }, 240_000);

    it('a first connect that misses the 2 s probe timeout is still modern: the late discover answer decides', async ({ onTestFinished }) => {
      const server = delayedOfficial(() => 3_000);
      const wire = new WireRecord(server.factory);
      const client = clientFor(onTestFinished, { transport: wire.factory });
      await client.connect();
      expect(client.era).toBe('modern');
      // The initialize sent beside the probe went under the modern envelope, so the server stayed modern.
      const [initialize] = wire.calls('initialize');
      expect(initialize?.params._meta).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
      const stream = await client.listen({ toolsListChanged: true }, () => {});
      expect(stream.honoredFilter).toEqual({ toolsListChanged: true });
    }, 60_000);
  });

  describe.concurrent('a legacy-only server slow to start (the official 2.4.0 McpServer without serveStdio)', () => {
    it('is legacy: it answers the initialize sent beside the probe, envelope and all', async ({ onTestFinished }) => {
      const server = delayedOfficial(() => 3_000, ['--modern-off']);
      const wire = new WireRecord(server.factory);
      const client = clientFor(onTestFinished, { transport: wire.factory });
      await client.connect();
      expect(client.era).toBe('legacy');
      // One initialize, the one that went out beside the unanswered probe, under the modern envelope.
      const initializes = wire.calls('initialize');
      expect(initializes).toHaveLength(1);
      expect(initializes[0]!.params._meta).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
      expect((await client.callTool('echo', { text: 'legacy' })).content).toEqual([{ type: 'text', text: 'legacy' }]);
    }, 60_000);
  });

  describe.concurrent('a probe timeout of 1 ms against the official dual-era server', () => {
    it.for(['modern', 'auto'] as const)("era '%s' still negotiates modern, and the server serves it as modern", { timeout: 60_000 }, async (era, { onTestFinished }) => {
      const server = delayedOfficial(() => 0);
      const wire = new WireRecord(server.factory);
      const client = clientFor(onTestFinished, { transport: wire.factory, era, probeTimeoutMs: 1 });
      await client.connect();
      expect(client.era).toBe('modern');
      // A legacy-pinned server would answer subscriptions/listen with -32601.
      const stream = await client.listen({ toolsListChanged: true }, () => {});
      expect(stream.honoredFilter).toEqual({ toolsListChanged: true });
      // Every request and notification the client sent carried the modern envelope: none left without it.
      for (const { message } of wire.sent) {
        if (!('method' in message)) continue;
        expect(message.params?._meta, message.method).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
      }
      if (era === 'modern') expect(wire.calls('initialize')).toEqual([]);
    });
  });
});

/**
 * A modern server that acknowledges every `subscriptions/listen` and cancels
 * it at once, while the connection stays up: our own server over the
 * in-memory pair, with a cancel written after each acknowledgment it sends
 * (no real server does this on cue). Before, every acknowledgment reset the
 * cache's recovery attempts, so the cancel always counted as attempt 1 and
 * the cache listened again for ever (79 listens in 3 s), never degraded. Now
 * attempts are forgiven only once a stream stayed open for the backoff's
 * longest delay, so bounded recovery ends in `degraded`. The cache's delays
 * run on a simulated clock.
 */
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { ChangeCacheHandle } from '../../src/cache/change-cache.ts';
import type { McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { createTestChangeCache, createTestClient } from '../../src/testing/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { recordCache } from './cache-recorder.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { caches, clients, servers } = closedAfterEach({ caches: [] as ChangeCacheHandle[], clients: [] as McpClient[], servers: [] as McpServer[] });

/** The server's output, with a `notifications/cancelled` for each listen it acknowledges, written on the next turn. */
function cancellingEveryAck(out: Writable): { stream: Transform; acknowledged: unknown[] } {
  const acknowledged: unknown[] = [];
  let partial = '';
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        this.push(`${line}\n`);
        const message = JSON.parse(line) as { method?: string; params?: { _meta?: Record<string, unknown> } };
        if (message.method !== 'notifications/subscriptions/acknowledged') continue;
        const requestId = message.params?._meta?.['io.modelcontextprotocol/subscriptionId'];
        acknowledged.push(requestId);
        const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'scripted cancel' } };
        setImmediate(() => this.push(`${JSON.stringify(cancel)}\n`));
      }
      done();
    },
  });
  stream.pipe(out);
  return { stream, acknowledged };
}

describe('a change cache whose server acknowledges each listen and cancels it at once', () => {
  it('counts each cancel as one more recovery attempt and ends degraded once they run out', async () => {
    const server = buildFixtureServer();
    servers.push(server);
    let acknowledged: unknown[] = [];
    const transport = inMemoryTransport((end) => {
      const output = cancellingEveryAck(end.stdout);
      acknowledged = output.acknowledged;
      return server.serveStdio({ stdin: end.stdin, stdout: output.stream });
    });
    // The client's own delays (ack timeout, re-listen) on a clock nobody advances: only the cache's recovery runs.
    const client = createTestClient({ transport, era: 'modern', clock: new SimulatedClock(), random: () => 1 });
    clients.push(client);
    await client.connect();

    const clock = new SimulatedClock();
    const recovery = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 4_000 };
    const cache = createTestChangeCache(client, { interest: { tools: true }, recovery, random: () => 1, clock });
    caches.push(cache);
    const recorder = recordCache(cache);

    const settled = (from: number) =>
      recorder.next((event) => event.type === 'state' && (event.state === 'recovering' || event.state === 'degraded'), from);
    let from = 0;
    // Bounded here, so the old endless loop fails rather than hangs.
    for (let round = 0; round < 10; round++) {
      const next = await settled(from);
      from = recorder.events.indexOf(next) + 1;
      if (next.type === 'state' && next.state === 'degraded') break;
      clock.increment(recovery.maxDelayMs);
    }

    expect(cache.state).toBe('degraded');
    expect(cache.degradedBy).toMatchObject({ type: 'recovery_exhausted', attempts: 3 });
    // The first stream and one per attempt, each acknowledged (listening) before it was cancelled.
    expect(acknowledged).toHaveLength(4);
    expect(recorder.states().filter((state) => state === 'listening')).toHaveLength(4);
    // A wait before each attempt; the fourth cancel finds none left.
    expect(recorder.states().filter((state) => state === 'recovering')).toHaveLength(3);
  });
});

/**
 * A server that says when to come back is heard. Our server answers a legacy `initialize` past `maxSessions` with
 * 503 and `Retry-After: 1`; our client, reconnecting, waits that second (its own backoff would have tried again
 * after 250 ms) and then takes the slot the official 2.x client, the session's holder, gave up. Loopback HTTP, real
 * clients; the reconnect delay on a simulated clock, so the test waits for nothing but events.
 */
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { httpTransport, type McpClient } from '../../src/index.ts';
import type { McpServer } from '../../src/server/index.ts';
import { createTestClient, SimulatedClock } from '../../src/testing/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closeAllPeers, connectHttp } from '../server/official-peers.ts';

let server: McpServer | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await closeAllPeers();
  await server?.close();
  server = undefined;
});

it("a full server's 503 asks for a second: the reconnect waits it, then takes the slot the official client gave up", async () => {
  server = buildFixtureServer({ limits: { maxSessions: 1 } });
  const { url } = await server.listenHttp({ port: 0 });
  const occupant = await connectHttp('legacy', url, 'occupant');
  expect(server.openSessionCount).toBe(1);

  const clock = new SimulatedClock();
  // random 1: no jitter, so the backoff's own first delay is its base, 250 ms.
  client = createTestClient({ transport: httpTransport({ url }), era: 'legacy', firstConnect: 'retry', clock, random: () => 1 });
  const reconnecting = new Promise<unknown>((resolve) => client!.on('connection.reconnecting', resolve));
  const connected = client.connect();
  expect(await reconnecting).toMatchObject({ attempt: 1, delayMs: 1_000, cause: { status: 503, retryAfterMs: 1_000 } });

  await (occupant.transport as StreamableHTTPClientTransport).terminateSession();
  expect(server.openSessionCount).toBe(0);
  clock.increment(999);
  expect(client.state).toBe('reconnecting');
  clock.increment(1);
  await connected;
  expect(client.state).toBe('online.ready.legacy');
  expect(server.openSessionCount).toBe(1);
});

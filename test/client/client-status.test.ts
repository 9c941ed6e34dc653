/**
 * The client's lifecycle through status() and on(type, handler), over the
 * in-memory pair with our server: a cut link is a restart-like loss (the
 * client reconnects over a fresh pair, to the same server). The reconnect
 * backoff runs on a simulated clock, advanced once `reconnecting` shows.
 */
import { describe, expect, it } from 'vitest';
import { createTestClient } from '../../src/testing/index.ts';
import { SimulatedClock } from 'xstate';
import type { ClientEvent, McpClient } from '../../src/client/client.ts';
import type { ClientStatus } from '../../src/client/client-status.ts';
import type { McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { countedLinks } from '../fixtures/counted-links.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });

const BACKOFF = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 100 };

function linkedClient(era: 'legacy' | 'modern') {
  const server = buildFixtureServer();
  servers.push(server);
  const { factory, links } = countedLinks(inMemoryTransport((end) => server.serveStdio(end)));
  const clock = new SimulatedClock();
  const client = createTestClient({
    transport: factory,
    era,
    reconnect: BACKOFF,
    clock,
    random: () => 0.5,
  });
  clients.push(client);
  return { client, links, clock };
}

/** The next status, as a plain value to compare. */
const next = async (statuses: AsyncIterator<ClientStatus>) => (await statuses.next()).value as ClientStatus | undefined;

describe.each(['legacy', 'modern'] as const)('client status and lifecycle events (%s)', (era) => {
  it('status() walks idle → ready → reconnecting → ready (generation 2) → closed, and ends', async () => {
    const { client, links, clock } = linkedClient(era);
    const statuses = client.status()[Symbol.asyncIterator]();
    expect(await next(statuses)).toEqual({ state: 'idle', era: undefined, generation: 0 });

    await client.connect();
    expect(await next(statuses)).toEqual({ state: 'online.connecting', era: undefined, generation: 0 });
    expect(await next(statuses)).toEqual({ state: 'online.negotiating', era: undefined, generation: 0 });
    expect(await next(statuses)).toEqual({ state: `online.ready.${era}`, era, generation: 1 });

    links[0]!.cut();
    expect(await next(statuses)).toEqual({ state: 'reconnecting', era, generation: 1 });
    clock.increment(BACKOFF.maxDelayMs);
    expect(await next(statuses)).toEqual({ state: 'online.connecting', era, generation: 1 });
    expect(await next(statuses)).toEqual({ state: 'online.negotiating', era, generation: 1 });
    expect(await next(statuses)).toEqual({ state: `online.ready.${era}`, era, generation: 2 });
    expect(client.state).toBe(`online.ready.${era}`);
    expect(links).toHaveLength(2);

    await client.close();
    expect(await next(statuses)).toEqual({ state: 'closed', reason: { type: 'disconnected' }, generation: 2 });
    expect(await statuses.next()).toEqual({ done: true, value: undefined });
    // A status() asked for after the close yields the closed status alone.
    const after: ClientStatus[] = [];
    for await (const status of client.status()) after.push(status);
    expect(after).toEqual([{ state: 'closed', reason: { type: 'disconnected' }, generation: 2 }]);
  });

  it('on(type, handler) hears its own type only, typed, until unsubscribed; on("*") hears every lifecycle event', async () => {
    const { client, links, clock } = linkedClient(era);
    const everything: ClientEvent['type'][] = [];
    client.on('*', (event) => everything.push(event.type));
    const readies: number[] = [];
    const ready = client.on('connection.ready', (event) => readies.push(event.generation));
    const losses: unknown[] = [];
    client.on('connection.lost', (event) => losses.push(event.cause));
    const reconnecting = new Promise<number>((resolve) => client.on('connection.reconnecting', (event) => resolve(event.delayMs)));

    await client.connect();
    expect(readies).toEqual([1]);
    ready.unsubscribe();

    const readyAgain = new Promise<void>((resolve) => client.on('connection.ready', () => resolve()));
    links[0]!.cut();
    clock.increment(await reconnecting);
    await readyAgain;
    expect(readies).toEqual([1]);
    expect(losses).toHaveLength(1);
    expect(losses[0]).toBeInstanceOf(Error);

    await client.close();
    expect(everything).toEqual(['connection.ready', 'connection.lost', 'connection.reconnecting', 'connection.ready', 'connection.closed']);
  });
});

describe('leaving a status loop', () => {
  it('breaking out of the loop stops listening, and the client keeps running', async () => {
    const { client } = linkedClient('modern');
    const seen: string[] = [];
    const connected = client.connect();
    for await (const status of client.status()) {
      seen.push(status.state);
      if (status.state === 'online.ready.modern') break;
    }
    await connected;
    expect(seen).toEqual(['online.connecting', 'online.negotiating', 'online.ready.modern']);
    expect(await client.callTool('echo', { text: 'still here' })).toMatchObject({ content: [{ type: 'text', text: 'still here' }] });
  });
});

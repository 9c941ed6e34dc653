/**
 * status() and on(type, handler) against the official server 2.4.0 (a stdio
 * child) in the modern era, through a real restart: the server process is
 * killed and the client's reconnect starts a new one. The reconnect backoff
 * runs on a simulated clock, advanced once `reconnecting` shows.
 */
import { describe, expect, it } from 'vitest';
import { createTestClient } from '../../src/testing/index.ts';
import { SimulatedClock } from 'xstate';
import type { McpClient } from '../../src/client/client.ts';
import type { ClientStatus } from '../../src/client/client-status.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients } = closedAfterEach({ clients: [] as McpClient[] });

describe('client status against the official server', () => {
  it('reports ready, the loss, reconnecting, ready again in a new generation, and closed', async () => {
    const peer = officialStdio();
    const clock = new SimulatedClock();
    const client = createTestClient({ transport: peer.factory, reconnect: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 50 }, clock, random: () => 0.5 });
    clients.push(client);
    const lost: unknown[] = [];
    client.on('connection.lost', (event) => lost.push(event.cause));
    const statuses: ClientStatus[] = [];
    const watched = (async () => {
      for await (const status of client.status()) {
        statuses.push(status);
        if (status.state === 'reconnecting') clock.increment(50);
      }
    })();

    await client.connect();
    expect(client.state).toBe('online.ready.modern');
    const readyAgain = new Promise<number>((resolve) => client.on('connection.ready', (event) => resolve(event.generation)));
    peer.kill();
    expect(await readyAgain).toBe(2);
    expect(peer.transports).toHaveLength(2);
    expect((await client.callTool('echo', { text: 'after restart' })).content).toEqual([{ type: 'text', text: 'after restart' }]);
    await client.close();
    await watched;

    expect(lost).toHaveLength(1);
    expect(statuses.map((status) => status.state)).toEqual([
      'idle',
      'online.connecting',
      'online.negotiating',
      'online.ready.modern',
      'reconnecting',
      'online.connecting',
      'online.negotiating',
      'online.ready.modern',
      'closed',
    ]);
    expect(statuses[3]).toEqual({ state: 'online.ready.modern', era: 'modern', generation: 1 });
    expect(statuses[7]).toEqual({ state: 'online.ready.modern', era: 'modern', generation: 2 });
    expect(statuses.at(-1)).toEqual({ state: 'closed', reason: { type: 'disconnected' }, generation: 2 });
  });
});

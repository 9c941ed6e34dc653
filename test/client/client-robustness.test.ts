/**
 * The client's own guarantees where a caller misbehaves: an already-aborted
 * signal, connect() after the end, a throwing listener, streams opened while
 * not connected. Against our server over the in-memory pair: no process
 * boundary is involved (client-robustness.process.test.ts has the HTTP peers
 * that refuse or end listen streams).
 */
import { describe, expect, it } from 'vitest';
import { createClient, type ClientEvent, type McpClient } from '../../src/client/client.ts';
import { NotConnectedError, RequestAbortedError } from '../../src/protocol/errors.ts';
import type { McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });

/** Links to a fresh fixture server of ours (both eras, as the official server the process tests use). */
function ownServerLink(): TransportFactory {
  const server = buildFixtureServer();
  servers.push(server);
  return inMemoryTransport((end) => server.serveStdio(end));
}

async function connectedClient(): Promise<McpClient> {
  const client = createClient({ transport: ownServerLink() });
  clients.push(client);
  await client.connect();
  return client;
}

describe('caller mistakes', () => {
  it('a request with an already-aborted signal rejects at once', async () => {
    const client = await connectedClient();
    const aborted = AbortSignal.abort('too late');
    await expect(client.callTool('slow', { ms: 10_000 }, { signal: aborted, timeoutMs: Infinity })).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it('connect() after the connection ended rejects instead of hanging', async () => {
    const client = await connectedClient();
    await client.close();
    await expect(client.connect()).rejects.toBeInstanceOf(NotConnectedError);
  });

  it('a throwing lifecycle listener is reported through onError and the others still hear every event', async () => {
    const client = createClient({ transport: ownServerLink() });
    clients.push(client);
    client.on('connection.ready', () => {
      throw new Error('listener bug');
    });
    const heard: ClientEvent[] = [];
    client.on('*', (event) => heard.push(event));
    const reported: Error[] = [];
    client.onError((error) => reported.push(error));
    await client.connect();
    expect(heard.map((event) => event.type)).toEqual(['connection.ready']);
    expect(reported).toMatchObject([{ message: 'listener bug' }]);
    expect(client.state).toBe('online.ready.modern');
  });
});

describe('opening streams and listeners while not connected', () => {
  it('listen and subscribeNotifications fail fast with NotConnectedError, as requests do', async () => {
    const client = createClient({ transport: ownServerLink() });
    clients.push(client);
    await expect(client.listen({ toolsListChanged: true }, () => {})).rejects.toBeInstanceOf(NotConnectedError);
    await expect(client.subscribeNotifications({ toolsListChanged: true }, () => {})).rejects.toBeInstanceOf(NotConnectedError);
  });
});

/**
 * The client against the official @modelcontextprotocol/server 2.x over
 * stdio, in a real child process, in every era mode.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import {
  ConnectionLostError,
  NegotiationError,
  NotConnectedError,
  RequestAbortedError,
  RequestTimeoutError,
  RpcError,
} from '../../src/protocol/errors.ts';
import { nextEvent, recordEvents } from '../fixtures/client-events.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients } = closedAfterEach({ clients: [] as McpClient[] });
const track = (client: McpClient) => (clients.push(client), client);

/**
 * One connected client (and so one server process) per era for the tests that only send requests on a connection
 * they neither kill nor close, and leave nothing on it that a later test could see; closed in afterAll.
 */
const sharedClients = new Map<'legacy' | 'modern', Promise<McpClient>>();
afterAll(async () => {
  const all = [...sharedClients.values()];
  sharedClients.clear();
  // A client whose connect failed has nothing to close; that test already failed.
  await Promise.all(all.map((client) => client.then((connected) => connected.close(), () => undefined)));
});
function connectedClient(era: 'legacy' | 'modern'): Promise<McpClient> {
  let client = sharedClients.get(era);
  if (!client) {
    const created = createClient({ transport: officialStdio().factory, era });
    client = created.connect().then(() => created);
    sharedClients.set(era, client);
  }
  return client;
}

const fastReconnect = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

describe('client over stdio against the official server', () => {
  it("'auto' picks the modern era on a dual-era server and exposes what it negotiated", async () => {
    const client = track(createClient({ transport: officialStdio(['--name', 'dual']).factory }));
    await client.connect();
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toMatchObject({ name: 'dual' });
    expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true } });
    expect(client.state).toBe('online.ready.modern');
  });

  it("'auto' falls back to initialize on a legacy-only server", async () => {
    const client = track(createClient({ transport: officialStdio(['--modern-off']).factory }));
    await client.connect();
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toMatchObject({ name: 'official-stdio-server' });
  });

  it("'legacy' sends initialize only, even to a dual-era server", async () => {
    // The era tests' shared legacy client is such a client: era 'legacy' against a default (dual-era) server.
    const client = await connectedClient('legacy');
    expect(client.era).toBe('legacy');
    expect(client.state).toBe('online.ready.legacy');
  });

  it("'modern' fails loudly on a legacy-only server", async () => {
    const client = track(createClient({ transport: officialStdio(['--modern-off']).factory, era: 'modern' }));
    await expect(client.connect()).rejects.toBeInstanceOf(NegotiationError);
    expect(client.state).toBe('idle');
  });

  it("'modern' works on a modern-only server", async () => {
    const client = track(createClient({ transport: officialStdio(['--legacy', 'reject']).factory, era: 'modern' }));
    await client.connect();
    expect(client.era).toBe('modern');
  });

  for (const era of ['legacy', 'modern'] as const) {
    describe(`${era} era`, () => {
      it('lists every tool, prompt and resource and calls a tool', async () => {
        const client = await connectedClient(era);
        const tools = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'slow', 'emit', 'progress']));
        expect((await client.listPrompts()).map((prompt) => prompt.name)).toContain('greeting');
        expect((await client.listResources()).map((resource) => resource.uri)).toContain('test://resource/3');
        const result = await client.callTool('echo', { text: 'hello' });
        expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
        expect(result.resultType).toBe('complete');
        const read = await client.readResource('test://resource/2');
        expect(JSON.stringify(read.contents)).toContain('test://resource/2');
      });

      it('times a request out, and the connection keeps working', async () => {
        const client = await connectedClient(era);
        const slow = client.callTool('slow', { ms: 10_000 }, { timeoutMs: 50 });
        await expect(slow).rejects.toBeInstanceOf(RequestTimeoutError);
        await expect(slow).rejects.toMatchObject({ method: 'tools/call', timeoutMs: 50 });
        expect((await client.callTool('echo', { text: 'still here' })).content).toEqual([{ type: 'text', text: 'still here' }]);
      });

      it('aborts a request through its AbortSignal', async () => {
        const client = await connectedClient(era);
        const controller = new AbortController();
        const slow = client.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
        controller.abort('user gave up');
        await expect(slow).rejects.toBeInstanceOf(RequestAbortedError);
        expect((await client.callTool('echo', { text: 'next' })).content).toEqual([{ type: 'text', text: 'next' }]);
      });

      it("routes a call's progress to its onProgress ahead of the fallback handler", async () => {
        const client = await connectedClient(era);
        const fallback: unknown[] = [];
        const removeFallback = client.onNotification('notifications/progress', (params) => fallback.push(params));
        const progress: unknown[] = [];
        await client.callTool('progress', { steps: 3 }, { onProgress: (params) => progress.push(params.progress) });
        // The client outlives this test: leave no handler on it.
        removeFallback();
        expect(progress).toEqual([1, 2, 3]);
        expect(fallback).toEqual([]);
      });

      it('answers a server error as a typed RpcError', async () => {
        const client = await connectedClient(era);
        await expect(client.readResource('test://missing')).rejects.toBeInstanceOf(RpcError);
      });

      it('reconnects after the server process is killed, and re-negotiates', async () => {
        const peer = officialStdio();
        const client = track(createClient({ transport: peer.factory, era, reconnect: fastReconnect }));
        await client.connect();
        const events = recordEvents(client);
        const pending = client.callTool('slow', { ms: 10_000 });
        const ready = nextEvent(client, 'connection.ready');
        peer.kill();
        await expect(pending).rejects.toBeInstanceOf(ConnectionLostError);
        await ready;
        expect(events.map((event) => event.type)).toEqual(['connection.lost', 'connection.reconnecting', 'connection.ready']);
        expect(events[1]).toMatchObject({ attempt: 1 });
        expect(peer.transports).toHaveLength(2);
        expect(client.era).toBe(era);
        expect((await client.callTool('echo', { text: 'back' })).content).toEqual([{ type: 'text', text: 'back' }]);
      });
    });
  }

  it('fails requests fast with NotConnectedError while reconnecting', async () => {
    const peer = officialStdio([], { failAfter: 1 });
    const client = track(createClient({ transport: peer.factory, reconnect: { maxAttempts: 2, baseDelayMs: 5_000, maxDelayMs: 5_000 } }));
    await client.connect();
    const reconnecting = nextEvent(client, 'connection.reconnecting');
    peer.kill();
    await reconnecting;
    await expect(client.listTools()).rejects.toBeInstanceOf(NotConnectedError);
    await expect(client.listTools()).rejects.toMatchObject({ state: 'reconnecting' });
  });

  it('ends as reconnect_exhausted when the server cannot be restarted', async () => {
    const peer = officialStdio([], { failAfter: 1 });
    const client = track(createClient({ transport: peer.factory, reconnect: fastReconnect }));
    await client.connect();
    peer.kill();
    const reason = await client.closed;
    expect(reason).toMatchObject({ type: 'reconnect_exhausted', attempts: 3 });
    expect(peer.transports).toHaveLength(4);
  });

  it('ends as transport_closed when reconnection is disabled', async () => {
    const peer = officialStdio();
    const client = track(createClient({ transport: peer.factory, reconnect: false }));
    await client.connect();
    peer.kill();
    const reason = await client.closed;
    expect(reason.type).toBe('transport_closed');
    expect(String((reason as { cause: Error }).cause.message)).toContain('SIGKILL');
  });

  it('disconnect() gives disconnected and stops the server process', async () => {
    const peer = officialStdio();
    const client = createClient({ transport: peer.factory });
    await client.connect();
    await client.close();
    expect(await client.closed).toEqual({ type: 'disconnected' });
    expect(() => process.kill(peer.transports[0]!.pid!, 0)).toThrow();
  });
});

/**
 * Modern listen streams against the official @modelcontextprotocol/server
 * 2.x over stdio (serveStdio) and loopback HTTP (createMcpHandler), in real
 * child processes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';
import type { ListenStream } from '../../src/client/subscription.ts';
import { WrongEraError } from '../../src/protocol/errors.ts';
import { httpTransport } from '../../src/transport/http.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';

const clients: McpClient[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.disconnect()));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
});

const fastReconnect = { maxAttempts: 40, baseDelayMs: 10, maxDelayMs: 200 };

/** One server per test, reachable over the named transport, with a way to kill, restart and stop it. */
interface Server {
  factory: TransportFactory;
  kill(): Promise<void>;
  restart(): Promise<void>;
  terminate(): Promise<void>;
}

async function serve(transport: 'stdio' | 'http', args: string[] = []): Promise<Server> {
  if (transport === 'stdio') {
    const peer = officialStdio(args);
    return {
      factory: peer.factory,
      kill: async () => peer.kill(),
      // The client respawns a stdio server itself when it reconnects.
      restart: async () => {},
      terminate: async () => peer.kill('SIGTERM'),
    };
  }
  const fixture = await startHttpFixture('official', { args });
  fixtures.push(fixture);
  return {
    factory: httpTransport({ url: fixture.url }),
    kill: () => fixture.kill(),
    restart: () => fixture.restart(),
    terminate: () => fixture.kill('SIGTERM'),
  };
}

async function connect(server: Server, options: { reconnect?: typeof fastReconnect | false } = {}): Promise<McpClient> {
  const client = createClient({ transport: server.factory, reconnect: options.reconnect ?? fastReconnect });
  clients.push(client);
  await client.connect();
  expect(client.era).toBe('modern');
  return client;
}

const emit = (client: McpClient, kind: string, uri?: string) => client.callTool('emit', { kind, ...(uri ? { uri } : {}) });

for (const transport of ['stdio', 'http'] as const) {
  describe(`listen over ${transport} against the official server`, () => {
    it('opens with the honored filter the server acknowledged', async () => {
      const client = await connect(await serve(transport));
      const stream = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, () => {});
      expect(stream.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] });
      expect(stream.requestedFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] });
    });

    it('delivers the requested types only, and each stream only its own events', async () => {
      const client = await connect(await serve(transport));
      const tools = inbox();
      const resource = inbox();
      await client.listen({ toolsListChanged: true }, tools.subscriber);
      await client.listen({ resourceSubscriptions: ['test://resource/1'] }, resource.subscriber);
      const fallback: string[] = [];
      client.onNotification('*', (_params, method) => fallback.push(method));
      const toolChange = tools.next('notification');
      const update = resource.next('notification');
      await emit(client, 'prompts');
      await emit(client, 'updated', 'test://resource/2');
      await emit(client, 'tools');
      await emit(client, 'updated', 'test://resource/1');
      await toolChange;
      await update;
      await client.callTool('echo', { text: 'barrier' });
      expect(tools.notifications()).toEqual(['notifications/tools/list_changed']);
      expect(resource.notifications()).toEqual(['notifications/resources/updated test://resource/1']);
      expect(fallback).toEqual([]);
    });

    it('close() gives local, exactly once, and nothing is delivered after it', async () => {
      const client = await connect(await serve(transport));
      const box = inbox();
      const stream: ListenStream = await client.listen({ toolsListChanged: true }, box.subscriber);
      stream.close();
      stream.close();
      expect(await stream.closed).toEqual({ type: 'local' });
      await emit(client, 'tools');
      await client.callTool('echo', { text: 'barrier' });
      expect(box.notifications()).toEqual([]);
      expect(box.messages.filter((message) => message.type === 'closed')).toHaveLength(1);
    });

    it('a server shutdown ends the stream as graceful', async () => {
      const server = await serve(transport);
      const client = await connect(server);
      const stream = await client.listen({ toolsListChanged: true }, () => {});
      await server.terminate();
      expect(await stream.closed).toEqual({ type: 'graceful' });
    });

    it('survives a server restart: paused, same subscription id re-sent, reconnected with a snapshot, then live events', async () => {
      const server = await serve(transport);
      const client = await connect(server);
      const box = inbox();
      const stream = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, box.subscriber);
      const states: string[] = [];
      stream.actor.subscribe((snapshot) => states.push(JSON.stringify(snapshot.value)));
      const reconnected = box.next('reconnected');
      await server.kill();
      await server.restart();
      const message = await reconnected;
      expect(states.some((state) => state.includes('paused'))).toBe(true);
      expect(stream.id).toBe(box.messages[0]!.ref.id);
      expect(message).toMatchObject({ type: 'reconnected', ref: { kind: 'stream', id: stream.id } });
      const snapshot = (message as Extract<SubscriberMessage, { snapshot: unknown }>).snapshot;
      expect(snapshot.tools?.map((tool) => tool.name)).toContain('echo');
      expect(Object.keys(snapshot.contents ?? {})).toEqual(['test://resource/1']);
      const live = box.next('notification');
      await emit(client, 'updated', 'test://resource/1');
      expect(await live).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'test://resource/1' } });
    });

    it('ends as remote when the stream is lost with reconnection off', async () => {
      const server = await serve(transport);
      const client = await connect(server, { reconnect: false });
      const stream = await client.listen({ toolsListChanged: true }, () => {});
      await server.kill();
      if (transport === 'http') await client.listTools().catch(() => undefined);
      expect((await stream.closed).type).toBe('remote');
    });

    it('a slow subscriber with a small cap ends the stream as delivery_dropped', async () => {
      const client = await connect(await serve(transport));
      const iterator = await client.listen({ toolsListChanged: true }, 'iterator', { mailboxCap: 2 });
      await client.callTool('emit', { kind: 'tools', count: 5 });
      expect(await iterator.closed).toEqual({ type: 'delivery_dropped', cap: 2 });
      const seen: SubscriberMessage[] = [];
      const failure = await (async () => {
        for await (const message of iterator) seen.push(message);
      })().catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'DeliveryDroppedError' });
      expect(seen.filter((message) => message.type === 'notification')).toHaveLength(2);
    });
  });
}

describe('how a restart can end a stream', () => {
  it('a reconnect that lands on a legacy server ends it as era_changed', async () => {
    const peer = officialStdio([], { restartArgs: ['--modern-off'] });
    const client = createClient({ transport: peer.factory, reconnect: fastReconnect });
    clients.push(client);
    await client.connect();
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    peer.kill();
    expect(await stream.closed).toEqual({ type: 'era_changed', era: 'legacy' });
  });

  it('exhausted reconnection ends it as reconnect_exhausted', async () => {
    const peer = officialStdio([], { failAfter: 1 });
    const client = createClient({ transport: peer.factory, reconnect: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } });
    clients.push(client);
    await client.connect();
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    peer.kill();
    expect(await stream.closed).toMatchObject({ type: 'reconnect_exhausted', attempts: 2 });
  });

  it('disconnect() ends it as disconnected', async () => {
    const client = createClient({ transport: officialStdio().factory });
    await client.connect();
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    await client.disconnect();
    expect(await stream.closed).toEqual({ type: 'disconnected' });
  });
});

describe('listen on a legacy connection', () => {
  it('rejects with the typed error and sends nothing', async () => {
    const client = createClient({ transport: officialStdio(['--modern-off']).factory });
    clients.push(client);
    await client.connect();
    expect(client.era).toBe('legacy');
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongEraError);
    expect(failure).toMatchObject({ code: 'use_subscribe_notifications' });
  });
});

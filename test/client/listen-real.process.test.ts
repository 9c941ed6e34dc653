import { streamActorOf } from '../../src/testing/index.ts';
/**
 * Modern listen streams against the official @modelcontextprotocol/server
 * 2.x over stdio (serveStdio) and loopback HTTP (createMcpHandler), in real
 * child processes. What the client puts on the wire (listen requests,
 * cancellations, aborted response streams) is recorded beside the transport
 * (recording-transport.ts) and asserted where the issue names it.
 */
import { afterAll, afterEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';
import type { ListenStream } from '../../src/client/subscription.ts';
import { WrongEraError } from '../../src/protocol/errors.ts';
import { httpTransport } from '../../src/transport/http.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { sharedHttpFixtures } from '../fixtures/shared-http-fixtures.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';
import { cuttableFetch, recordingFetch, WireRecord, type RecordingFetch, type SentCall } from './recording-transport.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, fixtures } = closedAfterEach({ clients: [] as McpClient[], fixtures: [] as HttpFixture[] });

// Tests that leave the HTTP server up share one per kind; the tests that leave their connection up too share one
// connected client per transport (sharedConnection, below).
const sharedServers = sharedHttpFixtures();

const fastReconnect = { maxAttempts: 40, baseDelayMs: 10, maxDelayMs: 200 };
/**
 * A server reachable over the named transport, with a way to kill, restart
 * and stop it. `wire` records what the client sends it; over HTTP `posts`
 * records each POST with the abort signal of its response. A stdio server is
 * the client's own; an HTTP one is this test's own unless `shared` (then the
 * test must not kill, restart or stop it).
 */
interface Server {
  factory: TransportFactory;
  wire: WireRecord;
  posts: RecordingFetch | undefined;
  kill(): Promise<void>;
  restart(): Promise<void>;
  terminate(): Promise<void>;
}

async function serve(transport: 'stdio' | 'http', { shared = false }: { shared?: boolean } = {}): Promise<Server> {
  if (transport === 'stdio') {
    const peer = officialStdio();
    const wire = new WireRecord(peer.factory);
    return {
      factory: wire.factory,
      wire,
      posts: undefined,
      kill: async () => peer.kill(),
      // The client respawns a stdio server itself when it reconnects.
      restart: async () => {},
      terminate: async () => peer.kill('SIGTERM'),
    };
  }
  const fixture = shared ? await sharedServers.get('official') : await startHttpFixture('official');
  if (!shared) fixtures.push(fixture);
  const posts = recordingFetch();
  const wire = new WireRecord(httpTransport({ url: fixture.url, fetch: posts.fetch }));
  return {
    factory: wire.factory,
    wire,
    posts,
    kill: () => fixture.kill(),
    restart: () => fixture.restart(),
    terminate: () => fixture.kill('SIGTERM'),
  };
}

/** A connected client the tests of a transport share, with what each test opened on it. */
interface SharedConnection {
  client: McpClient;
  server: Server;
  listens: MockInstance<McpClient['listen']>;
  handlers: MockInstance<McpClient['onNotification']>;
}

// A stdio server is one per client, so a client of its own costs a test a child start (~0.4 s of CPU). The tests that
// neither kill, restart nor close their connection share one modern client per transport instead; afterEach closes every
// stream and notification handler the test opened on it, so nothing a test opened hears a later test's events.
const sharedConnections = new Map<'stdio' | 'http', Promise<SharedConnection>>();

/** The shared connection of `transport` (connected on first use), its wire record emptied for the calling test. */
async function sharedConnection(transport: 'stdio' | 'http'): Promise<SharedConnection> {
  let connection = sharedConnections.get(transport);
  if (!connection) {
    connection = (async () => {
      const server = await serve(transport, { shared: true });
      const client = createClient({ transport: server.factory, reconnect: fastReconnect });
      const shared = { client, server, listens: vi.spyOn(client, 'listen'), handlers: vi.spyOn(client, 'onNotification') };
      await client.connect();
      return shared;
    })();
    sharedConnections.set(transport, connection);
  }
  const shared = await connection;
  expect(shared.client.era).toBe('modern');
  shared.server.wire.sent.splice(0);
  shared.server.wire.aborted.splice(0);
  return shared;
}

afterEach(async () => {
  for (const connection of sharedConnections.values()) {
    const { listens, handlers } = await connection;
    const streams = listens.mock.settledResults.flatMap((result) => (result.type === 'fulfilled' ? [result.value] : []));
    for (const stream of streams) stream.close();
    await Promise.all(streams.map((stream) => stream.closed));
    for (const result of handlers.mock.results) if (result.type === 'return') result.value();
    listens.mockClear();
    handlers.mockClear();
  }
});

afterAll(async () => {
  const connections = [...sharedConnections.values()];
  sharedConnections.clear();
  await Promise.all(connections.map(async (connection) => (await connection).client.close()));
  await sharedServers.stopAll();
});

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
      const { client } = await sharedConnection(transport);
      const stream = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, () => {});
      expect(stream.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] });
      expect(stream.requestedFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] });
    });

    it('delivers the requested types only, and each stream only its own events', async () => {
      const { client } = await sharedConnection(transport);
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
      const { client } = await sharedConnection(transport);
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
      const filter = { toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] };
      const stream = await client.listen(filter, box.subscriber);
      // How much the client had sent when the stream paused: the re-listen must come after.
      let sentWhenPaused: number | undefined;
      streamActorOf(stream).subscribe((snapshot) => {
        if (sentWhenPaused === undefined && snapshot.value === 'paused') sentWhenPaused = server.wire.sent.length;
      });
      const reconnected = box.next('reconnected');
      await server.kill();
      await server.restart();
      const message = await reconnected;
      expect(sentWhenPaused).toBeDefined();
      const listens = server.wire.calls('subscriptions/listen');
      expect(listens.map((listen) => listen.id)).toEqual([stream.id, stream.id]);
      const [first, again] = listens as [SentCall, SentCall];
      expect(first.attempt).toBe(0);
      expect(again.attempt).toBeGreaterThan(0);
      expect(again.index).toBeGreaterThanOrEqual(sentWhenPaused!);
      expect(again.params.notifications).toEqual(filter);
      expect(message).toMatchObject({ type: 'reconnected', ref: { kind: 'stream', id: stream.id } });
      const snapshot = (message as Extract<SubscriberMessage, { snapshot: unknown }>).snapshot;
      expect(snapshot.tools?.map((tool) => tool.name)).toContain('echo');
      expect(Object.keys(snapshot.contents ?? {})).toEqual(['test://resource/1']);
      const live = box.next('notification');
      await emit(client, 'updated', 'test://resource/1');
      expect(await live).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'test://resource/1' } });
      expect(box.messages.map((delivered) => delivered.type)).toEqual(['reconnected', 'notification']);
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
      const { client } = await sharedConnection(transport);
      const iterator = await client.listen({ toolsListChanged: true }, { mailboxCap: 2 });
      await client.callTool('emit', { kind: 'tools', count: 5 });
      expect(await iterator.closed).toEqual({ type: 'delivery_dropped', cap: 2 });
      const seen: SubscriberMessage[] = [];
      const failure = await (async () => {
        for await (const message of iterator) seen.push(message);
      })().catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'DeliveryDroppedError' });
      expect(seen.filter((message) => message.type === 'notification')).toHaveLength(2);
    });

    it('after delivery_dropped, calling listen again resubscribes', async () => {
      const { client } = await sharedConnection(transport);
      const dropped = await client.listen({ toolsListChanged: true }, { mailboxCap: 1 });
      await client.callTool('emit', { kind: 'tools', count: 3 });
      expect(await dropped.closed).toEqual({ type: 'delivery_dropped', cap: 1 });
      const again = await client.listen({ toolsListChanged: true });
      expect(again.id).not.toBe(dropped.id);
      const next = again[Symbol.asyncIterator]().next();
      await emit(client, 'tools');
      expect((await next).value).toMatchObject({ type: 'notification', method: 'notifications/tools/list_changed' });
    });
  });
}

describe('close() cancels the listen on the wire as the transport allows', () => {
  it('over stdio it sends notifications/cancelled for the listen request id, and the server stops sending for it', async () => {
    const { client, server } = await sharedConnection('stdio');
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    expect(server.wire.calls('subscriptions/listen').map((listen) => listen.id)).toEqual([stream.id]);
    // Once the route is gone, anything the server still tags with this id falls through to here.
    const strays: unknown[] = [];
    client.onNotification('*', (params) => strays.push(params));
    stream.close();
    stream.close();
    expect(await stream.closed).toEqual({ type: 'local' });
    await emit(client, 'tools');
    await client.callTool('echo', { text: 'barrier' });
    const cancels = server.wire.calls('notifications/cancelled');
    expect(cancels.map((cancel) => cancel.params.requestId)).toEqual([stream.id]);
    expect(cancels[0]!.attempt).toBe(0);
    expect(server.wire.aborted).toEqual([{ attempt: 0, id: stream.id, hadStream: false }]);
    expect(strays).toEqual([]);
  });

  it('over HTTP it aborts that listen’s response stream and sends no cancel', async () => {
    const server = await serve('http', { shared: true });
    const client = await connect(server);
    const otherBox = inbox();
    const other = await client.listen({ promptsListChanged: true }, otherBox.subscriber);
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    const post = server.posts!.request('subscriptions/listen', stream.id);
    const otherPost = server.posts!.request('subscriptions/listen', other.id);
    expect(post?.signal?.aborted).toBe(false);
    stream.close();
    stream.close();
    expect(await stream.closed).toEqual({ type: 'local' });
    expect(post!.signal!.aborted).toBe(true);
    await client.callTool('echo', { text: 'barrier' });
    expect(server.wire.aborted).toEqual([{ attempt: 0, id: stream.id, hadStream: true }]);
    expect(server.wire.calls('notifications/cancelled')).toEqual([]);
    expect(server.posts!.posts.filter(({ message }) => 'method' in message && message.method === 'notifications/cancelled')).toEqual([]);
    // Only that stream: the other listen's response stream is still open and delivering.
    expect(otherPost?.signal?.aborted).toBe(false);
    const delivered = otherBox.next('notification');
    await emit(client, 'prompts');
    expect(await delivered).toMatchObject({ method: 'notifications/prompts/list_changed' });
  });
});

describe('a listen stream cut on the way (the official server still up), over HTTP', () => {
  async function cutClient(reconnect: typeof fastReconnect | false) {
    const fixture = await sharedServers.get('official');
    const cut = cuttableFetch();
    const client = createClient({ transport: httpTransport({ url: fixture.url, fetch: cut.fetch }), reconnect });
    clients.push(client);
    await client.connect();
    return { client, cut };
  }

  it('with reconnection on, listens again under the same id, resyncs, then delivers live events', async () => {
    const { client, cut } = await cutClient(fastReconnect);
    const box = inbox();
    const stream = await client.listen({ toolsListChanged: true }, box.subscriber);
    const reconnected = box.next('reconnected');
    cut.cutListens();
    expect(await reconnected).toMatchObject({ type: 'reconnected', snapshot: { tools: expect.any(Array) } });
    expect(cut.listenIds).toEqual([stream.id, stream.id]);
    const live = box.next('notification');
    await emit(client, 'tools');
    expect(await live).toMatchObject({ method: 'notifications/tools/list_changed' });
    expect(client.state).toBe('online.ready.modern');
  });

  it('with reconnection off, ends as remote and the connection stays up', async () => {
    const { client, cut } = await cutClient(false);
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    cut.cutListens();
    expect(await stream.closed).toMatchObject({ type: 'remote' });
    expect(cut.listenIds).toEqual([stream.id]);
    expect(client.state).toBe('online.ready.modern');
  });
});

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
    await client.close();
    expect(await stream.closed).toEqual({ type: 'disconnected' });
  });
});

describe('listen on a legacy connection', () => {
  const legacyServers = {
    stdio: async () => new WireRecord(officialStdio(['--modern-off']).factory),
    http: async () => {
      const fixture = await sharedServers.get('legacy');
      return new WireRecord(httpTransport({ url: fixture.url }));
    },
  };

  it.each(['stdio', 'http'] as const)('over %s rejects with the typed error and sends nothing', async (transport) => {
    const wire = await legacyServers[transport]();
    const client = createClient({ transport: wire.factory });
    clients.push(client);
    await client.connect();
    expect(client.era).toBe('legacy');
    const before = wire.sent.length;
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongEraError);
    expect(failure).toMatchObject({ code: 'use_subscribe_notifications' });
    // A request after it: whatever listen might have sent would be on the wire before this.
    await client.callTool('echo', { text: 'barrier' });
    expect(wire.sent.slice(before).map(({ message }) => ('method' in message ? message.method : 'response'))).toEqual(['tools/call']);
    expect(wire.calls('subscriptions/listen')).toEqual([]);
  });
});

/**
 * Legacy notification listeners against real legacy peers: the official
 * @modelcontextprotocol/server 2.x over stdio in the legacy era (its fixture
 * records the server-side subscription set), the SDK 1.x sessionful HTTP
 * server, and @modelcontextprotocol/server-everything over stdio.
 */
import { afterAll, afterEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { NotificationFilter } from '../../src/protocol/filter.ts';
import { createActor, createMachine } from 'xstate';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { ListenerNotFoundError, SubscribeFailedError } from '../../src/client/listeners.ts';
import { FilterError } from '../../src/protocol/filter.ts';
import { WrongEraError } from '../../src/protocol/errors.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { everythingStdio, officialStdio, type PeerOptions, type SpawnedPeer } from '../fixtures/stdio-peers.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, fixtures } = closedAfterEach({ clients: [] as McpClient[], fixtures: [] as HttpFixture[] });

const fastReconnect = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

async function legacyClient(args: string[] = [], peerOptions: PeerOptions = {}, reconnect: typeof fastReconnect | false = fastReconnect) {
  const peer = officialStdio(['--modern-off', ...args], peerOptions);
  const client = createClient({ transport: peer.factory, reconnect });
  clients.push(client);
  await client.connect();
  expect(client.era).toBe('legacy');
  return { peer, client };
}

/** The legacy client the listener tests that leave their connection up share, with the listeners each test added. */
interface SharedLegacyClient {
  client: McpClient;
  subscriptions: MockInstance<McpClient['subscribeNotifications']>;
}

// A stdio server is one per client, so a client of its own costs a test a child start (~0.4 s of CPU). The tests that
// neither kill, restart nor close their connection share one; afterEach removes every listener the test added, and each
// test starts from a server with no subscription of this session. test://resource/3 is the one URI that fails to
// subscribe (the rollback test's), and no other test names it.
let sharedLegacy: Promise<SharedLegacyClient> | undefined;

/** The shared legacy client (connected on first use), its session subscribed to nothing. */
async function sharedLegacyClient(): Promise<{ client: McpClient }> {
  sharedLegacy ??= (async () => {
    const client = createClient({ transport: officialStdio(['--modern-off', '--fail-subscribe', 'test://resource/3']).factory, reconnect: fastReconnect });
    const shared = { client, subscriptions: vi.spyOn(client, 'subscribeNotifications') };
    await client.connect();
    return shared;
  })();
  const { client } = await sharedLegacy;
  expect(client.era).toBe('legacy');
  expect(await serverSubscriptions(client)).toEqual([]);
  return { client };
}

afterEach(async () => {
  if (!sharedLegacy) return;
  const { client, subscriptions } = await sharedLegacy;
  const refs = subscriptions.mock.settledResults.flatMap((result) => (result.type === 'fulfilled' ? [result.value] : []));
  subscriptions.mockClear();
  // A listener its subscriber already released (iterator ended, signal aborted, actor stopped) is gone: nothing to remove.
  await Promise.all(refs.map((ref) => client.unsubscribeNotifications(ref).catch((error: unknown) => {
    if (!(error instanceof ListenerNotFoundError)) throw error;
  })));
});

afterAll(async () => {
  const shared = sharedLegacy;
  sharedLegacy = undefined;
  if (shared) await (await shared).client.close();
});

/** The server's own record of which URIs this session subscribed. */
async function serverSubscriptions(client: McpClient): Promise<string[]> {
  const result = await client.callTool('subscriptions');
  return JSON.parse((result.content as { text: string }[])[0]!.text) as string[];
}

const emit = (client: McpClient, kind: string, uri?: string) => client.callTool('emit', { kind, ...(uri ? { uri } : {}) });

describe('legacy listeners against the official server over stdio', () => {
  it('delivers only what each filter selects, a copy to each matching listener', async () => {
    const { client } = await sharedLegacyClient();
    const tools = inbox();
    const resource = inbox();
    const both = inbox();
    await client.subscribeNotifications({ toolsListChanged: true }, tools.subscriber);
    // This subscriber scribbles on what it gets: the others must not see it (each listener has its own copy).
    await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/1'] }, (message: SubscriberMessage) => {
      resource.subscriber(message);
      if (message.type === 'notification') message.params.scribbled = true;
    });
    await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, both.subscriber);
    await emit(client, 'tools');
    await emit(client, 'prompts');
    await emit(client, 'updated', 'test://resource/1');
    // The legacy server sends this one unconditionally; no listener named the URI.
    await emit(client, 'updated', 'test://resource/2');
    await client.callTool('echo', { text: 'barrier' });
    expect(tools.notifications()).toEqual(['notifications/tools/list_changed']);
    expect(resource.notifications()).toEqual(['notifications/resources/updated test://resource/1']);
    expect(both.notifications()).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/updated test://resource/1',
    ]);
    const updates = (box: typeof both) => box.messages.flatMap((message) => (message.type === 'notification' && message.method.endsWith('updated') ? [message.params] : []));
    expect(updates(resource)).toEqual([{ uri: 'test://resource/1', scribbled: true }]);
    expect(updates(both)).toEqual([{ uri: 'test://resource/1' }]);
  });

  it('subscribes a shared URI once and unsubscribes it only with its last listener', async () => {
    const { client } = await sharedLegacyClient();
    const first = await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/1'] }, () => {});
    const second = await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/1', 'test://resource/2'] }, () => {});
    expect(await serverSubscriptions(client)).toEqual(['test://resource/1', 'test://resource/2']);
    await client.unsubscribeNotifications(first);
    expect(await serverSubscriptions(client)).toEqual(['test://resource/1', 'test://resource/2']);
    await client.unsubscribeNotifications(second);
    expect(await serverSubscriptions(client)).toEqual([]);
    await expect(client.unsubscribeNotifications(second)).rejects.toBeInstanceOf(ListenerNotFoundError);
  });

  it('rolls back a failed registration without touching another listener’s URI', async () => {
    const { client } = await sharedLegacyClient();
    await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/1'] }, () => {});
    const failure = await client
      .subscribeNotifications({ resourceSubscriptions: ['test://resource/1', 'test://resource/2', 'test://resource/3'] }, () => {})
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SubscribeFailedError);
    expect(failure).toMatchObject({ code: 'subscribe_failed', uri: 'test://resource/3' });
    expect(await serverSubscriptions(client)).toEqual(['test://resource/1']);
  });

  it('rejects bad filters with typed errors and sends nothing', async () => {
    const { client } = await sharedLegacyClient();
    for (const filter of [{}, { taskIds: ['t'] }, { bogus: true }, { toolsListChanged: 'yes' }, { resourceSubscriptions: ['not a uri'] }]) {
      // Typed as a filter read from JSON would be: only the run-time check stands between it and the wire.
      await expect(client.subscribeNotifications(filter as unknown as NotificationFilter, () => {})).rejects.toBeInstanceOf(FilterError);
    }
    expect(await serverSubscriptions(client)).toEqual([]);
  });

  it('releases the URIs of a subscriber that goes away: iterator ended, signal aborted, actor stopped', async () => {
    const { client } = await sharedLegacyClient();
    const iterable = await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/1'] });
    const controller = new AbortController();
    await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/2'] }, () => {}, { signal: controller.signal });
    const actor = createActor(createMachine({ on: { '*': {} } })).start();
    await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/4'] }, actor);
    expect(await serverSubscriptions(client)).toEqual(['test://resource/1', 'test://resource/2', 'test://resource/4']);

    await emit(client, 'updated', 'test://resource/1');
    for await (const message of iterable) {
      expect(message).toMatchObject({ type: 'notification', params: { uri: 'test://resource/1' } });
      break;
    }
    controller.abort();
    actor.stop();
    await expect.poll(() => serverSubscriptions(client), { timeout: 10_000 }).toEqual([]);
  });

  it('survives a server restart: pause, re-subscription, then reconnected with resubscribed and failed URIs', async () => {
    const { peer, client } = await legacyClient([], { restartArgs: ['--modern-off', '--fail-subscribe', 'test://resource/2'] });
    const box = inbox();
    await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1', 'test://resource/2'] }, box.subscriber);
    const reconnected = box.next('reconnected');
    peer.kill();
    const message = await reconnected;
    expect(message).toMatchObject({
      type: 'reconnected',
      report: { resubscribed: ['test://resource/1'], failed: [{ uri: 'test://resource/2' }] },
    });
    expect(await serverSubscriptions(client)).toEqual(['test://resource/1']);
    await emit(client, 'updated', 'test://resource/1');
    await client.callTool('echo', { text: 'barrier' });
    expect(box.notifications()).toEqual(['notifications/resources/updated test://resource/1']);
  });

  it('pauses while the restarted server re-subscribes: what it sends meanwhile never precedes reconnected', async () => {
    // The restarted server sends an update for the URI and a tools list change before answering each resources/subscribe.
    const { peer, client } = await legacyClient([], { restartArgs: ['--modern-off', '--notify-on-subscribe'] });
    // One timeline: connection lifecycle, what reached the client on the wire, and what reached the subscriber.
    const timeline: string[] = [];
    const label = (method: string, params: Record<string, unknown>) => `${method} ${String(params.uri ?? '')}`.trim();
    const box = inbox();
    const subscriber = (message: SubscriberMessage) => {
      timeline.push(message.type === 'notification' ? `subscriber ${label(message.method, message.params)}` : `subscriber ${message.type}`);
      box.subscriber(message);
    };
    await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1', 'test://resource/2'] }, subscriber);
    client.on('connection.lost', (event) => timeline.push(event.type));
    client.on('connection.ready', (event) => timeline.push(event.type));
    for (const method of ['notifications/resources/updated', 'notifications/tools/list_changed']) {
      client.onNotification(method, (params) => timeline.push(`wire ${label(method, params)}`));
    }

    const reconnected = box.next('reconnected');
    peer.kill();
    expect(await reconnected).toMatchObject({
      type: 'reconnected',
      report: { resubscribed: ['test://resource/1', 'test://resource/2'], failed: [] },
    });
    expect(await serverSubscriptions(client)).toEqual(['test://resource/1', 'test://resource/2']);
    const update = box.next('notification');
    await emit(client, 'updated', 'test://resource/2');
    await update;

    // Everything the server sent while the worker re-subscribed arrived after the connection was
    // ready and before reconnected, and none of it reached the subscriber: reconnected tells it to
    // treat every list and URI as changed, which covers them (machines/listener.machine.ts).
    expect(timeline).toEqual([
      'connection.lost',
      'connection.ready',
      'wire notifications/resources/updated test://resource/1',
      'wire notifications/tools/list_changed',
      'wire notifications/resources/updated test://resource/2',
      'wire notifications/tools/list_changed',
      'subscriber reconnected',
      'wire notifications/resources/updated test://resource/2',
      'subscriber notifications/resources/updated test://resource/2',
    ]);
  });

  it.each([
    ['reconnect_exhausted', { failAfter: 1 }, fastReconnect],
    ['transport_closed', {}, false],
  ] as const)('closes every listener as %s', async (reason, peerOptions, reconnect) => {
    const { peer, client } = await legacyClient([], peerOptions, reconnect);
    const box = inbox();
    await client.subscribeNotifications({ toolsListChanged: true }, box.subscriber);
    const closed = box.next('closed');
    peer.kill();
    expect(await closed).toMatchObject({ type: 'closed', reason: { type: reason } });
  });

  it('closes listeners as era_changed when the restarted server is modern', async () => {
    const peer: SpawnedPeer = officialStdio(['--modern-off'], { restartArgs: [] });
    const client = createClient({ transport: peer.factory, reconnect: fastReconnect });
    clients.push(client);
    await client.connect();
    const box = inbox();
    await client.subscribeNotifications({ toolsListChanged: true }, box.subscriber);
    const closed = box.next('closed');
    peer.kill();
    expect(await closed).toMatchObject({ reason: { type: 'era_changed', era: 'modern' } });
    await expect.poll(() => client.era, { timeout: 10_000 }).toBe('modern');
  });

  it.each(['disconnected', 'shutdown'] as const)('closes listeners as %s', async (reason) => {
    const { client } = await legacyClient();
    const box = inbox();
    await client.subscribeNotifications({ toolsListChanged: true }, box.subscriber);
    const closed = box.next('closed');
    if (reason === 'disconnected') await client.close();
    else await client.shutdown('test over');
    expect(await closed).toMatchObject({ reason: { type: reason } });
  });

  it('refuses on a modern connection with a typed error and sends nothing', async () => {
    const client = createClient({ transport: officialStdio(['--record-received']).factory });
    clients.push(client);
    await client.connect();
    expect(client.era).toBe('modern');
    // The server's own record of every method it has received, this `received` call included.
    const received = async () => JSON.parse(((await client.callTool('received')).content as { text: string }[])[0]!.text) as string[];
    const before = await received();
    expect(before.at(-1)).toBe('tools/call');
    const failure = await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/1'] }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongEraError);
    expect(failure).toMatchObject({ code: 'use_listen' });
    // Only the next `received` call itself reached the server.
    expect(await received()).toEqual([...before, 'tools/call']);
  });
});

describe('legacy listeners against the SDK 1.x sessionful HTTP server', () => {
  it('subscribes through the session and receives updates on the GET stream', async () => {
    const fixture = await startHttpFixture('legacy');
    fixtures.push(fixture);
    const client = createClient({ transport: httpTransport({ url: fixture.url }) });
    clients.push(client);
    await client.connect();
    const box = inbox();
    const ref = await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/5'], toolsListChanged: true }, box.subscriber);
    expect(await serverSubscriptions(client)).toEqual(['test://resource/5']);
    const update = box.next('notification');
    await emit(client, 'updated', 'test://resource/5');
    expect(await update).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'test://resource/5' } });
    await client.unsubscribeNotifications(ref);
    expect(await serverSubscriptions(client)).toEqual([]);
  });
});

describe('legacy listeners against server-everything over stdio', () => {
  it('subscribes, then sees its simulated updates arrive', async () => {
    const client = createClient({ transport: everythingStdio().factory });
    clients.push(client);
    await client.connect();
    expect(client.era).toBe('legacy');
    const uri = 'demo://resource/static/document/architecture.md';
    const box = inbox();
    const update = box.next('notification');
    await client.subscribeNotifications({ resourceSubscriptions: [uri] }, box.subscriber);
    await client.callTool('toggle-subscriber-updates');
    expect(await update).toMatchObject({ method: 'notifications/resources/updated', params: { uri } });
    await client.callTool('toggle-subscriber-updates');
  });
});

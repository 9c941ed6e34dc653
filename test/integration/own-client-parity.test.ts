/**
 * Parity: our client against our server shows every behaviour the server's
 * tests show with the official client (test/server/stdio-official.process.test.ts,
 * http-official.process.test.ts), over the in-memory linked pair (the stdio framing,
 * the server serving it as its stdio) and loopback HTTP, the fixture server
 * in this process either way. Process boundaries are not the subject here:
 * own-stack.process.test.ts kills and restarts a real stdio child.
 *
 * Each behaviour is observed twice: at our client's API (streams, listeners,
 * onProgress, fallback handlers) and at the wire (every frame the transport
 * delivered), because the client filters by the honored filter and would
 * hide a server that sent too much.
 *
 * The in-memory stage links one connection, as one stdio process serves one,
 * so where the HTTP version has two sessions on one server it has one: there
 * the second party is the caller's own other stream or listener on the same
 * connection.
 */
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { ListenerRef } from '../../src/client/listeners.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import type { ListenStream } from '../../src/client/subscription.ts';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification } from '../../src/protocol/jsonrpc.ts';
import { MetaKey, type Era } from '../../src/protocol/versions.ts';
import type { McpServer } from '../../src/server/index.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const TOOLS_CHANGED = 'notifications/tools/list_changed';
const UPDATED = 'notifications/resources/updated';
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
const PROGRESS = 'notifications/progress';
const [URI_1, URI_2, URI_3] = ['test://resource/1', 'test://resource/2', 'test://resource/3'] as const;

/** What a test waits on: items pushed in order, and a promise for a condition over them. */
class Recorder<T> {
  readonly items: T[] = [];
  #wakers: (() => void)[] = [];

  readonly push = (item: T): void => {
    this.items.push(item);
    for (const wake of this.#wakers.splice(0)) wake();
  };

  async until(done: (items: readonly T[]) => boolean): Promise<void> {
    while (!done(this.items)) await new Promise<void>((resolve) => this.#wakers.push(resolve));
  }
}

/** One client of the stage's server, with every frame its transport delivered. */
interface Party {
  client: McpClient;
  wire: Recorder<JsonRpcMessage>;
}

/** The change capabilities the fixture advertises (all by default). */
type Feature = 'tools' | 'prompts' | 'resources' | 'subscribe';

interface Stage {
  /** Clients of one server: `count` HTTP sessions; in memory one linked connection, as a stdio process serves one. */
  connect(era: Era, count?: number): Promise<Party[]>;
  /** The server's close(). */
  closeServer(): Promise<void>;
}

const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });

/** Records every frame before the client sees it. */
function tapped(factory: TransportFactory, wire: Recorder<JsonRpcMessage>): TransportFactory {
  return () => {
    const inner = factory();
    return {
      kind: inner.kind,
      start: (events) =>
        inner.start({
          frame: (frame) => {
            if (frame.kind !== 'invalid') wire.push(frame.message);
            events.frame(frame);
          },
          requestStreamEnded: (id, error) => events.requestStreamEnded(id, error),
          keepAlive: (id) => events.keepAlive(id),
          closed: (info) => events.closed(info),
          error: (error) => events.error(error),
        }),
      send: (message) => inner.send(message),
      abortRequest: (id) => inner.abortRequest(id),
      setProtocol: (protocol) => inner.setProtocol(protocol),
      close: () => inner.close(),
    };
  };
}

async function connectParty(factory: TransportFactory, era: Era): Promise<Party> {
  const wire = new Recorder<JsonRpcMessage>();
  const client = createClient({ transport: tapped(factory, wire), era, reconnect: false });
  clients.push(client);
  await client.connect();
  expect(client.era).toBe(era);
  return { client, wire };
}

function fixtureServer(features?: Feature[]): McpServer {
  const server = buildFixtureServer(features ? { features: featureFlags(features) } : {});
  servers.push(server);
  return server;
}

async function httpStage(features?: Feature[]): Promise<Stage> {
  const server = fixtureServer(features);
  const { url } = await server.listenHttp({ port: 0 });
  return {
    connect: (era, count = 1) => Promise.all(Array.from({ length: count }, () => connectParty(httpTransport({ url }), era))),
    closeServer: () => server.close(),
  };
}

function memoryStage(features?: Feature[]): Stage {
  const server = fixtureServer(features);
  return {
    connect: async (era) => [await connectParty(inMemoryTransport((end) => server.serveStdio(end)), era)],
    closeServer: () => server.close(),
  };
}

const featureFlags = (features: Feature[]) => ({
  toolsListChanged: features.includes('tools'),
  promptsListChanged: features.includes('prompts'),
  resourcesListChanged: features.includes('resources'),
  resourceSubscriptions: features.includes('subscribe'),
});

const emit = (party: Party, kind: string, uri?: string) => party.client.callTool('emit', { kind, ...(uri ? { uri } : {}) });

const lineOf = (method: string, params: JsonObject | undefined) =>
  typeof params?.uri === 'string' ? `${method} ${params.uri}` : method;

const tagOf = (notification: JsonRpcNotification) => (notification.params?._meta as JsonObject | undefined)?.[MetaKey.subscriptionId];

const notificationsOn = (party: Party) =>
  party.wire.items.filter((message): message is JsonRpcNotification => 'method' in message && !('id' in message));

/** The notifications on a party's wire, as `method [uri]` lines; only those tagged with `tag` when given. */
const wireLines = (party: Party, tag?: unknown) =>
  notificationsOn(party)
    .filter((notification) => tag === undefined || tagOf(notification) === tag)
    .map((notification) => lineOf(notification.method, notification.params));

/** The notifications a stream's or listener's subscriber received, as `method [uri]` lines. */
const inboxLines = (inbox: Recorder<SubscriberMessage>) =>
  inbox.items.flatMap((message) => (message.type === 'notification' ? [lineOf(message.method, message.params)] : []));

const hasToolsChange = (items: readonly SubscriberMessage[]) =>
  items.some((message) => message.type === 'notification' && message.method === TOOLS_CHANGED);

async function listenOn(party: Party, filter: JsonObject): Promise<{ stream: ListenStream; inbox: Recorder<SubscriberMessage> }> {
  const inbox = new Recorder<SubscriberMessage>();
  return { stream: await party.client.listen(filter, inbox.push), inbox };
}

async function listenerOn(party: Party, filter: JsonObject): Promise<{ ref: ListenerRef; inbox: Recorder<SubscriberMessage> }> {
  const inbox = new Recorder<SubscriberMessage>();
  return { ref: await party.client.subscribeNotifications(filter, inbox.push), inbox };
}

/** A listen stream on a modern connection, a notification listener on a legacy one. */
const watch = async (party: Party, filter: JsonObject) =>
  (party.client.era === 'modern' ? await listenOn(party, filter) : await listenerOn(party, filter)).inbox;

const textOf = (result: JsonObject) => (result.content as { text: string }[])[0]!.text;

describe.each(['memory', 'http'] as const)('our client against our server over %s', (transport) => {
  const open = async (features?: Feature[]) => (transport === 'memory' ? memoryStage(features) : httpStage(features));

  it('legacy: a list change broadcast reaches every session', async () => {
    const stage = await open();
    const sessions = await stage.connect('legacy', 2);
    const inboxes = await Promise.all(sessions.map((party) => watch(party, { toolsListChanged: true })));
    await emit(sessions[0]!, 'tools');
    await Promise.all(inboxes.map((inbox) => inbox.until(hasToolsChange)));
    for (const [index, party] of sessions.entries()) {
      expect(wireLines(party)).toEqual([TOOLS_CHANGED]);
      expect(inboxLines(inboxes[index]!)).toEqual([TOOLS_CHANGED]);
    }
  });

  it('modern: listen is acknowledged with the honored subset, and only the types asked for arrive', async () => {
    // No prompts.listChanged and no resource subscriptions: neither can be honored.
    const stage = await open(['tools', 'resources']);
    const [party] = await stage.connect('modern');
    const { stream, inbox } = await listenOn(party!, { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [URI_1] });
    expect(stream.honoredFilter).toEqual({ toolsListChanged: true });
    await emit(party!, 'prompts');
    await emit(party!, 'resources'); // advertised, but not asked for
    await emit(party!, 'updated', URI_1);
    await emit(party!, 'tools'); // the marker: whatever else was sent would be on the wire before it
    await inbox.until(hasToolsChange);
    expect(inboxLines(inbox)).toEqual([TOOLS_CHANGED]);
    expect(notificationsOn(party!).map((notification) => [notification.method, tagOf(notification)])).toEqual([
      [ACKNOWLEDGED, stream.id],
      [TOOLS_CHANGED, stream.id],
    ]);
  });

  it('modern: a resource update reaches only the streams that listed its URI', async () => {
    const stage = await open();
    const [a, b = a] = await stage.connect('modern', 2);
    const one = await listenOn(a!, { resourceSubscriptions: [URI_1], toolsListChanged: true });
    const two = await listenOn(b!, { resourceSubscriptions: [URI_2], toolsListChanged: true });
    expect([one.stream.honoredFilter, two.stream.honoredFilter]).toEqual([one.stream.requestedFilter, two.stream.requestedFilter]);
    for (const uri of [URI_3, URI_2, URI_1]) await emit(a!, 'updated', uri);
    await emit(a!, 'tools');
    await Promise.all([one.inbox.until(hasToolsChange), two.inbox.until(hasToolsChange)]);
    expect(inboxLines(one.inbox)).toEqual([`${UPDATED} ${URI_1}`, TOOLS_CHANGED]);
    expect(inboxLines(two.inbox)).toEqual([`${UPDATED} ${URI_2}`, TOOLS_CHANGED]);
    expect(wireLines(a!, one.stream.id)).toEqual([ACKNOWLEDGED, `${UPDATED} ${URI_1}`, TOOLS_CHANGED]);
    expect(wireLines(b!, two.stream.id)).toEqual([ACKNOWLEDGED, `${UPDATED} ${URI_2}`, TOOLS_CHANGED]);
    // Nothing reached either connection outside its streams.
    for (const party of new Set([a!, b!])) expect(notificationsOn(party).filter((notification) => tagOf(notification) === undefined)).toEqual([]);
  });

  it('legacy: a resource update reaches only the sessions subscribed to its URI', async () => {
    const stage = await open();
    const [a, b = a] = await stage.connect('legacy', 2);
    const one = await listenerOn(a!, { resourceSubscriptions: [URI_1], toolsListChanged: true });
    const two = await listenerOn(b!, { resourceSubscriptions: [URI_2], toolsListChanged: true });
    for (const uri of [URI_3, URI_2, URI_1]) await emit(a!, 'updated', uri);
    await emit(a!, 'tools');
    await Promise.all([one.inbox.until(hasToolsChange), two.inbox.until(hasToolsChange)]);
    expect(inboxLines(one.inbox)).toEqual([`${UPDATED} ${URI_1}`, TOOLS_CHANGED]);
    expect(inboxLines(two.inbox)).toEqual([`${UPDATED} ${URI_2}`, TOOLS_CHANGED]);
    // A session gets the updates of the URIs it subscribed, in order (in memory one session holds both); URI_3 none.
    const subscribed = (party: Party) => [URI_2, URI_1].filter((uri) => (uri === URI_1 ? party === a : party === b));
    for (const party of new Set([a!, b!])) {
      expect(wireLines(party)).toEqual([...subscribed(party).map((uri) => `${UPDATED} ${uri}`), TOOLS_CHANGED]);
    }
  });

  it.each(['legacy', 'modern'] as const)('%s: progress from a tool call reaches only the caller', async (era) => {
    const stage = await open();
    const sessions = await stage.connect(era, 2);
    const [caller, ...others] = sessions;
    // Every party listens for list changes (the marker below) and has a fallback for progress no call claimed.
    const inboxes = await Promise.all(sessions.map((party) => watch(party, { toolsListChanged: true })));
    const unclaimed = sessions.map((party) => {
      const seen = new Recorder<JsonObject>();
      party.client.onNotification(PROGRESS, seen.push);
      return seen;
    });
    const progress: unknown[] = [];
    const result = await caller!.client.callTool('progress', { steps: 3 }, { onProgress: (params) => progress.push(params.progress) });
    expect(textOf(result)).toBe('done 3');
    await emit(caller!, 'tools');
    await Promise.all(inboxes.map((inbox) => inbox.until(hasToolsChange)));
    expect(progress).toEqual([1, 2, 3]);
    expect(unclaimed.map((seen) => seen.items)).toEqual(sessions.map(() => []));
    expect(inboxes.map(inboxLines)).toEqual(sessions.map(() => [TOOLS_CHANGED]));
    const progressOn = (party: Party) => notificationsOn(party).filter((notification) => notification.method === PROGRESS);
    expect(progressOn(caller!).map((notification) => notification.params?.progress)).toEqual([1, 2, 3]);
    expect(new Set(progressOn(caller!).map((notification) => notification.params?.progressToken)).size).toBe(1);
    for (const other of others) expect(progressOn(other)).toEqual([]);
  });

  it("modern: the server's close() ends listen streams as graceful", async () => {
    const stage = await open();
    const [party] = await stage.connect('modern');
    const streams = [await listenOn(party!, { toolsListChanged: true }), await listenOn(party!, { resourceSubscriptions: [URI_3] })];
    await stage.closeServer();
    for (const { stream, inbox } of streams) {
      expect(await stream.closed).toEqual({ type: 'graceful' });
      await inbox.until((items) => items.some((message) => message.type === 'closed'));
      expect(inbox.items.at(-1)).toMatchObject({ type: 'closed', reason: { type: 'graceful' } });
    }
    // At the wire: each listen was answered with a `complete` result.
    for (const { stream } of streams) {
      expect(party!.wire.items).toContainEqual(expect.objectContaining({ id: stream.id, result: expect.objectContaining({ resultType: 'complete' }) }));
    }
  });
});

/**
 * Legacy SSE resumption end to end (issues 18 and 19): a loopback proxy
 * swallows what the server sends on the open GET stream, then cuts it; the
 * client reconnects with `Last-Event-ID` and the server replays. Our client
 * against our server (in this process, loopback HTTP), nothing lost and
 * nothing twice; past the replay buffer, a gap the listeners hear as every
 * list changed and every subscribed resource updated. A POST response stream
 * (a tool call's progress, then its result) cut mid-flow resumes the same
 * way on its own ids, never carrying the GET stream's messages.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import type { McpServer } from '../../src/server/index.ts';
import type { ServerLimits } from '../../src/server/limits.ts';
import { CuttingProxy } from '../fixtures/cutting-proxy.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { closeAllPeers, connectHttp as connectOfficial, NotificationLog, progressOnWire, RESOURCE_UPDATED, TOOLS_CHANGED, wire } from '../server/official-peers.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer, FIXTURE_URIS } from '../fixtures/own-server-setup.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';
import { RawLegacySession } from '../server/raw-http-peer.ts';

const ours = new OwnClients();
const servers: McpServer[] = [];
const proxies: CuttingProxy[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await ours.disconnectAll();
  await closeAllPeers();
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Our server behind a cutting proxy; a short `retry` so the test waits little for the reconnect. */
async function serveBehindProxy(limits: Partial<ServerLimits> = {}): Promise<{ server: McpServer; proxy: CuttingProxy; url: string }> {
  const server = buildFixtureServer({ limits: { sseRetryMs: 10, ...limits } });
  servers.push(server);
  const handle = await server.listenHttp({ port: 0 });
  const proxy = await CuttingProxy.start(handle.port);
  proxies.push(proxy);
  return { server, proxy, url: `http://127.0.0.1:${proxy.port}/mcp` };
}

/** A recording subscriber that can wait until it holds `count` notifications. */
function collect() {
  const box = inbox();
  const notifications = () => box.messages.flatMap((message) => (message.type === 'notification' ? [message] : []));
  const until = async (holds: () => boolean) => {
    while (!holds()) await box.next('notification');
  };
  return { subscriber: box.subscriber, messages: box.messages, notifications, until };
}

const updatedUri = (message: SubscriberMessage): unknown => (message.type === 'notification' ? message.params?.uri : undefined);

describe('our client against our server through a proxy that cuts the GET stream', () => {
  it('resumes with Last-Event-ID: what the server wrote while the path was dead arrives once, in order', async () => {
    const { server, proxy, url } = await serveBehindProxy();
    const client = await ours.connectHttp(url, { era: 'legacy' });
    const lists = collect();
    const resources = collect();
    await client.subscribeNotifications({ toolsListChanged: true, promptsListChanged: true }, lists.subscriber);
    await client.subscribeNotifications({ resourceSubscriptions: FIXTURE_URIS }, resources.subscriber);
    // The first change arriving shows the GET stream is open.
    server.notifyToolsListChanged();
    await lists.until(() => lists.notifications().length === 1);

    proxy.blackhole();
    for (const uri of FIXTURE_URIS) server.notifyResourceUpdated(uri);
    await proxy.swallowedEvents(5);
    server.notifyToolsListChanged();
    await proxy.swallowedEvents(6);
    for (const uri of FIXTURE_URIS) server.notifyResourceUpdated(uri);
    await proxy.swallowedEvents(11);
    proxy.cut();

    await resources.until(() => resources.notifications().length === 10);
    // A marker after the replay: anything replayed twice would have come before it.
    server.notifyPromptsListChanged();
    await lists.until(() => lists.notifications().length === 3);
    expect(resources.notifications().map(updatedUri)).toEqual([...FIXTURE_URIS, ...FIXTURE_URIS]);
    expect(lists.notifications().map((message) => message.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ]);
    // The session survived: no reconnect, so no gap report.
    expect([...lists.messages, ...resources.messages].filter((message) => message.type !== 'notification')).toEqual([]);
  });

  it('a reconnect from past the replay buffer is answered as if everything changed', async () => {
    const { server, proxy, url } = await serveBehindProxy({ replayEvents: 2 });
    const client = await ours.connectHttp(url, { era: 'legacy' });
    const lists = collect();
    const resources = collect();
    await client.subscribeNotifications({ toolsListChanged: true }, lists.subscriber);
    await client.subscribeNotifications({ resourceSubscriptions: FIXTURE_URIS.slice(0, 3) }, resources.subscriber);
    server.notifyToolsListChanged();
    await lists.until(() => lists.notifications().length === 1);

    proxy.blackhole();
    for (const uri of FIXTURE_URIS.slice(0, 3)) server.notifyResourceUpdated(uri);
    await proxy.swallowedEvents(3);
    proxy.cut();

    // Three events were missed but only two kept: the server resyncs instead of replaying a partial tail.
    await lists.until(() => lists.notifications().length === 2);
    await resources.until(() => resources.notifications().length === 3);
    expect(new Set(resources.notifications().map(updatedUri))).toEqual(new Set(FIXTURE_URIS.slice(0, 3)));
  });
});

describe('the official client 2.4.0 (legacy) against our server through the same proxy', () => {
  it('resumes its GET stream with Last-Event-ID and gets what it missed, once', async () => {
    const { server, proxy, url } = await serveBehindProxy();
    const client = await connectOfficial('legacy', url);
    const log = new NotificationLog(client, [TOOLS_CHANGED, RESOURCE_UPDATED]);
    for (const uri of FIXTURE_URIS) await client.subscribeResource({ uri });
    server.notifyToolsListChanged();
    await log.waitFor(TOOLS_CHANGED);

    proxy.blackhole();
    for (const uri of FIXTURE_URIS) server.notifyResourceUpdated(uri);
    await proxy.swallowedEvents(5);
    proxy.cut();

    await log.waitFor(RESOURCE_UPDATED, (params) => params.uri === FIXTURE_URIS.at(-1));
    server.notifyToolsListChanged();
    await log.waitFor(TOOLS_CHANGED, () => log.methods().filter((method) => method === TOOLS_CHANGED).length === 2);
    expect(log.seen.filter((entry) => entry.method === RESOURCE_UPDATED).map((entry) => entry.params.uri)).toEqual(FIXTURE_URIS);
  });
});

describe('our client against the official legacy server (sdk 1.32.2 with an event store) through the same proxy', () => {
  it('resumes the GET stream with Last-Event-ID: the updates sent while it was dead arrive once', async () => {
    const fixture = await startHttpFixture('legacy', { args: ['--event-store', '10'] });
    fixtures.push(fixture);
    const target = new URL(fixture.url);
    const proxy = await CuttingProxy.start(Number(target.port));
    proxies.push(proxy);
    const client = await ours.connectHttp(`http://127.0.0.1:${proxy.port}${target.pathname}`, { era: 'legacy' });
    const lists = collect();
    const resources = collect();
    await client.subscribeNotifications({ toolsListChanged: true }, lists.subscriber);
    await client.subscribeNotifications({ resourceSubscriptions: FIXTURE_URIS }, resources.subscriber);
    await client.callTool('emit', { kind: 'tools' });
    await lists.until(() => lists.notifications().length === 1);

    // Only the GET stream's connection goes dead: the emit calls still go through on their own connections.
    proxy.blackhole('GET');
    for (const uri of FIXTURE_URIS) await client.callTool('emit', { kind: 'updated', uri });
    await proxy.swallowedEvents(FIXTURE_URIS.length);
    proxy.cut();

    await resources.until(() => resources.notifications().length === FIXTURE_URIS.length);
    await client.callTool('emit', { kind: 'tools' });
    await lists.until(() => lists.notifications().length === 2);
    expect(resources.notifications().map(updatedUri)).toEqual(FIXTURE_URIS);
    expect([...lists.messages, ...resources.messages].filter((message) => message.type !== 'notification')).toEqual([]);
  });
});

interface Gated {
  server: McpServer;
  proxy: CuttingProxy;
  url: string;
  /** Lets the `gated` tool go on after its first progress. */
  open(): void;
}

/**
 * Our server behind a cutting proxy (a short `retry`, so the resume comes
 * soon) with a `gated` tool: progress 1 of 3, then it waits for `open()`,
 * then progress 2 and 3 and its result.
 */
async function serveGated(): Promise<Gated> {
  const { server, proxy, url } = await serveBehindProxy();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  server.defineTool('gated', { description: 'Progress, a wait, more progress, a result', inputSchema: { type: 'object' } }, async (_args, context) => {
    await context.progress(1, 3);
    await gate;
    await context.progress(2, 3);
    await context.progress(3, 3);
    return { content: [{ type: 'text', text: 'gated done' }] };
  });
  return { server, proxy, url, open };
}

/** Progress values as they arrive, with a wait for the first. */
function progressLog() {
  const values: unknown[] = [];
  let first!: () => void;
  const started = new Promise<void>((resolve) => (first = resolve));
  const onProgress = (params: JsonObject) => {
    values.push(params.progress);
    first();
  };
  return { values, started, onProgress };
}

describe('our client against our server: a POST stream cut after the first progress', () => {
  it('resumes with the stream Last-Event-ID: every progress once, then the result, and no GET-stream message', async () => {
    const { server, proxy, url, open } = await serveGated();
    const client = await ours.connectHttp(url, { era: 'legacy' });
    const box = inbox();
    await client.subscribeNotifications({ toolsListChanged: true }, box.subscriber);
    server.notifyToolsListChanged();
    await box.next('notification');

    const progress = progressLog();
    const call = client.callTool('gated', {}, { onProgress: progress.onProgress });
    await progress.started;
    proxy.blackhole('POST');
    open();
    // Progress 2 went into the dead connection (its id names the POST stream), then the connection is cut.
    const [swallowed] = await proxy.swallowedEvents(1);
    expect(swallowed).toMatch(/^p\d+-\d+$/);
    // A message for the session's GET stream meanwhile: it must come once, on the GET stream only.
    server.notifyToolsListChanged();
    await box.next('notification');
    proxy.cut();

    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'gated done' }]);
    expect(progress.values).toEqual([1, 2, 3]);
    // A marker after the resume: a change replayed twice would have come before it.
    server.notifyToolsListChanged();
    await box.next('notification');
    expect(box.count('notification')).toBe(3);
  });
});

describe('the official client 2.4.0 (legacy) against our server: a POST stream cut after the first progress', () => {
  it('resumes it with Last-Event-ID: every progress once, then the result', async () => {
    const { server, proxy, url, open } = await serveGated();
    const client = await connectOfficial('legacy', url);
    const log = new NotificationLog(client, [TOOLS_CHANGED]);
    let first!: () => void;
    const started = new Promise<void>((resolve) => (first = resolve));
    const call = client.callTool({ name: 'gated', arguments: {} }, { onprogress: () => first() });
    await started;
    proxy.blackhole('POST');
    open();
    const [swallowed] = await proxy.swallowedEvents(1);
    expect(swallowed).toMatch(/^p\d+-\d+$/);
    server.notifyToolsListChanged();
    await log.waitFor(TOOLS_CHANGED);
    proxy.cut();

    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'gated done' }]);
    expect(progressOnWire(client)).toEqual([1, 2, 3]);
    expect(wire(client).filter((message) => message.method === TOOLS_CHANGED)).toHaveLength(1);
  });
});

/** Our server (no proxy) with one raw legacy session that already ran a `progress` call of 2 steps as request `id`. */
async function sessionAfterProgressCall(id: number, limits: Partial<ServerLimits> = {}) {
  const server = buildFixtureServer({ limits: { sseRetryMs: 10, ...limits } });
  servers.push(server);
  const { port } = await server.listenHttp({ port: 0 });
  const url = `http://127.0.0.1:${port}/mcp`;
  const session = await RawLegacySession.open(url);
  const call = await session.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 't' } } });
  await call.ended;
  /** A GET on the session with this `Last-Event-ID`. */
  const resume = (lastEventId: string) => fetch(url, { headers: { 'mcp-session-id': session.id, accept: 'text/event-stream', 'last-event-id': lastEventId } });
  return { server, resume };
}

const dataOf = (body: string) => [...body.matchAll(/^data: (.+)$/gm)].map((match) => JSON.parse(match[1]!) as JsonObject);

describe('our server, a GET naming a POST stream (scripted: no client resumes a finished stream on cue)', () => {
  it('replays what followed the id on that stream only, response included, then ends; an id of no held stream is a 400', async () => {
    const { server, resume } = await sessionAfterProgressCall(1);
    // The session's GET stream has messages of its own: a POST stream's replay must not carry them.
    server.notifyToolsListChanged();

    const resumed = await resume('p1-1');
    const body = await resumed.text();
    expect(resumed.headers.get('content-type')).toBe('text/event-stream');
    expect([...body.matchAll(/^id: (\S+)$/gm)].map((match) => match[1])).toEqual(['p1-2', 'p1-3']);
    expect(dataOf(body).map((message) => message.method ?? message.id)).toEqual(['notifications/progress', 1]);
    expect(body.endsWith('retry: 10\n\n')).toBe(true);

    for (const id of ['p9-1', 'p1', 'p-1']) {
      const unknown = await resume(id);
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }
  });

  it('from before the stream replay buffer: its request is answered with a replayEvents error, then the stream is gone', async () => {
    const { resume } = await sessionAfterProgressCall(7, { replayEvents: 1 });
    const resumed = await resume('p1-0');
    expect(dataOf(await resumed.text())).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'Limit reached: replayEvents (1)', data: { limit: 'replayEvents', max: 1 } } },
    ]);
    expect((await resume('p1-2')).status).toBe(400);
  });

  it('a finished stream stays resumable for replayAgeMs after its end, then is forgotten', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { resume } = await sessionAfterProgressCall(1, { replayAgeMs: 60_000 });
    vi.advanceTimersByTime(59_999);
    const late = await resume('p1-2');
    expect(dataOf(await late.text()).map((message) => message.id)).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect((await resume('p1-2')).status).toBe(400);
  });
});

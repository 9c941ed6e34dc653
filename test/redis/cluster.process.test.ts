/**
 * Three server nodes (separate processes) on one redis-server behind a
 * round-robin proxy; clients of both eras, ours and the official 2.4.0,
 * spread over the nodes by the proxy; changes published through tool calls
 * that land on whichever node is next.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { createClient, httpTransport, type McpClient, type SubscriberMessage } from '../../src/index.ts';
import { closeAllPeers, connectHttp, newClient } from '../server/official-peers.ts';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startCluster, stopAllClusters, type Cluster } from './cluster.ts';

const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const UPDATED = 'notifications/resources/updated';

/** What a client got, as `method` or `method uri`, in arrival order, with a way to wait for one. */
/** The test's timeline: keys of the changes published so far. */
const published: string[] = [];

class Inbox {
  readonly seen: string[] = [];
  /** For each arrival, how many changes the test had published by then. */
  readonly at: number[] = [];
  readonly reconnects: SubscriberMessage[] = [];
  private waiters: Array<{ key: string; count: number; resolve: () => void }> = [];
  private coverWaiters: Array<{ wanted: readonly string[]; resolve: () => void }> = [];

  push(method: string, params: unknown): void {
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    this.seen.push(typeof uri === 'string' ? `${method} ${uri}` : method);
    this.at.push(published.length);
    this.waiters = this.waiters.filter((waiter) => !(this.count(waiter.key) >= waiter.count && (waiter.resolve(), true)));
    this.coverWaiters = this.coverWaiters.filter((waiter) => !(this.uncovered(waiter.wanted).length === 0 && (waiter.resolve(), true)));
  }

  /** Resolves once every published change among `wanted` arrived or is covered (the test times out otherwise). */
  covered(wanted: readonly string[]): Promise<void> {
    if (this.uncovered(wanted).length === 0) return Promise.resolve();
    return new Promise((resolve) => this.coverWaiters.push({ wanted, resolve }));
  }

  count(key: string): number {
    return this.seen.filter((seen) => seen === key).length;
  }

  /** Resolves once `key` has arrived `count` times in all. */
  waitFor(key: string, count = 1): Promise<void> {
    if (this.count(key) >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ key, count, resolve }));
  }

  /** Published changes among `wanted` that neither arrived nor were covered by the same notification arriving after them. */
  uncovered(wanted: readonly string[]): string[] {
    return published.filter((key, index) => wanted.includes(key) && !this.seen.some((seen, arrival) => seen === key && this.at[arrival]! > index));
  }

  private reconnectWaiters: Array<() => void> = [];

  /** Resolves once the subscriber got `reconnected` (already or later). */
  reconnected(): Promise<void> {
    if (this.reconnects.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.reconnectWaiters.push(resolve));
  }

  subscriber = (message: SubscriberMessage): void => {
    if (message.type === 'notification') this.push(message.method, message.params);
    else if (message.type === 'reconnected') {
      this.reconnects.push(message);
      for (const resolve of this.reconnectWaiters.splice(0)) resolve();
    }
  };
}

function officialInbox(client: Client): Inbox {
  const inbox = new Inbox();
  for (const method of [TOOLS, PROMPTS, 'notifications/resources/list_changed', UPDATED]) {
    client.setNotificationHandler(method as typeof TOOLS, (notification: { params?: unknown }) => inbox.push(method, notification.params));
  }
  return inbox;
}

let cluster: Cluster | undefined;
const ours: McpClient[] = [];
afterEach(async () => {
  published.length = 0;
  await Promise.all(ours.splice(0).map((client) => client.disconnect().catch(() => {})));
  await closeAllPeers();
  await stopAllClusters();
  cluster = undefined;
});

async function ourClient(url: string, era: 'modern' | 'legacy'): Promise<McpClient> {
  const client = createClient({ transport: httpTransport({ url }), era, reconnect: { maxAttempts: 10, baseDelayMs: 50, maxDelayMs: 500 } });
  ours.push(client);
  await client.connect();
  return client;
}

/** Calls a tool through the proxy: it runs on whichever node is next. */
async function call(driver: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await driver.callTool({ name, arguments: args })) as { content: Array<{ text?: string }> };
  return result.content[0]?.text ?? '';
}

/** Our modern and legacy clients and the official modern client through the proxy, following tools and a URI each (our legacy one prompts too, if asked). */
async function followers(url: string, uris: { ours: string; official: string }, legacyPrompts: boolean) {
  const oursModern = new Inbox();
  const oursLegacy = new Inbox();
  await (await ourClient(url, 'modern')).listen({ toolsListChanged: true, resourceSubscriptions: [uris.ours] }, oursModern.subscriber);
  const legacyFilter = { toolsListChanged: true, resourceSubscriptions: [uris.ours], ...(legacyPrompts ? { promptsListChanged: true } : {}) };
  await (await ourClient(url, 'legacy')).subscribeNotifications(legacyFilter, oursLegacy.subscriber);
  const official = await connectHttp('modern', url, 'official-modern');
  const officialModern = officialInbox(official);
  await official.listen({ toolsListChanged: true, resourceSubscriptions: [uris.official] });
  return { oursModern, oursLegacy, officialModern };
}

/** Our modern client listening for tool-list changes through the proxy. */
async function toolsListener(running: Cluster): Promise<{ url: string; inbox: Inbox; client: McpClient }> {
  const url = running.proxy.url;
  const inbox = new Inbox();
  const client = await ourClient(url, 'modern');
  await client.listen({ toolsListChanged: true }, inbox.subscriber);
  return { url, inbox, client };
}

/** The official client that publishes changes by calling tools through the proxy. */
async function driverFor(url: string): Promise<Client> {
  const driver = newClient('modern', 'driver');
  await driver.connect(new StreamableHTTPClientTransport(new URL(url)));
  return driver;
}

// Three node processes start under tsx on a shared machine: give them time.
describe('three nodes on Redis behind a round-robin proxy', { timeout: 90_000 }, () => {
  it('a change published on any node reaches every matching stream and session exactly once, and nothing unrequested', async () => {
    cluster = await startCluster(3, { sticky: true });
    const url = cluster.proxy.url;
    const { oursModern, oursLegacy, officialModern: officialModernInbox } = await followers(url, { ours: 'test://resource/1', official: 'test://resource/2' }, true);
    const officialLegacy = await connectHttp('legacy', url, 'official-legacy');
    const officialLegacyInbox = officialInbox(officialLegacy);
    await officialLegacy.subscribeResource({ uri: 'test://resource/2' });
    const listens = cluster.proxy.routes.filter((route) => route.method === 'subscriptions/listen').map((route) => route.node);
    const sessions = new Set(cluster.proxy.routes.filter((route) => route.method === 'initialize').map((route) => route.node));
    // The clients' streams and sessions are spread over more than one node.
    expect(new Set([...listens, ...sessions]).size).toBeGreaterThan(1);

    const driver = await driverFor(url);
    const ran: string[] = [];
    const emit = async (args: Record<string, unknown>) => ran.push(await call(driver, 'whoami'), await call(driver, 'emit', args));
    await emit({ kind: 'updated', uri: 'test://resource/3' }); // nobody follows it
    await emit({ kind: 'prompts' }); // legacy sessions only
    await emit({ kind: 'updated', uri: 'test://resource/1' });
    await emit({ kind: 'updated', uri: 'test://resource/2' });
    await emit({ kind: 'tools' });
    // The emits ran on every node.
    expect(new Set(ran.filter((text) => text.startsWith('node-')))).toEqual(new Set(['node-0', 'node-1', 'node-2']));

    // tools/list_changed went out last in Redis order: each node delivers in that order, so once it is in, everything before it is too.
    await Promise.all([oursModern, oursLegacy, officialModernInbox, officialLegacyInbox].map((inbox) => inbox.waitFor(TOOLS)));
    expect(oursModern.seen).toEqual([`${UPDATED} test://resource/1`, TOOLS]);
    expect(oursLegacy.seen).toEqual([PROMPTS, `${UPDATED} test://resource/1`, TOOLS]);
    expect(officialModernInbox.seen).toEqual([`${UPDATED} test://resource/2`, TOOLS]);
    expect(officialLegacyInbox.seen).toEqual([PROMPTS, `${UPDATED} test://resource/2`, TOOLS]);
  });

  it('Redis SIGKILLed and restarted mid-flow: per client, every change is received or covered by the everything-changed notifications', async () => {
    cluster = await startCluster(3, { sticky: true });
    const url = cluster.proxy.url;
    const { oursModern: modern, oursLegacy: legacy, officialModern: officialBox } = await followers(url, { ours: 'test://resource/1', official: 'test://resource/1' }, false);
    const driver = await driverFor(url);
    const emit = async (kind: 'tools' | 'updated') => {
      published.push(kind === 'tools' ? TOOLS : `${UPDATED} test://resource/1`);
      await call(driver, 'emit', kind === 'tools' ? { kind } : { kind, uri: 'test://resource/1' });
    };
    const inboxes = [modern, legacy, officialBox];
    await emit('tools');
    await Promise.all(inboxes.map((inbox) => inbox.waitFor(TOOLS)));
    await cluster.redis.kill();
    await Promise.all(cluster.nodes.map((node) => node.waitForStderr(/-> disconnected/)));
    for (let i = 0; i < 3; i++) await emit('updated'); // on three nodes; each applies its own at once
    await emit('tools');
    const toolsBefore = inboxes.map((inbox) => inbox.count(TOOLS));
    const updatesBefore = inboxes.map((inbox) => inbox.count(`${UPDATED} test://resource/1`));
    await cluster.redis.restart();
    await Promise.all(cluster.nodes.map((node) => node.waitForStderr(/-> resynced/)));
    // Every node resyncs: each client hears tools/list_changed and resources/updated again.
    await Promise.all(inboxes.map((inbox, i) => inbox.waitFor(TOOLS, toolsBefore[i]! + 1)));
    await Promise.all(inboxes.map((inbox, i) => inbox.waitFor(`${UPDATED} test://resource/1`, updatesBefore[i]! + 1)));
    await emit('tools');
    const wanted = [TOOLS, `${UPDATED} test://resource/1`];
    await Promise.all(inboxes.map((inbox) => inbox.covered(wanted)));
    for (const inbox of inboxes) expect(inbox.uncovered(wanted)).toEqual([]);
  });

  it('a node SIGKILLed while holding listen streams: our client reconnects through the proxy, listens on another node and resyncs', async () => {
    cluster = await startCluster(3);
    const { url, inbox } = await toolsListener(cluster);
    const holder = cluster.proxy.routes.find((route) => route.method === 'subscriptions/listen')!.node;
    await cluster.nodes[holder]!.kill();
    await inbox.reconnected();
    expect(inbox.reconnects[0]).toMatchObject({ type: 'reconnected', snapshot: expect.anything() });
    const relistened = cluster.proxy.routes.filter((route) => route.method === 'subscriptions/listen').at(-1)!.node;
    expect(relistened).not.toBe(holder);
    const driver = await driverFor(url);
    await call(driver, 'emit', { kind: 'tools' });
    await inbox.waitFor(TOOLS);
    expect(inbox.seen).toEqual([TOOLS]);
  });

  it('a legacy session routed to a node that did not issue it gets 404, and our client starts a new session transparently', async () => {
    cluster = await startCluster(3, { sticky: true });
    const url = cluster.proxy.url;
    const inbox = new Inbox();
    const client = await ourClient(url, 'legacy');
    await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, inbox.subscriber);
    const initializes = () => cluster!.proxy.routes.filter((route) => route.method === 'initialize').length;
    expect(initializes()).toBe(1);
    cluster.proxy.misrouteSessions();
    await client.listTools().catch(() => undefined); // answered 404 by a node that never issued the session
    await inbox.reconnected();
    expect(initializes()).toBe(2);
    expect(inbox.reconnects[0]).toMatchObject({ type: 'reconnected', report: { resubscribed: ['test://resource/1'], failed: [] } });
    const driver = await driverFor(url);
    await call(driver, 'emit', { kind: 'updated', uri: 'test://resource/1' });
    await inbox.waitFor(`${UPDATED} test://resource/1`);
    expect((await client.listTools()).some((tool) => tool.name === 'whoami')).toBe(true);
  });

  it('onRemoteChange runs before a node announces: a refetch after the notification, landing on any node, sees the new catalog', async () => {
    cluster = await startCluster(3);
    const { url, inbox, client } = await toolsListener(cluster);
    const driver = await driverFor(url);
    for (let round = 1; round <= 6; round++) {
      await call(driver, 'catalog-add', { name: `t${round}` });
      await inbox.waitFor(TOOLS, round);
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names).toContain(`catalog-t${round}`);
    }
    const refetchedOn = new Set(cluster.proxy.routes.filter((route) => route.method === 'tools/list').map((route) => route.node));
    expect(refetchedOn.size).toBe(3);
  });
});

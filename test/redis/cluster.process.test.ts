/**
 * Three server nodes (separate processes) on one redis-server behind a
 * round-robin proxy; clients of both eras, ours and the official 2.4.0,
 * spread over the nodes by the proxy (or connected to each node directly);
 * changes published through tool calls that land on whichever node is next
 * (or on a chosen node). Redis restarted, and one node's Redis connection
 * killed and kept away past the retention: per client, every change is
 * received or covered by the everything-changed notifications. The tests
 * that cut no node off share one cluster (a killed node started afresh, and
 * every node live on Redis and settled, between them; each test with a
 * proxy of its own); the one that cuts a node off starts its own.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { createClient, httpTransport, type McpClient } from '../../src/index.ts';
import { closeAllPeers, connectHttp, newClient } from '../server/official-peers.ts';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { settleCluster, startCluster, stopAllClusters, type Cluster } from './cluster.ts';
import { Inbox, officialInbox, PROMPTS, published, TOOLS, UPDATED } from './cluster-inbox.ts';
import { roundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.ts';

/** The cluster of the test that cuts a node off (retention and link of its own), stopped after it. */
let cluster: Cluster | undefined;
/** Set before that cluster starts: a start that failed half-way leaves its Redis up, to stop as well. */
let stopClustersAfterTest = false;
const ours: McpClient[] = [];
const proxies: RoundRobinProxy[] = [];
afterEach(async () => {
  published.length = 0;
  await Promise.all(ours.splice(0).map((client) => client.close().catch(() => {})));
  await closeAllPeers();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  if (stopClustersAfterTest) await stopAllClusters();
  stopClustersAfterTest = false;
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

/** Our modern client listening for tool-list changes through the proxy at `url`. */
async function toolsListener(url: string): Promise<{ url: string; inbox: Inbox; client: McpClient }> {
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
// Three node processes start on a shared machine: give them time.
describe('three nodes on Redis behind a round-robin proxy, one cluster for the tests that cut no node off', { timeout: 90_000 }, () => {
  // Each test has a proxy of its own (its routes, its sticky table); the nodes and Redis are shared.
  let shared: Cluster;
  beforeAll(async () => {
    shared = await startCluster(3);
  }, 90_000);
  afterAll(() => stopAllClusters());
  // A node a test before killed is started afresh, and (every node live on Redis again, restarted or not)
  // what the tests before published is applied on every node, before this test's clients come.
  beforeEach(async () => {
    await shared.revive();
    await settleCluster(shared);
  });

  /** A round-robin proxy of this test's own in front of the shared nodes. */
  async function proxyFor(running: Cluster, options: { sticky?: boolean } = {}): Promise<RoundRobinProxy> {
    const proxy = await roundRobinProxy(running.nodes.map((node) => node.port), options);
    proxies.push(proxy);
    return proxy;
  }

  it('a change published on any node reaches every matching stream and session exactly once, and nothing unrequested', async () => {
    const proxy = await proxyFor(shared, { sticky: true });
    const url = proxy.url;
    const { oursModern, oursLegacy, officialModern: officialModernInbox } = await followers(url, { ours: 'test://resource/1', official: 'test://resource/2' }, true);
    const officialLegacy = await connectHttp('legacy', url, 'official-legacy');
    const officialLegacyInbox = officialInbox(officialLegacy);
    await officialLegacy.subscribeResource({ uri: 'test://resource/2' });
    const listens = proxy.routes.filter((route) => route.method === 'subscriptions/listen').map((route) => route.node);
    const sessions = new Set(proxy.routes.filter((route) => route.method === 'initialize').map((route) => route.node));
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

  it('a node SIGKILLed while holding listen streams: our client reconnects through the proxy, listens on another node and resyncs', async () => {
    const proxy = await proxyFor(shared);
    const { url, inbox } = await toolsListener(proxy.url);
    const holder = proxy.routes.find((route) => route.method === 'subscriptions/listen')!.node;
    await shared.nodes[holder]!.kill();
    await inbox.reconnected();
    expect(inbox.reconnects[0]).toMatchObject({ type: 'reconnected', snapshot: expect.anything() });
    const relistened = proxy.routes.filter((route) => route.method === 'subscriptions/listen').at(-1)!.node;
    expect(relistened).not.toBe(holder);
    const driver = await driverFor(url);
    await call(driver, 'emit', { kind: 'tools' });
    await inbox.waitFor(TOOLS);
    expect(inbox.seen).toEqual([TOOLS]);
  });

  it('Redis SIGKILLed and restarted mid-flow: per client, every change is received or covered by the everything-changed notifications', async () => {
    const proxy = await proxyFor(shared, { sticky: true });
    const url = proxy.url;
    const { oursModern: modern, oursLegacy: legacy, officialModern: officialBox } = await followers(url, { ours: 'test://resource/1', official: 'test://resource/1' }, false);
    const driver = await driverFor(url);
    const emit = async (kind: 'tools' | 'updated') => {
      published.push(kind === 'tools' ? TOOLS : `${UPDATED} test://resource/1`);
      await call(driver, 'emit', kind === 'tools' ? { kind } : { kind, uri: 'test://resource/1' });
    };
    const inboxes = [modern, legacy, officialBox];
    await emit('tools');
    await Promise.all(inboxes.map((inbox) => inbox.waitFor(TOOLS)));
    // The nodes are shared: only what they log from here on counts.
    const from = shared.nodes.map((node) => node.stderr.length);
    await shared.redis.kill();
    await Promise.all(shared.nodes.map((node, i) => node.waitForStderr(/-> disconnected/, from[i])));
    for (let i = 0; i < 3; i++) await emit('updated'); // on three nodes; each applies its own at once
    await emit('tools');
    const toolsBefore = inboxes.map((inbox) => inbox.count(TOOLS));
    const updatesBefore = inboxes.map((inbox) => inbox.count(`${UPDATED} test://resource/1`));
    await shared.redis.restart();
    await Promise.all(shared.nodes.map((node, i) => node.waitForStderr(/-> resynced/, from[i])));
    // Every node resyncs: each client hears tools/list_changed and resources/updated again.
    await Promise.all(inboxes.map((inbox, i) => inbox.waitFor(TOOLS, toolsBefore[i]! + 1)));
    await Promise.all(inboxes.map((inbox, i) => inbox.waitFor(`${UPDATED} test://resource/1`, updatesBefore[i]! + 1)));
    await emit('tools');
    const wanted = [TOOLS, `${UPDATED} test://resource/1`];
    await Promise.all(inboxes.map((inbox) => inbox.covered(wanted)));
    for (const inbox of inboxes) expect(inbox.uncovered(wanted)).toEqual([]);
  });

  it('a legacy session routed to a node that did not issue it gets 404, and our client starts a new session transparently', async () => {
    const proxy = await proxyFor(shared, { sticky: true });
    const url = proxy.url;
    const inbox = new Inbox();
    const client = await ourClient(url, 'legacy');
    await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, inbox.subscriber);
    const initializes = () => proxy.routes.filter((route) => route.method === 'initialize').length;
    expect(initializes()).toBe(1);
    proxy.misrouteSessions();
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
    const proxy = await proxyFor(shared);
    const { url, inbox, client } = await toolsListener(proxy.url);
    const driver = await driverFor(url);
    for (let round = 1; round <= 6; round++) {
      await call(driver, 'catalog-add', { name: `t${round}` });
      await inbox.waitFor(TOOLS, round);
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names).toContain(`catalog-t${round}`);
    }
    const refetchedOn = new Set(proxy.routes.filter((route) => route.method === 'tools/list').map((route) => route.node));
    expect(refetchedOn.size).toBe(3);
  });
});

describe('three nodes on Redis behind a round-robin proxy, a cluster of its own for the test that cuts a node off', { timeout: 90_000 }, () => {
  it('a node cut off from Redis (CLIENT KILL) while more than the retention is published elsewhere: per client, every change is received or covered', async () => {
    // node-2 reaches Redis through a link the test can keep cut; a retention of ~100 entries is passed within a few hundred events.
    stopClustersAfterTest = true;
    cluster = await startCluster(3, { cuttable: 2, maxLen: 100 });
    const cutNode = cluster.nodes[2]!;
    const resource = 'test://resource/1';
    const wanted = [TOOLS, `${UPDATED} ${resource}`];
    // Both eras, ours and the official client, on every node (straight to it, so each node holds each kind).
    const clients: Array<{ node: string; client: string; inbox: Inbox }> = [];
    for (const node of cluster.nodes) {
      const { oursModern, oursLegacy, officialModern } = await followers(node.url, { ours: resource, official: resource }, false);
      const officialLegacyClient = await connectHttp('legacy', node.url, 'official-legacy');
      const officialLegacy = officialInbox(officialLegacyClient);
      await officialLegacyClient.subscribeResource({ uri: resource });
      const kinds = { 'ours modern': oursModern, 'ours legacy': oursLegacy, 'official modern': officialModern, 'official legacy': officialLegacy };
      for (const [client, inbox] of Object.entries(kinds)) clients.push({ node: node.name, client, inbox });
    }
    const onCutNode = clients.filter(({ node }) => node === cutNode.name);
    const elsewhere = clients.filter(({ node }) => node !== cutNode.name);
    const drivers = await Promise.all(cluster.nodes.map((node) => driverFor(node.url)));
    const emit = async (on: number, kind: 'tools' | 'updated', count = 1) => {
      for (let i = 0; i < count; i++) published.push(kind === 'tools' ? TOOLS : `${UPDATED} ${resource}`);
      await call(drivers[on]!, 'emit', kind === 'tools' ? { kind } : { kind, uri: resource, count });
    };

    await emit(0, 'tools');
    await Promise.all(clients.map(({ inbox }) => inbox.waitFor(TOOLS)));
    for (const address of cluster.link!.cut()) await cluster.redis.command(['CLIENT', 'KILL', 'ADDR', address]);
    await cutNode.waitForStderr(/-> disconnected/);
    // The cut node's own change is applied locally at once, and queued for the others.
    await emit(2, 'updated');
    await Promise.all(onCutNode.map(({ inbox }) => inbox.covered(wanted)));
    const cutFrom = published.length;
    // Far past the retention, from the connected nodes, in steps they keep up with: each step ends with
    // tools/list_changed, and a node delivers in Redis order, so once it is in, the step's updates are in too.
    const steps = 8;
    for (let step = 0; step < steps; step++) {
      await emit(step % 2, 'updated', 50);
      await emit(step % 2, 'tools');
      await Promise.all(elsewhere.map(({ inbox }) => inbox.waitFor(TOOLS, step + 2)));
    }
    const publishedWhileCut = published.length - cutFrom;
    expect(Number(await cluster.redis.command(['XLEN', '{mcp-actors}:events']))).toBeLessThan(publishedWhileCut);
    // Before the link is back: the other nodes' clients have everything; the cut node's clients lack every change made elsewhere.
    const atRestore = clients.map(({ inbox }) => ({ published: published.length, arrived: inbox.seen.length, uncovered: inbox.uncovered(wanted).length }));
    for (const { inbox } of elsewhere) expect(inbox.uncovered(wanted)).toEqual([]);
    for (const { inbox } of onCutNode) expect(inbox.uncovered(wanted)).toHaveLength(publishedWhileCut);

    const before = onCutNode.map(({ inbox }) => ({ tools: inbox.count(TOOLS), updated: inbox.count(`${UPDATED} ${resource}`) }));
    cluster.link!.restore();
    await cutNode.waitForStderr(/-> resynced/);
    // The resync: every client of the cut node hears tools/list_changed and resources/updated again.
    await Promise.all(onCutNode.map(({ inbox }, i) => inbox.waitFor(TOOLS, before[i]!.tools + 1)));
    await Promise.all(onCutNode.map(({ inbox }, i) => inbox.waitFor(`${UPDATED} ${resource}`, before[i]!.updated + 1)));
    await emit(1, 'tools');
    await emit(0, 'updated');
    await Promise.all(clients.map(({ inbox }) => inbox.covered(wanted)));

    // Per client: changes published (all of them are ones it follows), notifications it got, and what was neither
    // received nor covered when the link came back and at the end.
    const counts = clients.map(({ node, client, inbox }, i) => ({
      node,
      client,
      published: published.length,
      notifications: inbox.seen.length,
      publishedBeforeLinkBack: atRestore[i]!.published,
      missingWhenLinkBack: atRestore[i]!.uncovered,
      notificationsAfterLinkBack: inbox.seen.length - atRestore[i]!.arrived,
      missingAtEnd: inbox.uncovered(wanted).length,
    }));
    console.table(counts);
    for (const { missingAtEnd } of counts) expect(missingAtEnd).toBe(0);
    // Only the cut node resynced, because its last id was trimmed away; the others never had to.
    expect(cutNode.stderr.some((line) => /trimmed/.test(line))).toBe(true);
    expect(cutNode.stderr.some((line) => /everything changed/.test(line))).toBe(true);
    for (const node of cluster.nodes.filter((candidate) => candidate !== cutNode)) {
      expect(node.stderr.some((line) => /everything changed/.test(line))).toBe(false);
    }
  });
});

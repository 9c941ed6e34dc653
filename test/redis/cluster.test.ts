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
class Inbox {
  readonly seen: string[] = [];
  readonly reconnects: SubscriberMessage[] = [];
  private waiters: Array<{ key: string; count: number; resolve: () => void }> = [];

  push(method: string, params: unknown): void {
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    this.seen.push(typeof uri === 'string' ? `${method} ${uri}` : method);
    this.waiters = this.waiters.filter((waiter) => !(this.count(waiter.key) >= waiter.count && (waiter.resolve(), true)));
  }

  count(key: string): number {
    return this.seen.filter((seen) => seen === key).length;
  }

  /** Resolves once `key` has arrived `count` times in all. */
  waitFor(key: string, count = 1): Promise<void> {
    if (this.count(key) >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ key, count, resolve }));
  }

  subscriber = (message: SubscriberMessage): void => {
    if (message.type === 'notification') this.push(message.method, message.params);
    else if (message.type === 'reconnected') this.reconnects.push(message);
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

// Three node processes start under tsx on a shared machine: give them time.
describe('three nodes on Redis behind a round-robin proxy', { timeout: 90_000 }, () => {
  it('a change published on any node reaches every matching stream and session exactly once, and nothing unrequested', async () => {
    cluster = await startCluster(3, { sticky: true });
    const url = cluster.proxy.url;
    const oursModern = new Inbox();
    const oursLegacy = new Inbox();
    await (await ourClient(url, 'modern')).listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, oursModern.subscriber);
    await (await ourClient(url, 'legacy')).subscribeNotifications({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, oursLegacy.subscriber);
    const officialModern = await connectHttp('modern', url, 'official-modern');
    const officialModernInbox = officialInbox(officialModern);
    await officialModern.listen({ toolsListChanged: true, resourceSubscriptions: ['test://resource/2'] });
    const officialLegacy = await connectHttp('legacy', url, 'official-legacy');
    const officialLegacyInbox = officialInbox(officialLegacy);
    await officialLegacy.subscribeResource({ uri: 'test://resource/2' });
    const listens = cluster.proxy.routes.filter((route) => route.method === 'subscriptions/listen').map((route) => route.node);
    const sessions = new Set(cluster.proxy.routes.filter((route) => route.method === 'initialize').map((route) => route.node));
    // The clients' streams and sessions are spread over more than one node.
    expect(new Set([...listens, ...sessions]).size).toBeGreaterThan(1);

    const driver = newClient('modern', 'driver');
    await driver.connect(new StreamableHTTPClientTransport(new URL(url)));
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
});

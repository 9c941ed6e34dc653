/**
 * Our server's HTTP handlers mounted in existing apps (test/fixtures/mounted-apps.ts):
 * plain node:http, Express 5 and the fetch-style handler driven through
 * node:http, each at a path of the app's choosing beside the app's own
 * routes. Peers: our client and the official client 2.4.0, both eras.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import type { McpServer } from '../../src/server/index.ts';
import { MOUNTED_APPS, type MountedApp } from '../fixtures/mounted-apps.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { ALL_CHANGES, closeAllPeers, connectHttp, NotificationLog, TOOLS_CHANGED } from './official-peers.ts';

let server: McpServer;
let app: MountedApp;
const ours = new OwnClients();

afterEach(async () => {
  await closeAllPeers();
  await ours.disconnectAll();
  await server.close();
  await app.close();
});

type Subscriber = (message: SubscriberMessage) => void;

/** Subscriber messages in order, and a wait for one that matches. */
function inbox() {
  const messages: SubscriberMessage[] = [];
  let wake: (() => void) | undefined;
  return {
    push: (message: SubscriberMessage) => {
      messages.push(message);
      wake?.();
    },
    async notified(method: string): Promise<void> {
      while (!messages.some((message) => message.type === 'notification' && message.method === method)) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

const names = (tools: { name?: unknown }[]): unknown[] => tools.map((tool) => tool.name);
const ECHO = { content: [{ type: 'text', text: 'hi' }] };
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

describe.each(MOUNTED_APPS)('mounted in $name', ({ start }) => {
  beforeEach(async () => {
    server = buildFixtureServer();
    app = await start(server);
  });

  it.each([
    { era: 'modern' as const, on: 'its listen stream', hear: (client: McpClient, push: Subscriber) => client.listen({ toolsListChanged: true }, push) },
    { era: 'legacy' as const, on: 'its session', hear: (client: McpClient, push: Subscriber) => client.subscribeNotifications({ toolsListChanged: true }, push) },
  ])('serves our client in the $era era: list, call, and tools/list_changed to $on', async ({ era, hear }) => {
    const client = await ours.connectHttp(app.url, { era });
    expect(client.era).toBe(era);
    expect(names(await client.listTools())).toContain('echo');
    expect(await client.callTool('echo', { text: 'hi' })).toMatchObject(ECHO);
    const received = inbox();
    await hear(client, received.push);
    server.notifyToolsListChanged();
    await received.notified(TOOLS_CHANGED);
  });

  it('serves the official client in the legacy era: listTools, callTool, and tools/list_changed on its GET stream', async () => {
    const client = await connectHttp('legacy', app.url);
    const log = new NotificationLog(client, ALL_CHANGES);
    expect(names((await client.listTools()).tools)).toContain('echo');
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject(ECHO);
    server.notifyToolsListChanged();
    await log.waitFor(TOOLS_CHANGED);
    expect(log.methods()).toEqual([TOOLS_CHANGED]);
  });

  it('serves the official client in the modern era: listTools, callTool, and tools/list_changed on its listen stream', async () => {
    const client = await connectHttp('modern', app.url);
    const log = new NotificationLog(client, ALL_CHANGES);
    expect(names((await client.listTools()).tools)).toContain('echo');
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject(ECHO);
    await client.listen({ toolsListChanged: true });
    server.notifyToolsListChanged();
    await log.waitFor(TOOLS_CHANGED);
    expect(log.methods()).toEqual([TOOLS_CHANGED]);
  });

  it('ends its listen streams gracefully on server.close(); the app goes on and the handler answers 503', async () => {
    const client = await connectHttp('modern', app.url);
    const subscription = await client.listen({ toolsListChanged: true });
    await server.close();
    await expect(subscription.closed).resolves.toBe('graceful');
    expect(await (await fetch(app.healthUrl)).text()).toBe('ok');
    const late = await fetch(app.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INIT) });
    expect(late.status).toBe(503);
    // Come back in a second: by then a load balancer has another node for it.
    expect(late.headers.get('retry-after')).toBe('1');
    expect(await late.json()).toMatchObject({ error: { code: -32000, message: 'This MCP endpoint is closed' } });
  });

  it('forgets a listen stream whose client left it', async () => {
    const client = await connectHttp('modern', app.url);
    const subscription = await client.listen({ toolsListChanged: true });
    expect(server.openStreamCount).toBe(1);
    await subscription.close();
    await expect(subscription.closed).resolves.toBe('local');
    // The server learns it when the response stream closes under it.
    await expect.poll(() => server.openStreamCount, { timeout: 10_000 }).toBe(0);
  });

  it('keeps a legacy session: its GET stream carries list changes until DELETE ends both', async () => {
    const init = await fetch(app.url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(INIT) });
    const session = { ...JSON_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
    expect(init.status).toBe(200);
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect((await fetch(app.url, { method: 'POST', headers: session, body: JSON.stringify(initialized) })).status).toBe(202);
    const stream = await fetch(app.url, { method: 'GET', headers: session });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    server.notifyToolsListChanged();
    let text = '';
    while (!text.includes(TOOLS_CHANGED)) text += (await reader.read()).value ?? '';
    expect(server.openSessionCount).toBe(1);
    expect((await fetch(app.url, { method: 'DELETE', headers: session })).status).toBe(200);
    expect(server.openSessionCount).toBe(0);
    for (let read = await reader.read(); !read.done; read = await reader.read());
    expect((await fetch(app.url, { method: 'POST', headers: session, body: JSON.stringify(LIST) })).status).toBe(404);
  });
});

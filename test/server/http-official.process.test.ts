/**
 * Our server over loopback HTTP (in this process, port 0), with the official
 * client 2.x as the peer: several clients on one server, both eras.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import {
  ALL_CHANGES,
  closeAllPeers,
  connectHttp,
  NotificationLog,
  progressOnWire,
  RESOURCE_UPDATED,
  TOOLS_CHANGED,
  wire,
} from './official-peers.ts';

let server: McpServer;
let url: string;

beforeEach(async () => {
  server = buildFixtureServer();
  url = (await server.listenHttp({ port: 0 })).url;
});

afterEach(async () => {
  await closeAllPeers();
  await server.close();
});

describe('legacy sessions over HTTP', () => {
  it('broadcasts a list change to every initialized session', async () => {
    const [a, b] = await Promise.all([connectHttp('legacy', url, 'a'), connectHttp('legacy', url, 'b')]);
    const logA = new NotificationLog(a, ALL_CHANGES);
    const logB = new NotificationLog(b, ALL_CHANGES);
    server.notifyToolsListChanged();
    await Promise.all([logA.waitFor(TOOLS_CHANGED), logB.waitFor(TOOLS_CHANGED)]);
    expect(logA.methods()).toEqual([TOOLS_CHANGED]);
    expect(logB.methods()).toEqual([TOOLS_CHANGED]);
  });

  it('sends a resource update only to the session that subscribed to that URI', async () => {
    const [a, b] = await Promise.all([connectHttp('legacy', url, 'a'), connectHttp('legacy', url, 'b')]);
    const logA = new NotificationLog(a, ALL_CHANGES);
    const logB = new NotificationLog(b, ALL_CHANGES);
    await a.subscribeResource({ uri: 'test://resource/1' });
    await b.subscribeResource({ uri: 'test://resource/2' });
    server.notifyResourceUpdated('test://resource/1');
    server.notifyToolsListChanged();
    await Promise.all([logA.waitFor(TOOLS_CHANGED), logB.waitFor(TOOLS_CHANGED)]);
    expect(logA.seen).toEqual([{ method: RESOURCE_UPDATED, params: { uri: 'test://resource/1' } }, { method: TOOLS_CHANGED, params: {} }]);
    expect(logB.methods()).toEqual([TOOLS_CHANGED]);
  });

  it('sends progress only to the session that called the tool', async () => {
    const [a, b] = await Promise.all([connectHttp('legacy', url, 'a'), connectHttp('legacy', url, 'b')]);
    const logB = new NotificationLog(b, ALL_CHANGES);
    await a.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: () => {} });
    server.notifyToolsListChanged();
    await logB.waitFor(TOOLS_CHANGED);
    expect(progressOnWire(a)).toEqual([1, 2, 3]);
    expect(progressOnWire(b)).toEqual([]);
  });
});

describe('modern listen streams over HTTP', () => {
  it('acknowledges with the honored filter and delivers each URI only to streams that named it', async () => {
    const [a, b] = await Promise.all([connectHttp('modern', url, 'a'), connectHttp('modern', url, 'b')]);
    const logA = new NotificationLog(a, ALL_CHANGES);
    const logB = new NotificationLog(b, ALL_CHANGES);
    const subA = await a.listen({ resourceSubscriptions: ['test://resource/1'], toolsListChanged: true });
    await b.listen({ resourceSubscriptions: ['test://resource/2'], toolsListChanged: true });
    expect(subA.honoredFilter).toEqual({ resourceSubscriptions: ['test://resource/1'], toolsListChanged: true });
    server.notifyResourceUpdated('test://resource/2');
    server.notifyPromptsListChanged();
    server.notifyToolsListChanged();
    await Promise.all([logA.waitFor(TOOLS_CHANGED), logB.waitFor(TOOLS_CHANGED)]);
    expect(logA.methods()).toEqual([TOOLS_CHANGED]);
    expect(logB.seen.map((entry) => [entry.method, entry.params.uri])).toEqual([
      [RESOURCE_UPDATED, 'test://resource/2'],
      [TOOLS_CHANGED, undefined],
    ]);
  });

  it('sends progress on the caller\'s response stream only', async () => {
    const [a, b] = await Promise.all([connectHttp('modern', url, 'a'), connectHttp('modern', url, 'b')]);
    const logB = new NotificationLog(b, ALL_CHANGES);
    await b.listen({ toolsListChanged: true });
    await a.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: () => {} });
    server.notifyToolsListChanged();
    await logB.waitFor(TOOLS_CHANGED);
    expect(progressOnWire(a)).toEqual([1, 2, 3]);
    expect(progressOnWire(b)).toEqual([]);
  });

  it('ends every listen stream gracefully on server.close()', async () => {
    const client = await connectHttp('modern', url);
    const first = await client.listen({ toolsListChanged: true });
    const second = await client.listen({ resourceSubscriptions: ['test://resource/3'] });
    await server.close();
    await expect(first.closed).resolves.toBe('graceful');
    await expect(second.closed).resolves.toBe('graceful');
    const completions = wire(client).filter((message) => 'result' in message);
    expect(completions).toContainEqual(expect.objectContaining({
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': expect.anything() } },
    }));
  });

  it('ends the listen streams of an endpoint gracefully when that endpoint alone is closed', async () => {
    const endpoint = await server.listenHttp({ port: 0 });
    const client = await connectHttp('modern', endpoint.url);
    const subscription = await client.listen({ toolsListChanged: true });
    const other = await (await connectHttp('modern', url)).listen({ toolsListChanged: true });
    await endpoint.close();
    await expect(subscription.closed).resolves.toBe('graceful');
    expect(wire(client)).toContainEqual(expect.objectContaining({ result: expect.objectContaining({ resultType: 'complete' }) }));
    // The server's other endpoint and its streams go on.
    server.notifyToolsListChanged();
    expect(server.openStreamCount).toBe(1);
    await other.close();
  });

  it('does not cancel a stream that already ended when its response closes afterwards', async () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      const client = await connectHttp('modern', url);
      const subscription = await client.listen({ toolsListChanged: true });
      await server.close();
      await expect(subscription.closed).resolves.toBe('graceful');
      await closeAllPeers();
      const stale = warn.mock.calls.filter(([message]) => String(message).includes('sent to stopped actor'));
      expect(stale).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('forgets a stream whose client closed it', async () => {
    const client = await connectHttp('modern', url);
    const subscription = await client.listen({ toolsListChanged: true });
    expect(server.openStreamCount).toBe(1);
    await subscription.close();
    await expect(subscription.closed).resolves.toBe('local');
    // The server sees the response stream close; the count drops once it has.
    await client.callTool({ name: 'echo', arguments: { text: 'barrier' } });
    await expect.poll(() => server.openStreamCount).toBe(0);
  });
});

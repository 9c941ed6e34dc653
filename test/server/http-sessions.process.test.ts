/**
 * Legacy HTTP sessions end by themselves once nobody uses them (the official
 * client's close() sends no DELETE), and with their endpoint. The official
 * client is the peer; the idle time runs on fake timers.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closeAllPeers, connectHttp } from './official-peers.ts';

let server: McpServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await closeAllPeers();
  await server?.close();
  server = undefined;
});

it('ends a session its client left without DELETE after sessionIdleMs, but not one whose GET stream is open', async () => {
  server = buildFixtureServer({ limits: { sessionIdleMs: 60_000, maxSessions: 2 } });
  const { url } = await server.listenHttp({ port: 0 });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const leaving = await connectHttp('legacy', url, 'leaving');
  const staying = await connectHttp('legacy', url, 'staying');
  expect(server.openSessionCount).toBe(2);
  await leaving.close();
  // A round trip on the other session: the server has seen the first client's GET stream close by now.
  await staying.callTool({ name: 'echo', arguments: { text: 'barrier' } });
  vi.advanceTimersByTime(59_999);
  expect(server.openSessionCount).toBe(2);
  vi.advanceTimersByTime(1);
  expect(server.openSessionCount).toBe(1);
  vi.advanceTimersByTime(600_000);
  expect(server.openSessionCount).toBe(1);
  // The freed slot takes a new session (maxSessions is 2).
  await connectHttp('legacy', url, 'next');
  expect(server.openSessionCount).toBe(2);
});

it('ends its legacy sessions when the HTTP endpoint closes', async () => {
  server = buildFixtureServer();
  const handle = await server.listenHttp({ port: 0 });
  await connectHttp('legacy', handle.url);
  expect(server.openSessionCount).toBe(1);
  await handle.close();
  expect(server.openSessionCount).toBe(0);
});

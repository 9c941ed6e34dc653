/**
 * Legacy HTTP sessions end by themselves once nobody uses them (the official
 * client's close() sends no DELETE), and with their endpoint. The official
 * client is the peer; the idle time runs on fake timers.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { closeAllPeers, connectHttp } from './official-peers.ts';
import { RawLegacySession } from './raw-http-peer.ts';

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

it('ends sessions whose clients never send notifications/initialized after initializeTimeoutMs, freeing their maxSessions slots', async () => {
  server = buildFixtureServer({ limits: { maxSessions: 2 } });
  const { url } = await server.listenHttp({ port: 0 });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  // Two clients that initialize and never confirm (scripted: the official client always confirms) take both slots.
  const hoarders = [await RawLegacySession.open(url, false), await RawLegacySession.open(url, false)];
  await expect(connectHttp('legacy', url, 'refused')).rejects.toThrow();
  // Talking does not keep an unconfirmed session: the limit counts from its start.
  vi.advanceTimersByTime(DEFAULT_LIMITS.initializeTimeoutMs - 1_000);
  const pinged = await hoarders[0]!.request(1, 'ping');
  await pinged.ended;
  expect(pinged.messages[0]?.result).toEqual({});
  expect(server.openSessionCount).toBe(2);
  vi.advanceTimersByTime(999);
  expect(server.openSessionCount).toBe(2);
  vi.advanceTimersByTime(1);
  expect(server.openSessionCount).toBe(0);
  const gone = await hoarders[1]!.request(2, 'ping');
  expect(gone.response.status).toBe(404);
  // The freed slots take clients that do finish initializing, and those stay past the limit.
  await connectHttp('legacy', url, 'first');
  await connectHttp('legacy', url, 'second');
  vi.advanceTimersByTime(DEFAULT_LIMITS.initializeTimeoutMs * 2);
  expect(server.openSessionCount).toBe(2);
});

/**
 * Idle listen streams get an SSE comment every keepAliveMs, so proxies and
 * client idle timeouts do not cut them. Time is driven by fake timers.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { modernMeta } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
});

it('writes an SSE comment on an idle listen stream each keepAliveMs', async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  server = buildFixtureServer();
  const { url } = await server.listenHttp({ port: 0, keepAliveMs: 10_000 });
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications: { toolsListChanged: true } } }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const read = async () => decoder.decode((await reader.read()).value);
  expect(await read()).toContain('notifications/subscriptions/acknowledged');
  vi.advanceTimersByTime(10_000);
  expect(await read()).toBe(':\n\n');
  server.notifyToolsListChanged();
  expect(await read()).toContain('notifications/tools/list_changed');
  await reader.cancel();
});

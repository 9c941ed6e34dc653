/**
 * A legacy POST's response stream that a client resumed by GET (with one of
 * the stream's `Last-Event-ID`s) and then lost again waits for another resume
 * for `replayAgeMs`, as after losing the POST's own connection; then it is
 * dropped and its handler's signal aborts. The peer is scripted, to resume and
 * drop connections on cue.
 */
import { afterEach, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { RawLegacySession } from './raw-http-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('drops a resumed POST stream whose resuming GET was lost once it went replayAgeMs without a connection', async () => {
  server = buildFixtureServer({ limits: { replayAgeMs: 100 } });
  let markAborted!: () => void;
  const aborted = new Promise<void>((resolve) => (markAborted = resolve));
  server.defineTool('report-then-hold', { description: 'Sends progress, then waits for its signal', inputSchema: { type: 'object' } }, async (_args, context) => {
    await context.progress(1);
    await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    markAborted();
    return { content: [] };
  });
  const { url } = await server.listenHttp({ port: 0 });
  const session = await RawLegacySession.open(url);
  const post = await session.post({ jsonrpc: '2.0', id: 'held', method: 'tools/call', params: { name: 'report-then-hold', arguments: {}, _meta: { progressToken: 't' } } });
  await post.next((message) => message.method === 'notifications/progress');

  // The client resumes while the POST's connection still looks alive to the server, which ends that one properly.
  const drop = new AbortController();
  const resumed = await session.stream('p1-1', { signal: drop.signal });
  expect(resumed.response.status).toBe(200);
  await post.ended;
  drop.abort();
  await resumed.ended;

  const bound = new Promise<'still held'>((resolve) => setTimeout(() => resolve('still held'), 5_000).unref());
  expect(await Promise.race([aborted.then(() => 'dropped' as const), bound])).toBe('dropped');
  // Nothing is left to resume.
  const late = await session.stream('p1-1');
  expect(late.response.status).toBe(400);
});

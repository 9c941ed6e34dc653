/**
 * A client cannot make the server run its handlers without end: past
 * `maxRequestsPerConnection` requests being answered on one stdio connection
 * or legacy HTTP session, one more is refused with -32000 naming the limit
 * (HTTP 429) and its handler does not run; once one is answered the next is
 * taken again. Scripted peers: the official client does not flood on cue.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { RawLegacySession } from './raw-http-peer.ts';
import { serveInProcessStdio } from './in-process-stdio.ts';
import { modernMeta } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server allowing two requests at once per connection, with `hold`, whose calls wait until the test releases them. */
function holdingServer() {
  server = buildFixtureServer({ limits: { maxRequestsPerConnection: 2 } });
  const held: (() => void)[] = [];
  let calls = 0;
  let onCall = () => {};
  server.defineTool('hold', { description: 'Waits for its release', inputSchema: { type: 'object' } }, async () => {
    calls++;
    onCall();
    await new Promise<void>((resolve) => held.push(resolve));
    return { content: [{ type: 'text', text: `released ${calls}` }] };
  });
  /** Resolves once `count` calls have started. */
  const started = (count: number) =>
    new Promise<void>((resolve) => {
      onCall = () => calls >= count && resolve();
      onCall();
    });
  return { server, held, started, calls: () => calls };
}

const call = (id: number | string, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'hold', arguments: {}, ...(meta ? { _meta: meta } : {}) },
});

describe('maxRequestsPerConnection', () => {
  it('stdio: the request past the limit is refused with -32000 naming it, its handler does not run, and a later one is taken', async () => {
    const { server, held, started, calls } = holdingServer();
    const peer = serveInProcessStdio(server);
    const response = (id: unknown) => peer.next((message) => message.id === id);
    for (const id of [1, 2, 3]) peer.send(call(id, modernMeta()));
    expect((await response(3)).error).toMatchObject({ code: -32000, data: { limit: 'maxRequestsPerConnection', max: 2 } });
    await started(2);
    expect(calls()).toBe(2);
    held.shift()!();
    expect((await response(1)).result).toMatchObject({ content: [{ text: 'released 2' }] });
    peer.send(call(4, modernMeta()));
    await started(3);
    for (const release of held.splice(0)) release();
    expect((await response(4)).result).toBeDefined();
    expect((await response(2)).result).toBeDefined();
    peer.end();
  });

  it('legacy HTTP: the request past the limit of its session gets HTTP 429 and -32000 naming it, and its handler does not run', async () => {
    const { server, held, started, calls } = holdingServer();
    const { url } = await server.listenHttp({ port: 0 });
    const session = await RawLegacySession.open(url);
    const first = [session.post(call(1)), session.post(call(2))];
    await started(2);
    const refused = await session.post(call(3));
    await refused.ended;
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('retry-after')).toBe('1');
    expect(refused.messages).toEqual([expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32000, data: { limit: 'maxRequestsPerConnection', max: 2 } }) })]);
    expect(calls()).toBe(2);
    for (const release of held.splice(0)) release();
    for (const exchange of await Promise.all(first)) await exchange.ended;
  });
});

/**
 * A client that reuses the id of a request still being answered gets
 * -32600 for the second, and the first keeps its id: it is still answered,
 * and `notifications/cancelled` for that id still reaches its handler. Over
 * stdio and over legacy HTTP (a session's requests share one id space). The
 * peers are scripted: the official client never reuses an id on cue.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { RawLegacySession } from './raw-http-peer.ts';
import { holdingServer } from './holding-server.ts';
import { serveInProcessStdio } from './in-process-stdio.ts';
import { modernMeta } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A holding server, closed after the test. */
function holding() {
  const made = holdingServer();
  server = made.server;
  return made;
}

describe('a request id already in use', () => {
  it('stdio: is refused with -32600, and the first request keeps its id and its cancel', async () => {
    const { server, started, aborted, calls } = holding();
    const peer = serveInProcessStdio(server);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hold', arguments: {}, _meta: modernMeta() } };
    peer.send(call);
    await started;
    peer.send(call);
    const refused = await peer.next((message) => message.id === 7 && message.error !== undefined);
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining('already in use') });
    expect(calls()).toBe(1);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, _meta: modernMeta() } });
    await aborted;
    peer.end();
  });

  it('legacy HTTP: is refused with HTTP 400 and -32600, and the first request keeps its id and its cancel', async () => {
    const { server, started, aborted, calls } = holding();
    const { url } = await server.listenHttp({ port: 0 });
    const session = await RawLegacySession.open(url);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hold', arguments: {} } };
    const first = session.post(call);
    await started;
    const second = await session.post(call);
    await second.ended;
    expect(second.response.status).toBe(400);
    expect(second.messages).toEqual([expect.objectContaining({ id: 7, error: expect.objectContaining({ code: -32600, message: expect.stringContaining('already in use') }) })]);
    expect(calls()).toBe(1);
    await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })).ended;
    await aborted;
    await (await first).ended.catch(() => {});
  });
});

/**
 * A legacy POST whose request is abandoned before anything was sent (the
 * client cancelled it, or DELETEd its session) is still answered as the
 * transport says a request's POST is: an SSE stream (here ending without the
 * response the cancel asked not to send), never a bare 200 without a
 * Content-Type. The peer is scripted, to read the raw answer.
 */
import { afterEach, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { holdingServer } from './holding-server.ts';
import { RawLegacySession } from './raw-http-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A session of a holding server on loopback, and its `hold` call, started and still unanswered. */
async function heldCall() {
  const made = holdingServer();
  server = made.server;
  const { url } = await server.listenHttp({ port: 0 });
  const session = await RawLegacySession.open(url);
  const exchange = session.request('held', 'tools/call', { name: 'hold', arguments: {} });
  await made.started;
  return { url, session, exchange };
}

it('answers a POST whose request the client cancelled with an SSE stream that ends without a response', async () => {
  const { session, exchange } = await heldCall();
  await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'held' } })).ended;
  const held = await exchange;
  await held.ended;
  expect(held.response.status).toBe(200);
  expect(held.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(held.response.headers.get('mcp-session-id')).toBe(session.id);
  expect(held.messages).toEqual([]);
});

it('answers a POST in flight when its client DELETEs the session with an SSE stream that ends without a response', async () => {
  const { url, session, exchange } = await heldCall();
  const deleted = await fetch(url, { method: 'DELETE', headers: session.headers });
  expect(deleted.status).toBe(200);
  const held = await exchange;
  await held.ended;
  expect(held.response.status).toBe(200);
  expect(held.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(held.messages).toEqual([]);
});

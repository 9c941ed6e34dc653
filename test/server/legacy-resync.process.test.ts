/**
 * A legacy GET stream that reconnects past its replay buffer (a gap) gets a
 * resync: every list change the session is registered for and a
 * `resources/updated` for every URI it subscribed. That resync is the
 * session's own doing and is bounded by its subscriptions, so it never counts
 * against the slow-consumer bounds that end a session (`maxPendingPerStream`,
 * `maxPendingBytesPerStream`), however many resources it listens to. The peer
 * is scripted, to reconnect with a `Last-Event-ID` of its choosing.
 */
import { afterEach, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import type { ServerLimits } from '../../src/server/limits.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { RawLegacySession } from './raw-http-peer.ts';
import type { Message } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A 2025-03-26 session (batches: one POST subscribes it to every URI) subscribed to `count` URIs. */
async function subscribedSession(limits: Partial<ServerLimits>, count: number) {
  server = buildFixtureServer({ limits });
  const { url } = await server.listenHttp({ port: 0 });
  const session = await RawLegacySession.open(url, true, '2025-03-26');
  const uris = Array.from({ length: count }, (_, n) => `test://subscribed/a-resource-with-a-longish-name-${n}`);
  const batch = uris.map((uri, n) => ({ jsonrpc: '2.0', id: n + 1, method: 'resources/subscribe', params: { uri } }));
  const subscribed = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...session.headers },
    body: JSON.stringify(batch),
  });
  expect(((await subscribed.json()) as Message[]).filter((answer) => answer.error !== undefined)).toEqual([]);
  return { session, uris };
}

/** Reconnects the GET stream from an id the replay buffer does not reach (a gap), and reads its resync. */
async function resync(session: RawLegacySession, uris: string[]) {
  const stream = await session.stream('g999999');
  const last = uris[uris.length - 1];
  // The session ending would end the stream instead.
  await Promise.race([stream.next((message) => message.method === 'notifications/resources/updated' && message.params?.uri === last), stream.ended]);
  return stream.messages.filter((message) => message.method === 'notifications/resources/updated').map((message) => message.params?.uri);
}

it('a session subscribed to 800 resources survives the resync of its gap, though its frames pass maxPendingBytesPerStream', async () => {
  const { session, uris } = await subscribedSession({}, 800);
  expect(await resync(session, uris)).toEqual(uris);
  expect(server!.openSessionCount).toBe(1);
  const ping = await session.request('after', 'ping');
  await ping.ended;
  expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 'after', result: {} }]);
});

it('a session subscribed to more resources than maxPendingPerStream survives the resync of its gap', async () => {
  const { session, uris } = await subscribedSession({ maxPendingPerStream: 16 }, 40);
  expect(await resync(session, uris)).toEqual(uris);
  expect(server!.openSessionCount).toBe(1);
});

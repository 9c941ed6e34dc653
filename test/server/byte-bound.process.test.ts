/**
 * What waits for one listen stream is bounded in bytes under default limits:
 * a client that stops reading while distinct events keep coming ends
 * `slow_consumer` once more than maxPendingBytesPerStream (64 KiB) of them
 * wait, although it could never reach maxPendingPerStream (1,024 distinct
 * events) with a filter of at most 256 URIs. A client that reads takes a
 * burst of the same size whole. Scripted peers (the official client cannot
 * stop reading on cue).
 */
import { expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { modernPost } from './raw-http-peer.ts';
import { perTestPeers } from './per-test-peers.ts';
import type { Message, RawStdioPeer } from './raw-stdio-peer.ts';

/** 256 URIs (the most one filter may name) of ~300 bytes: all updated at once is ~110 KB of frames. */
const URIS = Array.from({ length: DEFAULT_LIMITS.maxUrisPerFilter }, (_, i) => `test://stalled/${i}/${'x'.repeat(280)}`);
const isUpdate = (message: Message) => message.method === 'notifications/resources/updated';

const make = perTestPeers();

async function listening(): Promise<RawStdioPeer> {
  const p = make.peer();
  p.request('L', 'subscriptions/listen', { notifications: { resourceSubscriptions: URIS } });
  await p.next((message) => message.method === 'notifications/subscriptions/acknowledged');
  return p;
}

it('takes a burst of more than maxPendingBytesPerStream whole when the client reads', async () => {
  const p = await listening();
  p.request(1, 'tools/call', { name: 'emit', arguments: { kind: 'updated', uris: URIS } });
  await p.response(1);
  await p.next((message) => isUpdate(message) && message.params?.uri === URIS.at(-1));
  const updates = p.received.filter(isUpdate);
  expect(updates.map((message) => message.params?.uri)).toEqual(URIS);
  expect(updates.reduce((bytes, message) => bytes + JSON.stringify(message).length, 0)).toBeGreaterThan(DEFAULT_LIMITS.maxPendingBytesPerStream);
  // Still open: a later update arrives.
  p.request(2, 'tools/call', { name: 'emit', arguments: { kind: 'updated', uri: URIS[0] } });
  await p.next((message) => isUpdate(message) && p.received.filter(isUpdate).length === URIS.length + 1);
});

// Shown over HTTP, where the server writes on and the stream's lane fills; a stdio connection's lanes have the same
// bound (its outbox waits for stdout to drain, so what a stalled client leaves unread waits in the lanes too).
it('ends an HTTP stream whose client stopped reading with slow_consumer once 64 KiB of distinct events wait, under default bounds', async () => {
  // Default bounds; only the completion's patience is long, so the error is still there when the client looks.
  const server = make.server({ limits: { finishTimeoutMs: 600_000 } });
  const { url } = await server.listenHttp({ port: 0 });
  const listen = await modernPost(url, 'L', 'subscriptions/listen', { notifications: { resourceSubscriptions: URIS } }, {}, { read: false });
  // Each emit updates all 256 URIs (~110 KB of frames). The client reads none of them, so socket buffers fill,
  // then the server's writes back up, then 64 KiB wait in the stream's lane. 40 MB is past any loopback buffer.
  const rounds = Math.ceil((40 * 1024 * 1024) / (URIS.length * 300));
  for (let round = 0; round < rounds; round++) {
    const emitted = await modernPost(url, round, 'tools/call', { name: 'emit', arguments: { kind: 'updated', uris: URIS } });
    await emitted.ended;
  }
  listen.read();
  await listen.ended;
  const last = listen.messages.at(-1);
  expect(last?.error).toEqual({
    code: -32000,
    message: 'listen stream ended: the client did not keep up with its events',
    data: {
      reason: 'slow_consumer',
      exceeded: 'bytes',
      maxPending: DEFAULT_LIMITS.maxPendingPerStream,
      maxPendingBytes: DEFAULT_LIMITS.maxPendingBytesPerStream,
      'io.modelcontextprotocol/subscriptionId': 'L',
    },
  });
  expect(listen.messages.filter(isUpdate).length).toBeLessThan(rounds * URIS.length);
}, 120_000);

/**
 * Answers first: a request that arrives while the server streams a
 * 100,000-notification progress burst to the same client is answered ahead of
 * the queued burst (on stdio, where both share one pipe, behind at most
 * outboxHighWater progress frames on the wire; on HTTP, while the burst still
 * streams on its own response), and the burst itself arrives whole and in order. Over a stdio child
 * and a loopback HTTP child, both eras. The peers are scripted: the official
 * client takes longer than a test may to take 100,000 progress callbacks, and
 * the count is of frames on the wire.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_VERSIONS } from '../../src/protocol/versions.ts';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { modernPost, RawLegacySession, type RawExchange } from './raw-http-peer.ts';
import { modernMeta, RawStdioPeer, type Message } from './raw-stdio-peer.ts';

const BURST = 100_000;
/** 100,000 frames through a child process take seconds on a machine shared with other work. */
const BURST_TEST_MS = 120_000;
const HALF_WAY = (message: Message) => message.method === 'notifications/progress' && message.params?.progress === BURST / 2;
const isProgress = (message: Message) => message.method === 'notifications/progress';
const inOrder = Array.from({ length: BURST }, (_, index) => index + 1);
const progressOf = (messages: Message[]) => messages.filter(isProgress).map((message) => message.params!.progress);
const BURST_ARGS = { name: 'progress', arguments: { steps: BURST } };
const ECHO_ARGS = { name: 'echo', arguments: { text: 'during' } };

let peer: RawStdioPeer | undefined;
let http: HttpFixture | undefined;
beforeAll(async () => {
  http = await startHttpFixture('own');
});
afterEach(() => {
  peer?.kill();
  peer = undefined;
});
afterAll(async () => {
  await http?.stop();
});

/** Progress frames in `messages` after the first `from` that arrived before `answer`. */
const progressBetween = (messages: Message[], from: number, answer: Message) =>
  messages.slice(from, messages.indexOf(answer)).filter(isProgress);

/**
 * What may already be on its way when a request arrives, past the server's
 * reach: a Linux pipe holds 64 KiB, and the child's stdout stream buffers up
 * to its 16 KiB high-water mark before it reports backpressure. A client
 * slower than the server finds that much ahead of any answer.
 */
const IN_FLIGHT_BYTES = 64 * 1024 + 16 * 1024;
const lineBytes = (message: Message) => Buffer.byteLength(JSON.stringify(message)) + 1;

describe('a request sent during a 100,000-notification progress burst', () => {
  it.each(['modern', 'legacy'] as const)('over stdio (%s) is answered ahead of the queued burst, which arrives whole and in order', async (era) => {
    const p = (peer = new RawStdioPeer());
    const meta = (extra: Record<string, unknown> = {}) => (era === 'modern' ? { _meta: modernMeta(extra) } : { _meta: extra });
    if (era === 'legacy') {
      p.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY_VERSIONS.at(-1), capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await p.response(0);
      p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...BURST_ARGS, ...meta({ progressToken: 'burst' }) } });
    await p.next(HALF_WAY);
    const sentAt = p.received.length;
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...ECHO_ARGS, ...meta() } });
    const echo = await p.response(2);
    expect(echo.result?.content).toEqual([{ type: 'text', text: 'during' }]);
    const done = await p.response(1);
    expect(done.result?.content).toEqual([{ type: 'text', text: `done ${BURST}` }]);
    // Behind at most outboxHighWater frames of the server's queue, besides what the pipe already held
    // (the queue before answers went first: 1,400 to 14,000 frames).
    const behind = progressBetween(p.received, sentAt, echo);
    const frame = lineBytes(behind[0] ?? {});
    expect(behind.length).toBeLessThanOrEqual(DEFAULT_LIMITS.outboxHighWater + Math.ceil(IN_FLIGHT_BYTES / frame));
    // The burst is neither cut nor reordered by the answer that went ahead, and its own response comes last.
    expect(progressOf(p.received)).toEqual(inOrder);
    expect(p.received.findLastIndex(isProgress)).toBeLessThan(p.received.indexOf(done));
  }, BURST_TEST_MS);

  it.each(['modern', 'legacy'] as const)('over HTTP (%s) is answered while the burst streams on, which arrives whole and in order', async (era) => {
    const url = http!.url;
    const session = era === 'legacy' ? await RawLegacySession.open(url) : undefined;
    const call = (id: number, params: Record<string, unknown>, progressToken?: string): Promise<RawExchange> =>
      session
        ? session.request(id, 'tools/call', { ...params, ...(progressToken ? { _meta: { progressToken } } : {}) })
        : modernPost(url, id, 'tools/call', params, progressToken ? { progressToken } : {});
    // A first round trip opens the keep-alive connection the echo will reuse.
    await (await call(0, { name: 'echo', arguments: { text: 'warm' } })).ended;
    const burst = await call(1, BURST_ARGS, 'burst');
    await burst.next(HALF_WAY);
    const sentAt = burst.messages.length;
    const echo = await call(2, ECHO_ARGS);
    const answer = await echo.next((message) => message.id === 2);
    // Answered while the burst still streams: its own response has not arrived yet. (The answer travels on
    // its own response, so how many burst frames arrive meanwhile is the sockets' backlog, not the server's.)
    expect(burst.messages.some((message) => message.id === 1)).toBe(false);
    expect(burst.messages.length - sentAt).toBeLessThan(BURST / 2);
    expect(answer.result?.content).toEqual([{ type: 'text', text: 'during' }]);
    await burst.ended;
    expect(progressOf(burst.messages)).toEqual(inOrder);
    expect(burst.messages.at(-1)?.result?.content).toEqual([{ type: 'text', text: `done ${BURST}` }]);
  }, BURST_TEST_MS);
});

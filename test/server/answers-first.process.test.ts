/**
 * Answers first: a request that arrives while the server streams a
 * 100,000-notification progress burst to the same client is answered ahead of
 * the queued burst (on stdio, where both share one output, the server writes
 * no burst notification between reading the request and writing its answer;
 * on HTTP, the answer goes out while the burst still streams on its own
 * response), and the burst itself arrives whole and in order. Over a stdio
 * child and a loopback HTTP child, both eras. The peers are scripted: the
 * official client takes longer than a test may to take 100,000 progress
 * callbacks, and the count is of frames on the wire.
 *
 * On stdio the server's side is watched by bench/server/stdio-tap.ts,
 * preloaded into the fixture: what the client reads before the answer also
 * holds what the kernel already held when the request arrived (64 KiB in a
 * pipe, about 200 KiB in the UNIX socket pair Node's child_process makes),
 * refilled as the client reads while the request is on its way; that count
 * is the benchmark's to report (bench/run.ts), not a bound a test can hold
 * the server to.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TapReport } from '../../bench/server/tap-report.ts';
import { LEGACY_VERSIONS } from '../../src/protocol/versions.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { modernPost, RawLegacySession, type RawExchange } from './raw-http-peer.ts';
import { modernMeta, RawStdioPeer, type Message } from './raw-stdio-peer.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

const BURST = 100_000;
/** 100,000 frames through a child process take seconds on a machine shared with other work. */
const BURST_TEST_MS = 120_000;
const HALF_WAY = (message: Message) => message.method === 'notifications/progress' && message.params?.progress === BURST / 2;
const isProgress = (message: Message) => message.method === 'notifications/progress';
const inOrder = Array.from({ length: BURST }, (_, index) => index + 1);
const progressOf = (messages: Message[]) => messages.filter(isProgress).map((message) => message.params!.progress);
const BURST_ARGS = { name: 'progress', arguments: { steps: BURST } };
const ECHO_ARGS = { name: 'echo', arguments: { text: 'during' } };

const TAP = fileURLToPath(new URL('../../bench/server/stdio-tap.ts', import.meta.url));
/** Stdio's write slice (src/server/stdio.ts): the most its stdout buffer holds past the kernel's, plus one frame. */
const STDIO_SLICE = 4 * 1024;

let peer: RawStdioPeer | undefined;
let http: HttpFixture | undefined;
let reports: string | undefined;
beforeAll(async () => {
  http = await startHttpFixture('own');
  reports = mkdtempSync(join(tmpdir(), 'answers-first-'));
});
afterEach(() => {
  peer?.kill();
  peer = undefined;
});
afterAll(async () => {
  await http?.stop();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

const lineBytes = (message: Message) => Buffer.byteLength(JSON.stringify(message)) + 1;

describe('a request sent during a 100,000-notification progress burst', () => {
  it.each(['modern', 'legacy'] as const)('over stdio (%s) is answered ahead of the queued burst, which arrives whole and in order', async (era) => {
    const reportFile = join(reports!, `${era}.json`);
    const p = (peer = new RawStdioPeer([], { nodeArgs: ['--import', fixtureBundle(TAP)], env: { STDIO_TAP_REPORT: reportFile } }));
    const meta = (extra: Record<string, unknown> = {}) => (era === 'modern' ? { _meta: modernMeta(extra) } : { _meta: extra });
    if (era === 'legacy') {
      p.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY_VERSIONS.at(-1), capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await p.response(0);
      p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...BURST_ARGS, ...meta({ progressToken: 'burst' }) } });
    const half = await p.next(HALF_WAY);
    p.send({ jsonrpc: '2.0', id: 'follow-up', method: 'tools/call', params: { ...ECHO_ARGS, ...meta() } });
    const echo = await p.response('follow-up');
    expect(echo.result?.content).toEqual([{ type: 'text', text: 'during' }]);
    const done = await p.response(1);
    expect(done.result?.content).toEqual([{ type: 'text', text: `done ${BURST}` }]);
    // On the server's output: echo answers in the turn that read it, and answers go ahead of every queued
    // notification, so none is written between reading the request and its answer (the queue before
    // answers went first: outboxHighWater, where the burst's producer waits); the stdout buffer then held
    // at most one write slice, so what was ahead of the answer was already in the kernel's buffer.
    const tap = JSON.parse(readFileSync(reportFile, 'utf8')) as TapReport;
    expect(tap.ahead).toBe(0);
    expect(tap.buffered).toBeLessThanOrEqual(STDIO_SLICE + lineBytes(half));
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

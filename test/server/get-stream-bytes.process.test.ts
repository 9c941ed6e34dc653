/**
 * What waits unread on a legacy session's GET stream is bounded by
 * `maxQueuedBytes`, as on an answer stream. A batched request has no stream of
 * its own, so its handler's asks go on the session's GET stream, and nobody
 * waits for room there: a client that opened the stream and stopped reading
 * made the server keep every ask of any size. Past the bound the session ends
 * (as it does when its change events pile up): its GET stream ends, the
 * batch answers SlowConsumerError, every ask settles with a typed error, and
 * other sessions go on. The client is a raw loopback one (node:http) that
 * pauses its GET socket: the official clients cannot stop reading on cue.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { ClientRequestCancelledError, SlowConsumerError } from '../../src/server/errors.ts';
import type { McpServer } from '../../src/server/index.ts';
import type { FixtureOptions } from '../fixtures/own-server-setup.ts';
import { textResult } from '../fixtures/conformance/diagnostic-tools.ts';
import { perTestPeers } from './per-test-peers.ts';
import { RawLegacySession } from './raw-http-peer.ts';

const MAX_QUEUED_BYTES = 64 * 1024;
/** 4,096 asks of 16 KiB: 64 MiB, a thousand times the bound and past any loopback buffer. */
const FLOOD = { count: 4096, bytes: 16 * 1024 };
const SLOW_CONSUMER = {
  code: -32000,
  message: `Answer stream ended: the client did not read while more than ${MAX_QUEUED_BYTES} bytes (maxQueuedBytes) waited`,
  data: { reason: 'slow_consumer', exceeded: 'queued_bytes', limit: 'maxQueuedBytes', max: MAX_QUEUED_BYTES },
};

const make = perTestPeers();
let app: Server | undefined;
afterEach(async () => {
  app?.closeAllConnections();
  if (app) await new Promise((resolve) => app!.close(resolve));
  app = undefined;
});

/** What the flooding handler saw: why it stopped and how many asks it sent, then how each ask settled. */
interface Flood {
  stopped: Promise<{ reason: unknown; sent: number }>;
  settled: Promise<unknown[]>;
}

/**
 * The fixture server with `ask-flood {count, bytes}`: a `sampling/createMessage` of `bytes` characters each turn,
 * none awaited before the next (as a handler fanning out work), until its signal aborts.
 */
function askingServer(limits: FixtureOptions['limits']): { server: McpServer; flood: Flood } {
  const server = make.server({ limits: { maxQueuedBytes: MAX_QUEUED_BYTES, ...limits } });
  let stop!: (value: { reason: unknown; sent: number }) => void;
  let settle!: (outcomes: unknown[]) => void;
  const flood: Flood = { stopped: new Promise((resolve) => (stop = resolve)), settled: new Promise((resolve) => (settle = resolve)) };
  server.defineTool('ask-flood', { description: 'Asks the client count times, bytes characters each', inputSchema: { type: 'object' } }, async (args, context) => {
    const asks: Promise<unknown>[] = [];
    for (let sent = 0; sent < Number(args.count) && !context.signal.aborted; sent++) {
      const text = 'x'.repeat(Number(args.bytes));
      const ask = context.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 1 });
      asks.push(ask.then(() => 'answered', (error: unknown) => error));
      await new Promise((resolve) => setImmediate(resolve));
    }
    stop({ reason: context.signal.reason, sent: asks.length });
    settle(await Promise.all(asks));
    return textResult('asked');
  });
  return { server, flood };
}

/** The session's GET stream over node:http, paused once it opened (its priming event read): the client stops reading. */
function pausedGetStream(session: RawLegacySession): Promise<{ response: IncomingMessage; text: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const get = httpRequest(session.url, { method: 'GET', headers: { accept: 'text/event-stream', ...session.headers } }, (response) => {
      let text = '';
      const closed = new Promise<void>((done) => response.once('close', () => done()));
      // A stream the server cut ends 'aborted' (ECONNRESET); `complete` tells it from an end.
      response.on('error', () => undefined);
      const opened = (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (!text.includes('retry: ')) return;
        response.off('data', opened);
        response.pause();
        response.socket.pause();
        response.on('data', (more: Buffer) => (text += more.toString('utf8')));
        resolve({ response, text: () => text, closed });
      };
      response.on('data', opened);
    });
    get.once('error', reject);
    get.end();
  });
}

/** POSTs `batch` in `session` and reads the whole answer. */
async function postBatch(session: RawLegacySession, batch: unknown[]): Promise<{ status: number; body: unknown }> {
  const response = await fetch(session.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...session.headers },
    body: JSON.stringify(batch),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The server mounted in an app that notes when the server's side of the GET stream closed (a paused client cannot). */
async function mounted(server: McpServer): Promise<{ url: string; getClosed: Promise<void> }> {
  const handler = server.nodeHandler();
  let closed!: () => void;
  const getClosed = new Promise<void>((resolve) => (closed = resolve));
  app = createServer((request, response) => {
    if (request.method === 'GET') response.once('close', () => closed());
    void handler(request, response);
  });
  await new Promise<void>((resolve) => app!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/mcp`, getClosed };
}

/**
 * A 2025-03-26 session (it has batches) that declared sampling, its GET stream open and unread, a batch of one
 * `ask-flood` of `flood` posted in it, and a second session.
 */
async function stalledSession(limits: FixtureOptions['limits'], flood = FLOOD) {
  const { server, flood: asked } = askingServer(limits);
  const { url, getClosed } = await mounted(server);
  const other = await RawLegacySession.open(url);
  const session = await RawLegacySession.open(url, true, '2025-03-26', { sampling: {} });
  const stream = await pausedGetStream(session);
  const batch = postBatch(session, [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask-flood', arguments: flood } }]);
  // Awaited by each test; a test that fails before then leaves it to the cleanup's cut connections.
  batch.catch(() => undefined);
  return { flood: asked, other, session, stream, batch, getClosed };
}

it("ends a legacy session whose client stopped reading its GET stream once more than maxQueuedBytes of a batched handler's asks wait", async () => {
  // A long finish, so the stream ends with its retry once the client reads again rather than being cut first.
  const { flood, other, session, stream, batch } = await stalledSession({ finishTimeoutMs: 600_000 });
  // The handler was stopped with why, long before it sent them all (unbounded, it sent all 64 MiB).
  const { reason, sent } = await flood.stopped;
  expect(reason).toBeInstanceOf(SlowConsumerError);
  expect(sent).toBeLessThan(FLOOD.count);
  // Every ask settled with a typed error at once: none waits clientRequestTimeoutMs for an answer that cannot come.
  // Those sent end with the session; the one that passed the bound was never sent.
  const outcomes = await flood.settled;
  expect(outcomes.every((outcome) => outcome instanceof ClientRequestCancelledError)).toBe(true);
  expect(outcomes.map((outcome) => (outcome as ClientRequestCancelledError).why)).toEqual([...Array<string>(sent - 1).fill('session_ended'), 'no_stream']);
  // The client is told why, on the batch's own answer.
  expect(await batch).toEqual({ status: 200, body: [{ jsonrpc: '2.0', id: 1, error: SLOW_CONSUMER }] });
  // Read at last, the GET stream holds the asks the client's buffers took, then the server's end.
  stream.response.socket.resume();
  stream.response.resume();
  await stream.closed;
  expect(stream.response.complete).toBe(true);
  expect(stream.text().endsWith('retry: 1000\n\n')).toBe(true);
  expect(stream.text()).toContain('"method":"sampling/createMessage"');
  // The session is gone (its client starts a new one); another session goes on.
  expect((await session.request(2, 'ping')).response.status).toBe(404);
  const echo = await other.request(3, 'tools/call', { name: 'echo', arguments: { text: 'still served' } });
  await echo.ended;
  expect(echo.messages).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'still served' }] } }]);
}, 60_000);

it('cuts the GET stream of a shed session whose client still reads nothing finishTimeoutMs later', async () => {
  // Asks of 8 MiB: the server's socket holds what the paused client's kernel buffers could not take (a few MiB on
  // loopback), so the stream's end cannot be written.
  const { flood, stream, batch, getClosed } = await stalledSession({ finishTimeoutMs: 100 }, { count: 8, bytes: 8 * 1024 * 1024 });
  expect((await flood.stopped).reason).toBeInstanceOf(SlowConsumerError);
  expect((await batch).body).toEqual([{ jsonrpc: '2.0', id: 1, error: SLOW_CONSUMER }]);
  // Without the cut a client that never reads again held the socket, and the MiBs the server buffered for it, for good.
  await getClosed;
  // Read now, the stream stops short (what the server still held was dropped): it was cut, not ended.
  stream.response.socket.resume();
  stream.response.resume();
  await stream.closed;
  expect(stream.response.complete).toBe(false);
}, 60_000);

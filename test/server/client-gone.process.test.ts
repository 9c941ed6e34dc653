/**
 * A tool handler waiting for room to send progress is released when its
 * client goes away, over HTTP (the response closes) and stdio (the output
 * fails), instead of waiting forever; a legacy POST stream's handler once
 * nobody resumed the stream for `replayAgeMs`. The client here stops reading,
 * which the official client cannot be made to do, so the peers are scripted.
 */
import { connect, type Socket } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpServer, RequestContext } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { RawLegacySession } from './raw-http-peer.ts';
import { modernMeta } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  vi.useRealTimers();
  socket?.destroy();
  socket = undefined;
  await server?.close();
  server = undefined;
});

interface Flood {
  /** Resolves once a progress call is waiting for room (the client is not reading). */
  blocked: Promise<void>;
  /** Resolves when the handler returned. */
  released: Promise<void>;
}

/** Defines `flood`, a tool sending large progress messages until its client reads or leaves. */
function defineFlood(target: McpServer): Flood {
  let markBlocked!: () => void;
  let markReleased!: () => void;
  const blocked = new Promise<void>((resolve) => (markBlocked = resolve));
  const released = new Promise<void>((resolve) => (markReleased = resolve));
  const message = 'x'.repeat(64 * 1024);
  target.defineTool('flood', { description: 'Floods progress', inputSchema: { type: 'object' } }, async (_args, context: RequestContext) => {
    try {
      while (!context.signal.aborted) {
        const step = context.progress(1, undefined, message);
        // A send with room settles within microtasks; one still pending after a macrotask turn waits for room.
        const waiting = await Promise.race([step.then(() => false), new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))]);
        if (waiting) markBlocked();
        await step;
      }
      return { content: [] };
    } finally {
      markReleased();
    }
  });
  return { blocked, released };
}

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood', arguments: {}, _meta: modernMeta({ progressToken: 't' }) } });

/** A stdio connection to a fresh server whose client stopped reading, with the flood tool already waiting for room. */
async function floodingStalledStdio() {
  // A connection whose input ended reports closed once its queued answers were written, or after finishTimeoutMs
  // for a client that reads nothing, as here: short, so the test does not wait the default 5 s for it.
  server = buildFixtureServer({ limits: { outboxHighWater: 4, finishTimeoutMs: 50 } });
  const flood = defineFlood(server);
  const stdin = new PassThrough();
  // Accepts the first writes, then never calls back: a client that stopped reading.
  const stdout = new Writable({ highWaterMark: 1024, write: () => {} });
  const connection = server.serveStdio({ stdin, stdout });
  stdin.write(`${CALL}\n`);
  await flood.blocked;
  return { flood, stdin, stdout, connection };
}

describe('a handler waiting to send progress to a client that left', () => {
  it('is released when the HTTP client drops its connection', async () => {
    server = buildFixtureServer({ limits: { outboxHighWater: 4 } });
    const flood = defineFlood(server);
    const { port } = await server.listenHttp({ port: 0 });
    socket = connect(port, '127.0.0.1');
    socket.pause(); // never reads its response
    socket.write([
      'POST /mcp HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'MCP-Protocol-Version: 2026-07-28',
      'Mcp-Method: tools/call',
      'Mcp-Name: flood',
      `Content-Length: ${Buffer.byteLength(CALL)}`,
      '',
      CALL,
    ].join('\r\n'));
    await flood.blocked;
    socket.destroy();
    await expect(flood.released).resolves.toBeUndefined();
  });

  it('is released when the stdio client stops reading for good (its output fails)', async () => {
    const { flood, stdout, connection } = await floodingStalledStdio();
    stdout.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await connection.closed;
    await expect(flood.released).resolves.toBeUndefined();
  });
});

describe('a stdio client closing its input while the server waits for it to read', () => {
  it('is noticed: the connection closes and the waiting handler is released', async () => {
    const { flood, stdin, connection } = await floodingStalledStdio();
    stdin.end();
    await connection.closed;
    await expect(flood.released).resolves.toBeUndefined();
  });

  it('keeps what arrives while output is blocked and serves it in order once the client reads again', async () => {
    server = buildFixtureServer({ limits: { outboxHighWater: 4 } });
    const flood = defineFlood(server);
    const stdin = new PassThrough();
    let release!: () => void;
    const readable = new Promise<void>((resolve) => (release = resolve));
    const results: unknown[] = [];
    let bothAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (bothAnswered = resolve));
    // Takes the first write, then stalls until the test lets it read. Keeps only the answers (frames are whole lines).
    const stdout = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split('\n')) {
          if (line.startsWith('{"jsonrpc":"2.0","id"')) results.push(JSON.parse(line).id);
        }
        if (results.length >= 2) bothAnswered();
        void readable.then(() => callback());
      },
    });
    server.serveStdio({ stdin, stdout });
    stdin.write(`${CALL}\n`);
    await flood.blocked;
    const echo = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `e${id}` }, _meta: modernMeta() } });
    stdin.write(`${echo(2)}\n${echo(3)}\n`);
    release();
    const cancel = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    stdin.write(`${cancel}\n`);
    await flood.released;
    await answered;
    expect(results).toEqual([2, 3]);
  });
});

describe('a legacy handler whose POST stream lost its client', () => {
  it('goes on while the stream may be resumed, and is cancelled once it went replayAgeMs without a connection', async () => {
    server = buildFixtureServer({ limits: { replayAgeMs: 60_000 } });
    let cancelled!: () => void;
    const released = new Promise<void>((resolve) => (cancelled = resolve));
    server.defineTool('waits', { description: 'Progress, then waits for cancellation', inputSchema: { type: 'object' } }, async (_args, context: RequestContext) => {
      await context.progress(1);
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
      cancelled();
      return { content: [] };
    });
    const { url } = await server.listenHttp({ port: 0 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const session = await RawLegacySession.open(url);
    const call = await session.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'waits', arguments: {}, _meta: { progressToken: 't' } } }, { read: false });
    const reader = call.response.body!.getReader();
    // The priming event and the progress: the stream is resumable from here.
    let seen = '';
    while (!seen.includes('notifications/progress')) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    // A round trip on the session: the server has seen the POST's connection close by now.
    await (await session.request(2, 'ping')).ended;
    let done = false;
    void released.then(() => (done = true));
    vi.advanceTimersByTime(59_999);
    await (await session.request(3, 'ping')).ended;
    expect(done).toBe(false);
    vi.advanceTimersByTime(1);
    await expect(released).resolves.toBeUndefined();
  });
});

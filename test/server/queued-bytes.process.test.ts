/**
 * A client that stops reading while a handler keeps sending: `outboxHighWater`
 * counts frames, so 1 MiB log messages used to pile up by the hundred (a
 * handler that does not wait for room, by the thousand). Past
 * `maxQueuedBytes` (8 MiB) of them unread, a stdio connection ends (its
 * `closedReason` says why, and stderr) and an HTTP answer stream ends with
 * SlowConsumerError as its answer, both eras; the handler's signal aborts.
 * The stdio client is a real process that never reads its stdin; the HTTP
 * client a raw loopback one that leaves the response unread (the official
 * clients cannot stop reading on cue).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { afterEach, expect, it, vi } from 'vitest';
import { SlowConsumerError } from '../../src/server/errors.ts';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import type { McpServer } from '../../src/server/index.ts';
import { MetaKey } from '../../src/protocol/versions.ts';
import { textResult } from '../fixtures/conformance/diagnostic-tools.ts';
import type { FixtureOptions } from '../fixtures/own-server-setup.ts';
import { perTestPeers } from './per-test-peers.ts';
import { modernPost, RawLegacySession } from './raw-http-peer.ts';
import { modernMeta, type Message } from './raw-stdio-peer.ts';

/** 64 log messages of 1 MiB: eight times the default bound, and past any pipe or loopback buffer. */
const FLOOD = { count: 64, bytes: 1024 * 1024 };
const isLog = (message: Message) => message.method === 'notifications/message';
const SLOW_CONSUMER = {
  code: -32000,
  message: `Answer stream ended: the client did not read while more than ${DEFAULT_LIMITS.maxQueuedBytes} bytes (maxQueuedBytes) waited`,
  data: { reason: 'slow_consumer', exceeded: 'queued_bytes', limit: 'maxQueuedBytes', max: DEFAULT_LIMITS.maxQueuedBytes },
};

const make = perTestPeers();
let client: ChildProcessByStdio<Writable, Readable, null> | undefined;
let app: Server | undefined;
afterEach(async () => {
  app?.closeAllConnections();
  if (app) await new Promise((resolve) => app!.close(resolve));
  app = undefined;
  client?.kill('SIGKILL');
  client = undefined;
  vi.restoreAllMocks();
});

/**
 * The fixture server with `flood {count, bytes}`: a log message of `bytes` characters each turn, not waiting for
 * room (as a handler relaying a source it does not control). `finished` resolves with its signal's abort reason
 * once it stopped (undefined: it sent them all).
 */
function floodingServer(options: FixtureOptions = {}): { server: McpServer; finished: Promise<unknown> } {
  const server = make.server(options);
  let finish!: (reason: unknown) => void;
  const finished = new Promise<unknown>((resolve) => (finish = resolve));
  server.defineTool('flood', { description: 'Sends count log messages of bytes characters, one a turn', inputSchema: { type: 'object' } }, async (args, context) => {
    for (let sent = 0; sent < Number(args.count) && !context.signal.aborted; sent++) {
      void context.log('info', 'x'.repeat(Number(args.bytes)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    finish(context.signal.reason);
    return textResult('flooded');
  });
  return { server, finished };
}

const floodCall = { name: 'flood', arguments: FLOOD };

it('ends a stdio connection whose client stopped reading once more than maxQueuedBytes wait, saying why', async () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const { server, finished } = floodingServer();
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...floodCall, _meta: modernMeta({ [MetaKey.logLevel]: 'info' }) } };
  // The client: writes its request to the server's input, then never reads the server's output.
  client = spawn(process.execPath, ['-e', `process.stdout.write(${JSON.stringify(`${JSON.stringify(request)}\n`)}); setInterval(() => {}, 60_000);`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const connection = server.serveStdio({ stdin: client.stdout, stdout: client.stdin });
  // The handler stops once the connection ended (or, unbounded, once it sent them all).
  await finished;
  expect(connection.closedReason).toEqual({ type: 'slow_consumer', exceeded: 'queued_bytes', maxQueuedBytes: DEFAULT_LIMITS.maxQueuedBytes });
  expect(logged.mock.calls.map(([line]) => String(line))).toEqual([
    `mcp-actors server own-fixture: stdio connection ended: the client did not read while more than ${DEFAULT_LIMITS.maxQueuedBytes} bytes of answers and notifications waited (maxQueuedBytes)`,
  ]);
  await connection.closed;
});

it('answers a modern HTTP request whose client stopped reading its stream with SlowConsumerError once more than maxQueuedBytes wait', async () => {
  const { server, finished } = floodingServer();
  const { url } = await server.listenHttp({ port: 0 });
  const call = await modernPost(url, 1, 'tools/call', floodCall, { [MetaKey.logLevel]: 'info' }, { read: false });
  await expectShed(call, finished);
}, 60_000);

it('answers a legacy POST whose client stopped reading its stream with SlowConsumerError once more than maxQueuedBytes wait', async () => {
  const { server, finished } = floodingServer();
  const { url } = await server.listenHttp({ port: 0 });
  const session = await RawLegacySession.open(url);
  const call = await session.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: floodCall }, { read: false });
  await expectShed(call, finished);
}, 60_000);

/**
 * The server mounted in an app that notes when each response closed on the server's side: `closes` holds one
 * promise per request, in the order they came.
 */
async function mounted(server: McpServer): Promise<{ url: string; closes: Promise<void>[] }> {
  const handler = server.nodeHandler();
  const closes: Promise<void>[] = [];
  app = createServer((request, response) => {
    closes.push(new Promise((resolve) => response.once('close', () => resolve())));
    void handler(request, response);
  });
  await new Promise<void>((resolve) => app!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/mcp`, closes };
}

it('cuts a modern answer stream whose client still reads nothing finishTimeoutMs after SlowConsumerError', async () => {
  const { server, finished } = floodingServer({ limits: { finishTimeoutMs: 100 } });
  const { url, closes } = await mounted(server);
  const call = await modernPost(url, 1, 'tools/call', floodCall, { [MetaKey.logLevel]: 'info' }, { read: false });
  expect(await finished).toBeInstanceOf(SlowConsumerError);
  // Without the cut, a client that never reads (nor closes) held the response and its socket for good.
  await closes.at(-1);
  // Held to here: undici cancels the body of a response that is garbage-collected, which would close it too.
  expect(call.response.status).toBe(200);
}, 60_000);

it('cuts a legacy POST stream whose client still reads nothing finishTimeoutMs after SlowConsumerError, parking it', async () => {
  const { server, finished } = floodingServer({ limits: { finishTimeoutMs: 100 } });
  const { url, closes } = await mounted(server);
  const session = await RawLegacySession.open(url);
  const call = await session.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: floodCall }, { read: false });
  expect(await finished).toBeInstanceOf(SlowConsumerError);
  await closes.at(-1);
  expect(call.response.status).toBe(200);
}, 60_000);

/** The handler was stopped, and the stream, read at last, holds some of its logs, then SlowConsumerError as its answer. */
async function expectShed(call: { read(): void; ended: Promise<unknown>; messages: Message[] }, finished: Promise<unknown>): Promise<void> {
  expect(await finished).toBeInstanceOf(SlowConsumerError);
  call.read();
  await call.ended;
  expect(call.messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 1, error: SLOW_CONSUMER });
  expect(call.messages.slice(0, -1).every(isLog)).toBe(true);
  expect(call.messages.filter(isLog).length).toBeLessThan(FLOOD.count);
}

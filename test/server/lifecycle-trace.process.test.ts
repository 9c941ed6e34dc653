/**
 * Legacy sessions and listen streams publish when they open and end, and why, on the server's diagnostics
 * channels: over loopback HTTP with scripted clients (raw fetch and node:http, which can stop reading or drop a
 * stream on cue), and over stdio in process.
 */
import { channel } from 'node:diagnostics_channel';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  SERVER_SESSION_CHANNEL,
  SERVER_STREAM_CHANNEL,
  type McpServer,
  type ServerSessionTrace,
  type ServerStreamTrace,
} from '../../src/server/index.ts';
import { textResult } from '../fixtures/conformance/diagnostic-tools.ts';
import { serveInProcessStdio } from './in-process-stdio.ts';
import { perTestPeers } from './per-test-peers.ts';
import { modernPost, RawLegacySession } from './raw-http-peer.ts';
import { modernMeta, type Message } from './raw-stdio-peer.ts';

const make = perTestPeers();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A subscriber to one channel, as an operator's logger would be: every message, in order, until the test ends. */
function record<Message>(name: string): { seen: Message[]; next(match: (message: Message) => boolean): Promise<Message> } {
  const seen: Message[] = [];
  const waiters: (() => void)[] = [];
  const onMessage = (message: unknown) => {
    seen.push(message as Message);
    for (const waiter of waiters.splice(0)) waiter();
  };
  channel(name).subscribe(onMessage);
  cleanups.push(() => channel(name).unsubscribe(onMessage));
  return {
    seen,
    async next(match) {
      for (;;) {
        const found = seen.find(match);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

async function httpServer(options: Parameters<typeof make.server>[0] = {}): Promise<{ server: McpServer; url: string }> {
  const server = make.server(options);
  const { url } = await server.listenHttp({ port: 0 });
  return { server, url };
}

const isAck = (message: Message) => message.method === 'notifications/subscriptions/acknowledged';

describe('legacy HTTP sessions', () => {
  // The timers are the server's own (limits in milliseconds); the test waits for the channel's message, not for time.
  it('publish a session that never confirmed initialization ending initialize_timeout', async () => {
    const { url } = await httpServer({ limits: { initializeTimeoutMs: 50 } });
    const sessions = record<ServerSessionTrace>(SERVER_SESSION_CHANNEL);
    const session = await RawLegacySession.open(url, false);
    const ended = await sessions.next((message) => message.event === 'ended');
    expect(ended).toEqual({ event: 'ended', sessionId: session.id, era: 'legacy', transport: 'http', reason: { type: 'initialize_timeout', initializeMs: 50 } });
  });

  it('publish a session nothing held open ending idle_timeout', async () => {
    const { url } = await httpServer({ limits: { sessionIdleMs: 50 } });
    const sessions = record<ServerSessionTrace>(SERVER_SESSION_CHANNEL);
    const session = await RawLegacySession.open(url);
    const ended = await sessions.next((message) => message.event === 'ended');
    expect(ended).toEqual({ event: 'ended', sessionId: session.id, era: 'legacy', transport: 'http', reason: { type: 'idle_timeout', idleMs: 50 } });
  });

  it('publish their opening, then their end by DELETE', async () => {
    const { url } = await httpServer();
    const sessions = record<ServerSessionTrace>(SERVER_SESSION_CHANNEL);
    const session = await RawLegacySession.open(url);
    const deleted = await fetch(url, { method: 'DELETE', headers: session.headers });
    expect(deleted.status).toBe(200);
    const facts = { sessionId: session.id, era: 'legacy', transport: 'http' };
    expect(sessions.seen).toEqual([
      { event: 'opened', ...facts },
      { event: 'ended', ...facts, reason: { type: 'client_deleted' } },
    ]);
  });

  it('publish a session shed because its client left more than maxQueuedBytes unread on its GET stream', async () => {
    const maxQueuedBytes = 64 * 1024;
    const { server, url } = await httpServer({ limits: { maxQueuedBytes, finishTimeoutMs: 100 } });
    // Asks sent one after another, none awaited, until the session's end aborts the handler.
    server.defineTool('ask-flood', { description: 'Asks the client until stopped', inputSchema: { type: 'object' } }, async (_args, context) => {
      while (!context.signal.aborted) {
        context.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'x'.repeat(16 * 1024) } }], maxTokens: 1 }).catch(() => undefined);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return textResult('asked');
    });
    const sessions = record<ServerSessionTrace>(SERVER_SESSION_CHANNEL);
    // A revision with batches: a batched request's asks go on the session's GET stream, which the client never reads.
    const session = await RawLegacySession.open(url, true, '2025-03-26', { sampling: {} });
    const get = await pausedGetStream(session);
    cleanups.push(() => get.destroy());
    const batch = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...session.headers },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask-flood', arguments: {} } }]),
    });
    const ended = await sessions.next((trace) => trace.event === 'ended');
    expect(ended).toEqual({
      event: 'ended',
      sessionId: session.id,
      era: 'legacy',
      transport: 'http',
      reason: { type: 'slow_consumer', exceeded: 'queued_bytes', maxQueuedBytes },
    });
    expect((await batch).status).toBe(200);
  }, 60_000);

  it('publish nothing while nobody subscribes', async () => {
    const { url } = await httpServer();
    const publish = vi.spyOn(channel(SERVER_SESSION_CHANNEL), 'publish');
    cleanups.push(() => publish.mockRestore());
    const session = await RawLegacySession.open(url);
    await fetch(url, { method: 'DELETE', headers: session.headers });
    expect(publish).not.toHaveBeenCalled();
  });
});

describe('modern HTTP listen streams', () => {
  it('publish their opening with the honored filter, then their end when the client closes them', async () => {
    const { url } = await httpServer();
    const streams = record<ServerStreamTrace>(SERVER_STREAM_CHANNEL);
    const dropped = new AbortController();
    const listen = await modernPost(url, 'L1', 'subscriptions/listen', { notifications: { toolsListChanged: true } }, {}, { signal: dropped.signal });
    await listen.next(isAck);
    const facts = { subscriptionId: 'L1', transport: 'http', honored: { toolsListChanged: true } };
    expect(streams.seen).toEqual([{ event: 'opened', ...facts }]);
    dropped.abort();
    expect(await streams.next((trace) => trace.event === 'ended')).toEqual({ event: 'ended', ...facts, reason: { type: 'client_cancelled' } });
  });

  it("publish their completion by the server's shutdown", async () => {
    const { server, url } = await httpServer();
    const streams = record<ServerStreamTrace>(SERVER_STREAM_CHANNEL);
    const listen = await modernPost(url, 7, 'subscriptions/listen', { notifications: { promptsListChanged: true } });
    await listen.next(isAck);
    await server.close();
    expect(streams.seen).toEqual([
      { event: 'opened', subscriptionId: 7, transport: 'http', honored: { promptsListChanged: true } },
      { event: 'ended', subscriptionId: 7, transport: 'http', honored: { promptsListChanged: true }, reason: { type: 'completed' } },
    ]);
  });
});

describe('stdio', () => {
  it("publishes the connection's session and its listen streams, each with why it ended", async () => {
    const server = make.server();
    const sessions = record<ServerSessionTrace>(SERVER_SESSION_CHANNEL);
    const streams = record<ServerStreamTrace>(SERVER_STREAM_CHANNEL);
    const peer = serveInProcessStdio(server);
    peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    await peer.next((message) => message.id === 1);
    peer.send({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications: { toolsListChanged: true } } });
    await peer.next(isAck);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L', _meta: modernMeta() } });
    const facts = { subscriptionId: 'L', transport: 'stdio', honored: { toolsListChanged: true } };
    expect(await streams.next((trace) => trace.event === 'ended')).toEqual({ event: 'ended', ...facts, reason: { type: 'client_cancelled' } });
    expect(streams.seen[0]).toEqual({ event: 'opened', ...facts });
    peer.end();
    const session = { sessionId: 'stdio', era: 'legacy', transport: 'stdio' };
    expect(await sessions.next((trace) => trace.event === 'ended')).toEqual({ event: 'ended', ...session, reason: { type: 'transport_closed' } });
    expect(sessions.seen[0]).toEqual({ event: 'opened', ...session });
  });
});

/** The session's GET stream over node:http, paused once its priming event was read: the client stops reading. */
function pausedGetStream(session: RawLegacySession): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const get = httpRequest(session.url, { method: 'GET', headers: { accept: 'text/event-stream', ...session.headers } }, (response) => {
      response.on('error', () => undefined);
      response.once('data', () => {
        response.pause();
        response.socket.pause();
        resolve(get);
      });
    });
    get.once('error', reject);
    get.end();
  });
}

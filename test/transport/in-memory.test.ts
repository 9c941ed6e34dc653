/**
 * The in-memory linked pair: our server serves its end as it serves stdio,
 * frames cross as lines and are classified as over stdio, a cut or a closing
 * server ends the link as a dying process does, and the client reconnects
 * over a fresh pair.
 */
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { NotConnectedError, PeerNotReadingError, TransportStartError } from '../../src/protocol/errors.ts';
import type { McpServer } from '../../src/server/index.ts';
import { inMemoryTransport, type InMemoryClientTransport, type InMemoryServerEnd } from '../../src/transport/in-memory.ts';
import { countedLinks } from '../fixtures/counted-links.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { initializeRequest, RecordingEvents, request, resultOf } from './recording-events.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, transports, servers } = closedAfterEach({ clients: [] as McpClient[], transports: [] as InMemoryClientTransport[], servers: [] as McpServer[] });

function fixtureServer(): McpServer {
  const server = buildFixtureServer();
  servers.push(server);
  return server;
}

async function linked(server: McpServer, maxFrameBytes?: number) {
  const transport = inMemoryTransport((end) => server.serveStdio(end), maxFrameBytes === undefined ? {} : { maxFrameBytes })();
  transports.push(transport);
  const events = new RecordingEvents();
  await transport.start(events);
  return { transport, events };
}

/** A client transport whose server end the test writes and reads itself (no server behind it). */
async function scriptedEnd(options: { maxFrameBytes?: number; maxBacklogBytes?: number } = {}) {
  let serverEnd: InMemoryServerEnd | undefined;
  const transport = inMemoryTransport((end) => void (serverEnd = end), options)();
  transports.push(transport);
  const events = new RecordingEvents();
  await transport.start(events);
  return { transport, events, serverEnd: serverEnd! };
}

describe('in-memory linked pair, transport level', () => {
  it('carries an initialize handshake and a tools/list to our server and back', async () => {
    const { transport, events } = await linked(fixtureServer());
    expect(transport.kind).toBe('memory');
    await transport.send(initializeRequest('memory-test'));
    expect(resultOf(await events.response(1))).toMatchObject({ serverInfo: { name: 'own-fixture' } });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send(request(2, 'tools/list'));
    const tools = resultOf(await events.response(2)) as { tools: { name: string }[] };
    expect(tools.tools.map((tool) => tool.name)).toContain('echo');
    expect(transport.abortRequest(2)).toBe(false);
  });

  it('classifies what the server writes exactly as stdio does: garbage is an invalid frame, an overlong line oversized', async () => {
    const { events, serverEnd } = await scriptedEnd({ maxFrameBytes: 64 });
    serverEnd.stdout.write(`not json\n${'x'.repeat(100)}\n{"jsonrpc":"2.0","id":7,"result":{}}\n`);
    await events.response(7);
    expect(events.frames.map((frame) => (frame.kind === 'invalid' ? frame.error.problem : frame.kind))).toEqual(['unparseable', 'oversized', 'response']);
  });

  it('reads a batch line (2025-03-26: every implementation receives batches) as its messages, in order', async () => {
    const { events, serverEnd } = await scriptedEnd();
    serverEnd.stdout.write('[{"jsonrpc":"2.0","method":"notifications/tools/list_changed"},{"jsonrpc":"2.0","id":7,"result":{}},"junk",{"jsonrpc":"2.0","id":8,"result":{}}]\n');
    await events.response(8);
    expect(events.frames.map((frame) => (frame.kind === 'invalid' ? frame.error.problem : frame.kind))).toEqual(['notification', 'response', 'not_an_object', 'response']);
  });

  it('a server request that arrives while more than maxBacklogBytes written to the server are unread ends the link with PeerNotReadingError', async () => {
    const { transport, events, serverEnd } = await scriptedEnd({ maxBacklogBytes: 1024 });
    const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
    // Below the limit a request is handed on; the server end never reads what the client writes.
    serverEnd.stdout.write(ping(1));
    await events.next((frame) => frame.kind === 'request');
    // 64 KiB: past what the link's two 16 KiB stream buffers hold, so at least 32 KiB stay unread however the ticks fall.
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 4; i++) sends.push(transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(16 * 1024) } }));
    serverEnd.stdout.write(`${ping(2)}${ping(3)}`);
    const closed = await events.whenClosed();
    expect(closed.type).toBe('failed');
    const cause = (closed as { cause: unknown }).cause;
    expect(cause).toBeInstanceOf(PeerNotReadingError);
    expect(cause).toMatchObject({ code: 'peer_not_reading', maxBacklogBytes: 1024 });
    expect((cause as PeerNotReadingError).backlogBytes).toBeGreaterThan(1024);
    // Neither the request that found the backlog nor anything after it was handed on.
    expect(events.frames.filter((frame) => frame.kind === 'request')).toHaveLength(1);
    expect(events.closures).toHaveLength(1);
    // What the server never took is not written: the sends still waiting for it fail.
    expect((await Promise.allSettled(sends)).map((send) => send.status)).toContain('rejected');
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toBeInstanceOf(NotConnectedError);
  });

  it('reports ended, once, when the server stops serving the end, and then refuses to send', async () => {
    const server = fixtureServer();
    const { transport, events } = await linked(server);
    await server.close();
    expect(await events.whenClosed()).toEqual({ type: 'ended' });
    await expect(transport.send(request(1, 'ping'))).rejects.toBeInstanceOf(NotConnectedError);
    expect(events.closures).toHaveLength(1);
  });

  it('cut() ends the link as a dead peer: ended for the client, end of input for the server', async () => {
    const { transport, events, serverEnd } = await scriptedEnd();
    const inputEnded = new Promise<void>((resolve) => serverEnd.stdin.once('end', resolve));
    serverEnd.stdin.resume();
    transport.cut();
    await inputEnded;
    expect(await events.whenClosed()).toEqual({ type: 'ended' });
  });

  it('close() ends the server connection, reports nothing, and a second start is refused', async () => {
    const server = fixtureServer();
    const { transport, events } = await linked(server);
    await transport.send(initializeRequest('memory-test'));
    await events.response(1);
    expect(server.openSessionCount).toBe(1);
    await transport.close();
    expect(server.openSessionCount).toBe(0);
    expect(events.closures).toEqual([]);
    await expect(transport.start(new RecordingEvents())).rejects.toBeInstanceOf(TransportStartError);
  });

  it('a server that throws while serving is a TransportStartError', async () => {
    const transport = inMemoryTransport(() => {
      throw new Error('no');
    })();
    await expect(transport.start(new RecordingEvents())).rejects.toBeInstanceOf(TransportStartError);
  });
});

describe('in-memory linked pair under our client', () => {
  it.each(['legacy', 'modern'] as const)('%s: negotiates, calls a tool and reconnects over a fresh pair after a cut', async (era) => {
    const server = fixtureServer();
    const { factory, links } = countedLinks(inMemoryTransport((end) => server.serveStdio(end)));
    const client = createClient({
      transport: factory,
      era,
      reconnect: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
    });
    clients.push(client);
    await client.connect();
    expect(client.era).toBe(era);
    expect(await client.callTool('echo', { text: 'one' })).toMatchObject({ content: [{ text: 'one' }] });
    const reconnected = new Promise<void>((resolve) => client.on('connection.ready', () => links.length === 2 && resolve()));
    links[0]!.cut();
    await reconnected;
    expect(links).toHaveLength(2);
    expect(await client.callTool('echo', { text: 'two' })).toMatchObject({ content: [{ text: 'two' }] });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { NotConnectedError, TransportStartError } from '../../src/protocol/errors.ts';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.ts';
import { fromSdkTransport, type SdkTransportLike } from '../../src/transport/sdk-adapter.ts';
import type { ClientTransport } from '../../src/transport/transport.ts';
import { initializeRequest, RecordingEvents, request, resultOf } from './recording-events.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** An official McpServer on one end of the SDK's in-memory pair; the other end is returned. */
async function officialServer(): Promise<{ server: McpServer; clientEnd: InMemoryTransport }> {
  const server = new McpServer({ name: 'in-memory', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text' as const, text }],
  }));
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  cleanups.push(() => server.close());
  return { server, clientEnd };
}

async function started(transport: ClientTransport) {
  const events = new RecordingEvents();
  await transport.start(events);
  cleanups.push(() => transport.close());
  return events;
}

const initialize = initializeRequest('adapter-test');

/** A hand-driven SdkTransportLike, for what the official transports will not do on cue. */
class ManualSdkTransport implements SdkTransportLike {
  onmessage?(message: unknown): void;
  onclose?(): void;
  onerror?(error: Error): void;
  readonly sent: JsonRpcMessage[] = [];
  protocolVersion: string | undefined;
  constructor(private readonly startError?: Error) {}
  async start(): Promise<void> {
    if (this.startError) throw this.startError;
  }
  async send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }
}

describe('fromSdkTransport with the official in-memory transport and McpServer', () => {
  it('delivers the responses to initialize and tools/list as classified frames', async () => {
    const { clientEnd } = await officialServer();
    const transport = fromSdkTransport(clientEnd)();
    expect(transport.kind).toBe('custom');
    const events = await started(transport);
    await transport.send(initialize);
    expect(await events.next((frame) => frame.kind === 'response')).toMatchObject({
      kind: 'response',
      message: { id: 1, result: { protocolVersion: '2025-11-25' } },
    });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send(request(2, 'tools/list'));
    const tools = resultOf(await events.response(2)).tools as Array<{ name: string }>;
    expect(tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('classifies server notifications as notification frames', async () => {
    const { server, clientEnd } = await officialServer();
    const transport = fromSdkTransport(clientEnd)();
    const events = await started(transport);
    await transport.send(initialize);
    await events.response(1);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.sendToolListChanged();
    expect(await events.next((frame) => frame.kind === 'notification')).toMatchObject({
      message: { method: 'notifications/tools/list_changed' },
    });
  });

  it('reports the server closing the connection as ended, once', async () => {
    const { server, clientEnd } = await officialServer();
    const events = await started(fromSdkTransport(clientEnd)());
    await server.close();
    expect(await events.whenClosed()).toEqual({ type: 'ended' });
    expect(events.closures).toHaveLength(1);
  });

  it('reports nothing when the owner closes it', async () => {
    const { clientEnd } = await officialServer();
    const transport = fromSdkTransport(clientEnd)();
    const events = await started(transport);
    await transport.close();
    expect(events.closures).toEqual([]);
    await expect(transport.send(initialize)).rejects.toBeInstanceOf(NotConnectedError);
  });

  it('refuses to start a single transport object for a second connection', async () => {
    const { clientEnd } = await officialServer();
    const factory = fromSdkTransport(clientEnd);
    await started(factory());
    const second = factory();
    const error = await second.start(new RecordingEvents()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportStartError);
    expect((error as Error).message).toMatch(/already used.*pass a factory/);
  });

  it('makes a fresh SDK transport per connection when given a factory', async () => {
    const made: ManualSdkTransport[] = [];
    const factory = fromSdkTransport(() => {
      const transport = new ManualSdkTransport();
      made.push(transport);
      return transport;
    });
    await started(factory());
    await started(factory());
    expect(made).toHaveLength(2);
    expect(made[0]).not.toBe(made[1]);
  });
});

describe('fromSdkTransport edge cases (hand-driven SDK transport)', () => {
  it('turns malformed inbound messages into invalid frames and keeps going', async () => {
    const source = new ManualSdkTransport();
    const events = await started(fromSdkTransport(source)());
    source.onmessage?.('not an object');
    source.onmessage?.({ jsonrpc: '1.0', id: 1, result: {} });
    source.onmessage?.({ jsonrpc: '2.0', method: 'notifications/ok' });
    expect(events.frames.map((frame) => (frame.kind === 'invalid' ? frame.error.problem : frame.kind))).toEqual([
      'not_an_object',
      'wrong_version',
      'notification',
    ]);
  });

  it('wraps a failing start in TransportStartError with the cause', async () => {
    const cause = new Error('socket refused');
    const transport = fromSdkTransport(new ManualSdkTransport(cause))();
    const error = await transport.start(new RecordingEvents()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportStartError);
    expect((error as TransportStartError).cause).toBe(cause);
  });

  it('passes errors through, sends as-is, and forwards the negotiated version', async () => {
    const source = new ManualSdkTransport();
    const transport = fromSdkTransport(source)();
    const events = await started(transport);
    const error = new Error('stray');
    source.onerror?.(error);
    expect(events.errors).toEqual([error]);
    await transport.send(initialize);
    expect(source.sent).toEqual([initialize]);
    transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
    expect(source.protocolVersion).toBe('2025-11-25');
    expect(transport.abortRequest(1)).toBe(false);
  });
});

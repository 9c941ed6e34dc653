/**
 * A request's `_meta` from the application to the handler, both eras, our client and our server over the in-memory
 * pair: `RequestOptions.meta`, the keys a client tracing subscriber adds, `context.meta` and the server trace's
 * `meta`, the modern per-request log level, and the keys a caller may not send. With the official peers:
 * test/interop/request-meta.process.test.ts.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_REQUEST_CHANNEL, createClient, InvalidRequestMetaError, inMemoryTransport, type ClientRequestTrace, type McpClient } from '../../src/index.ts';
import { metaKeyProblem } from '../../src/protocol/request-meta.ts';
import { createServer, SERVER_REQUEST_CHANNEL, type McpServer, type ServerRequestTrace } from '../../src/server/index.ts';
import { recordTraces } from './request-traces.ts';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server whose tool `meta` answers with its context's `meta`, and whose tool `chatty` logs at debug and info. */
function metaServer(): McpServer {
  const server = createServer({ name: 'meta', version: '1.0.0' });
  server.defineTool('meta', { description: 'Its context.meta, as JSON', inputSchema: { type: 'object' } }, (_args, context) => ({
    content: [{ type: 'text', text: JSON.stringify(context.meta) }],
  }));
  server.defineTool('chatty', { description: 'Logs twice', inputSchema: { type: 'object' } }, async (_args, context) => {
    await context.log('debug', 'a debug line');
    await context.log('info', 'an info line');
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.defineResource('test://meta', { name: 'meta' }, (uri, context) => [{ uri, text: JSON.stringify(context.meta) }]);
  cleanups.push(() => server.close());
  return server;
}

async function connected(era: 'legacy' | 'modern'): Promise<McpClient> {
  const server = metaServer();
  const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
  cleanups.push(() => client.close());
  await client.connect();
  return client;
}

const metaSeenBy = async (client: McpClient, options: Parameters<McpClient['callTool']>[2]) => {
  const result = await client.callTool('meta', {}, options);
  return JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
};

describe.each(['legacy', 'modern'] as const)('request _meta, %s era', (era) => {
  it("carries the caller's keys to the handler's context.meta, without the envelope's", async () => {
    const client = await connected(era);
    const meta = { traceparent: TRACEPARENT, tracestate: 'vendor=1', 'com.example/tenant': 'acme' };

    expect(await metaSeenBy(client, { meta })).toEqual(meta);
    // Beside a progress token, which the client writes and the handler sees too.
    expect(await metaSeenBy(client, { meta, onProgress: () => {} })).toEqual({ ...meta, progressToken: expect.anything() });
    expect(await metaSeenBy(client, {})).toEqual({});
    const read = await client.readResource('test://meta', { meta: { baggage: 'user=1' } });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ baggage: 'user=1' });
  });

  it('refuses the keys a caller may not send, before anything is sent, and the connection goes on', async () => {
    const client = await connected(era);
    const served = recordTraces<ServerRequestTrace>(SERVER_REQUEST_CHANNEL);
    cleanups.push(served.stop);
    const refused = [
      ['progressToken', 1],
      ['io.modelcontextprotocol/protocolVersion', '2026-07-28'],
      ['io.modelcontextprotocol/clientInfo', { name: 'x', version: '1' }],
      ['io.modelcontextprotocol/clientCapabilities', {}],
      ['io.modelcontextprotocol/subscriptionId', 'sub-1'],
      ['io.modelcontextprotocol/logLevel', 'loud'],
      ['-leading-hyphen', 1],
      ['com.example-/tenant', 1],
      ['com..example/tenant', 1],
      ['1com.example/tenant', 1],
      ['a/b/c', 1],
    ] as const;
    for (const [key, value] of refused) {
      const call = client.callTool('meta', {}, { meta: { [key]: value } });
      await expect(call, key).rejects.toBeInstanceOf(InvalidRequestMetaError);
      await expect(call).rejects.toMatchObject({ code: 'invalid_request_meta', method: 'tools/call', key });
    }
    expect(served.events).toEqual([]);
    expect(await metaSeenBy(client, { meta: { 'com.example/tenant': 'acme' } })).toEqual({ 'com.example/tenant': 'acme' });
  });

  it("sends the keys a client trace subscriber adds at start (the caller's win), and the server trace shows them", async () => {
    const client = await connected(era);
    const served = recordTraces<ServerRequestTrace>(SERVER_REQUEST_CHANNEL);
    const sent = recordTraces<ClientRequestTrace>(CLIENT_REQUEST_CHANNEL);
    cleanups.push(served.stop, sent.stop);
    const inject = (trace: ClientRequestTrace) => {
      trace.meta.traceparent = TRACEPARENT;
      trace.meta['com.example/who'] = 'subscriber';
    };
    const channel = tracingChannel<object, ClientRequestTrace>(CLIENT_REQUEST_CHANNEL);
    channel.start.subscribe(inject as (message: unknown) => void);
    cleanups.push(() => channel.start.unsubscribe(inject as (message: unknown) => void));

    expect(await metaSeenBy(client, { meta: { 'com.example/who': 'caller' } })).toEqual({ traceparent: TRACEPARENT, 'com.example/who': 'caller' });
    expect(served.events[0]!.seen.meta).toEqual({ traceparent: TRACEPARENT, 'com.example/who': 'caller' });

    // A subscriber's key is checked as the caller's are.
    const spoil = (trace: ClientRequestTrace) => void (trace.meta.progressToken = 'mine');
    channel.start.subscribe(spoil as (message: unknown) => void);
    cleanups.push(() => channel.start.unsubscribe(spoil as (message: unknown) => void));
    await expect(client.callTool('meta')).rejects.toMatchObject({ code: 'invalid_request_meta', key: 'progressToken' });
  });
});

describe('the modern per-request log level', () => {
  it('is what opts a request in to its log messages, at or above the level asked', async () => {
    const client = await connected('modern');
    const logged: unknown[] = [];
    client.onNotification('notifications/message', (params) => void logged.push(params.data));

    await client.callTool('chatty');
    expect(logged).toEqual([]);
    await client.callTool('chatty', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    expect(logged).toEqual(['an info line']);
    await client.callTool('chatty', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
    expect(logged).toEqual(['an info line', 'a debug line', 'an info line']);
  });
});

describe('metaKeyProblem (the spec\'s key format)', () => {
  it.each([
    ['traceparent', true],
    ['io.modelcontextprotocol/logLevel', true],
    ['com.example/', true],
    ['', true],
    ['x.y-z_1', true],
    ['org.example-2.api/name', true],
    ['x_', false],
    ['_x', false],
    ['com.example-/x', false],
    ['com/example/x', false],
    ['9lives.example/x', false],
    ['com.example /x', false],
  ])('%j allowed: %s', (key, allowed) => {
    expect(metaKeyProblem(key) === undefined).toBe(allowed);
  });
});

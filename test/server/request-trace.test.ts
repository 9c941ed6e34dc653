/**
 * Requests on node:diagnostics_channel, both sides, both eras: our client and our server over the stdio framing
 * (the in-memory pair), with subscribers on both tracing channels as an APM's would be. Over HTTP with the
 * official client: test/server/request-trace.process.test.ts.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_REQUEST_CHANNEL, createClient, inMemoryTransport, RpcError, type ClientRequestTrace } from '../../src/index.ts';
import { createServer, SERVER_REQUEST_CHANNEL, type ServerRequestTrace } from '../../src/server/index.ts';
import { recordTraces } from './request-traces.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(['legacy', 'modern'] as const)('request traces, %s era', (era) => {
  it('publish each request the application makes and the server answers: start, then its end with the outcome', async () => {
    const server = createServer({ name: 'traced', version: '1.0.0' });
    server.defineTool('echo', { description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => ({
      content: [{ type: 'text', text: String(args.text) }],
    }));
    cleanups.push(() => server.close());
    const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    const served = recordTraces<ServerRequestTrace>(SERVER_REQUEST_CHANNEL);
    const sent = recordTraces<ClientRequestTrace>(CLIENT_REQUEST_CHANNEL);
    cleanups.push(served.stop, sent.stop);

    await client.callTool('echo', { text: 'hi' });
    await expect(client.callTool('nowhere')).rejects.toMatchObject({ rpcCode: -32602 });
    await expect(client.request('no/such/method')).rejects.toBeInstanceOf(RpcError);

    expect(served.events.map(({ phase, seen }) => [phase, seen.method, seen.target, seen.outcome, seen.error?.rpcCode])).toEqual([
      ['start', 'tools/call', 'echo', undefined, undefined],
      ['asyncEnd', 'tools/call', 'echo', 'result', undefined],
      ['start', 'tools/call', 'nowhere', undefined, undefined],
      ['asyncEnd', 'tools/call', 'nowhere', 'error', -32602],
      ['start', 'no/such/method', undefined, undefined, undefined],
      ['asyncEnd', 'no/such/method', undefined, 'error', -32601],
    ]);
    // One object per request, from start to end, so a subscriber can keep its span on it.
    expect(served.events[0]!.trace).toBe(served.events[1]!.trace);
    expect(new Set(served.events.map(({ trace }) => trace.era))).toEqual(new Set([era]));

    expect(sent.events.map(({ phase, seen }) => [phase, seen.method, seen.era])).toEqual([
      ['start', 'tools/call', era],
      ['asyncEnd', 'tools/call', era],
      ['start', 'tools/call', era],
      ['error', 'tools/call', era],
      ['asyncEnd', 'tools/call', era],
      ['start', 'no/such/method', era],
      ['error', 'no/such/method', era],
      ['asyncEnd', 'no/such/method', era],
    ]);
    expect(sent.events[1]!.trace.result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    expect(sent.events.at(-1)!.trace.error).toBeInstanceOf(RpcError);
  });

  it('publish nothing once no one subscribes', async () => {
    expect(tracingChannel(SERVER_REQUEST_CHANNEL).hasSubscribers).toBe(false);
    expect(tracingChannel(CLIENT_REQUEST_CHANNEL).hasSubscribers).toBe(false);
  });
});

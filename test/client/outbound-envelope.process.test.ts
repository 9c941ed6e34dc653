/**
 * One outbound path: every message the client sends leaves through the same
 * function, which applies the envelope of the era the wire speaks. Seen on
 * the wire of a real child process (the scripted stdio peer, since it
 * records what it receives and can hold requests unanswered, and stay
 * silent to a probe as some legacy servers do).
 */
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.ts';
import { scriptedStdio } from '../fixtures/stdio-peers.ts';
import { WireRecord } from './recording-transport.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

const { clients } = closedAfterEach({ clients: [] as McpClient[] });

const enveloped = (message: JsonRpcMessage) =>
  'method' in message && (message.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION] === '2026-07-28';

describe('on a modern connection', () => {
  it('requests, notifications and the cancels of timed-out and aborted calls and of closed listens all carry the envelope; replies go the same way', async () => {
    const wire = new WireRecord(scriptedStdio(['--era', 'modern']).factory);
    const client = createClient({ transport: wire.factory });
    clients.push(client);
    await client.connect();
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    stream.close();
    await stream.closed;
    await expect(client.request('script/hold', {}, { timeoutMs: 10 })).rejects.toMatchObject({ code: 'request_timeout' });
    const controller = new AbortController();
    const held = client.request('script/hold', {}, { signal: controller.signal });
    controller.abort();
    await expect(held).rejects.toMatchObject({ code: 'request_aborted' });
    await client.notify('notifications/roots/list_changed');
    // A request from the server: its reply leaves through the same path (a response: no params to envelope).
    await client.request('script/emit', { lines: ['{"jsonrpc":"2.0","id":"from-server","method":"ping"}'] });
    await client.request('tools/list', { _meta: { progressToken: 'own' } });
    // The peer read all of it: the last request was answered after the rest was written.
    const received = (await client.request('script/received')).messages as { method: string }[];
    expect(received.map((message) => message.method)).toEqual([
      'notifications/cancelled',
      'notifications/cancelled',
      'notifications/cancelled',
      'notifications/roots/list_changed',
    ]);
    const sent = wire.sent.map(({ message }) => message).filter((message) => 'method' in message);
    expect(sent.filter((message) => !enveloped(message)).map((message) => ('method' in message ? message.method : ''))).toEqual([]);
    expect(wire.sent.map(({ message }) => message)).toContainEqual({ jsonrpc: '2.0', id: 'from-server', result: {} });
    // The caller's own _meta keeps its keys beside the envelope.
    expect(wire.calls('tools/list').at(-1)?.params._meta).toMatchObject({ progressToken: 'own', [PROTOCOL_VERSION]: '2026-07-28' });
  });
});

describe('negotiating with a legacy server that ignores the probe', () => {
  it('sends initialize beside the still-open probe under the envelope, adopts legacy on its result, cancels the probe, then speaks plain legacy', async () => {
    const wire = new WireRecord(scriptedStdio(['--era', 'legacy', '--discover-silent']).factory);
    const client = createClient({ transport: wire.factory, probeTimeoutMs: 100 });
    clients.push(client);
    await client.connect();
    expect(client.era).toBe('legacy');
    const [probe] = wire.calls('server/discover');
    const [initialize] = wire.calls('initialize');
    expect(initialize!.index).toBeGreaterThan(probe!.index);
    expect(initialize!.params._meta).toMatchObject({ [PROTOCOL_VERSION]: '2026-07-28' });
    const cancels = wire.calls('notifications/cancelled');
    expect(cancels.map((cancel) => cancel.params.requestId)).toEqual([probe!.id]);
    // Once legacy, nothing carries the modern envelope.
    const initialized = wire.calls('notifications/initialized');
    expect(initialized).toHaveLength(1);
    expect(initialized[0]!.params._meta).toBeUndefined();
    await client.request('tools/list');
    expect(wire.calls('tools/list')[0]!.params._meta).toBeUndefined();
  });
});

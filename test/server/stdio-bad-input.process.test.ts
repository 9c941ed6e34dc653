/**
 * Hostile and malformed input over stdio, from a scripted peer: every case
 * gets a clear JSON-RPC error and the connection keeps answering.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/jsonrpc.ts';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { modernMeta, RawStdioPeer, type Message } from './raw-stdio-peer.ts';

let peer: RawStdioPeer | undefined;
afterEach(() => peer?.kill());

const start = (args: string[] = []) => (peer = new RawStdioPeer(args));

// A stdio connection is a server process: a connection of its own costs a test a start. Four tests share one: each
// sends requests that stand alone (no initialize, no counter or limit read) and waits only for what arrives after it
// began (fromNow); the two listen streams they leave open are two of the connection's 64. The tests about a fresh
// connection (before any era, before initialize), a legacy session, the stream limit or a counter keep their own.
let shared: RawStdioPeer | undefined;
const startShared = () => (shared ??= new RawStdioPeer()).fromNow();
afterAll(async () => {
  await shared?.stop();
  shared = undefined;
});

describe('bad input over stdio', () => {
  it('answers malformed frames with -32700 / -32600 and id null, then keeps serving', async () => {
    const p = start();
    p.send('{"jsonrpc":"2.0","id":1,"method":');
    p.send('[1,2,3]');
    p.send({ jsonrpc: '1.0', id: 2, method: 'tools/list' });
    p.request(3, 'tools/list');
    await p.response(3);
    const errors = p.received.filter((message) => message.id === null).map((message) => message.error?.code);
    expect(errors).toEqual([ErrorCode.ParseError, ErrorCode.InvalidRequest, ErrorCode.InvalidRequest]);
    expect((await p.response(3)).result?.tools).toBeInstanceOf(Array);
  });

  it('names the request in its error when the id could be read from a frame refused for its shape', async () => {
    const p = startShared();
    p.send('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"not an object"}');
    const refused = await p.response(7);
    expect(refused.error?.code).toBe(ErrorCode.InvalidRequest);
    expect(refused.error?.message).toMatch(/params must be an object/);
  });

  it('answers a legacy ping sent before any era was chosen with an empty result', async () => {
    const p = start();
    p.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    p.send({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
    expect(await p.response('p')).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect((await p.response('l')).error?.code).toBe(ErrorCode.InvalidRequest);
  });

  it('refuses an oversized frame without buffering it whole, under its id when either end of the line names it', async () => {
    const p = start(['--max-body', '1024']);
    const call = (text: string) => ({ method: 'tools/call', params: { _meta: modernMeta(), name: 'echo', arguments: { text } } });
    // The id first (as our client writes it), the id last (as the official SDKs do; 300 KB, read over several chunks), none.
    p.send(JSON.stringify({ jsonrpc: '2.0', id: 1, ...call('x'.repeat(5000)) }));
    p.send(JSON.stringify({ ...call('y'.repeat(300_000)), jsonrpc: '2.0', id: 'last' }));
    p.send(JSON.stringify({ jsonrpc: '2.0', ...call('z'.repeat(5000)) }));
    p.request(2, 'tools/call', { name: 'echo', arguments: { text: 'small' } });
    const answer = await p.response(2);
    expect(answer.result?.content).toEqual([{ type: 'text', text: 'small' }]);
    for (const id of [1, 'last', null]) {
      const refused = p.received.find((message) => message.id === id);
      expect(refused?.error?.code).toBe(ErrorCode.ParseError);
      expect(refused?.error?.message).toMatch(/exceeds the 1024 limit/);
    }
    expect(p.received.filter((message) => message.error !== undefined)).toHaveLength(3);
  });

  it('answers unknown methods, unknown tools, wrong params and unsupported versions with the spec errors', async () => {
    const p = startShared();
    p.request(1, 'server/discover');
    p.request(2, 'no/such/method');
    p.request(3, 'tools/call', { name: 'echo', arguments: { text: 42 } });
    p.request(4, 'tools/call', { name: 'nope' });
    p.send({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }) } });
    p.request(6, 'subscriptions/listen', { notifications: { toolsListChanged: 'yes' } });
    p.request(7, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['not a uri'] } });
    p.send({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });
    const codes = await Promise.all([2, 4, 5, 6, 7, 9].map(async (id) => (await p.response(id)).error?.code));
    expect(codes).toEqual([
      ErrorCode.MethodNotFound,
      ErrorCode.InvalidParams,
      ErrorCode.UnsupportedProtocolVersion,
      ErrorCode.InvalidParams,
      ErrorCode.InvalidParams,
      ErrorCode.InvalidParams, // no _meta envelope, on a connection that used the modern era
    ]);
    expect((await p.response(5)).error?.data).toEqual({ requested: '1900-01-01', supported: ['2026-07-28'] });
    // An argument of the wrong type is the tool's failure, which the model can read and correct, not a protocol error.
    expect((await p.response(3)).result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/arguments\/text must be string/) }] });
  });

  it('ignores listen filter keys it does not know (the schema allows them) but refuses a filter that selects nothing', async () => {
    const p = startShared();
    p.request('L', 'subscriptions/listen', { notifications: { toolsListChanged: true, futureKey: { any: 1 } } });
    const ack = await p.next((message) => message.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params?.notifications).toEqual({ toolsListChanged: true });
    p.request('E', 'subscriptions/listen', { notifications: { futureKey: true } });
    expect((await p.response('E')).error?.code).toBe(ErrorCode.InvalidParams);
  });

  it('refuses a listen filter naming more URIs than the documented limit, and takes one at the limit', async () => {
    const p = startShared();
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `test://many/${i}`);
    p.request('over', 'subscriptions/listen', { notifications: { resourceSubscriptions: uris(DEFAULT_LIMITS.maxUrisPerFilter + 1) } });
    const refused = await p.response('over');
    expect(refused.error?.code).toBe(ErrorCode.InvalidParams);
    expect(refused.error?.message).toMatch(new RegExp(`${DEFAULT_LIMITS.maxUrisPerFilter + 1} URIs; the limit is ${DEFAULT_LIMITS.maxUrisPerFilter}`));
    p.request('at', 'subscriptions/listen', { notifications: { resourceSubscriptions: uris(DEFAULT_LIMITS.maxUrisPerFilter) } });
    const ack = await p.next((message) => message.method === 'notifications/subscriptions/acknowledged');
    expect((ack.params?.notifications as { resourceSubscriptions: string[] }).resourceSubscriptions).toHaveLength(DEFAULT_LIMITS.maxUrisPerFilter);
  });

  it('refuses a flood of listen requests past the per-connection limit', async () => {
    const p = start();
    for (let id = 1; id <= 70; id++) p.request(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const answers = await Promise.all([65, 66, 67, 68, 69, 70].map((id) => p.response(id)));
    for (const answer of answers) {
      expect(answer.error).toEqual({ code: -32000, message: 'Limit reached: maxStreamsPerConnection (64)', data: { limit: 'maxStreamsPerConnection', max: 64 } });
    }
    // Answers go ahead of queued notifications, so the refusals may arrive before the last acknowledgments.
    const streamId = (message: Message) => (message.params?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/subscriptionId'];
    await Promise.all(Array.from({ length: 64 }, (_, i) => p.next((message) => message.method === 'notifications/subscriptions/acknowledged' && streamId(message) === i + 1)));
    p.request(71, 'tools/call', { name: 'emit', arguments: { kind: 'tools' } });
    await p.response(71);
    // Every one of the 64 open streams gets the event, tagged with its own id.
    const tagged = await Promise.all(Array.from({ length: 64 }, (_, i) => p.next((message) =>
      message.method === 'notifications/tools/list_changed' && (message.params?._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'] === i + 1)));
    expect(tagged).toHaveLength(64);
    // The events follow every acknowledgment: by now the refused requests would have had theirs.
    expect(p.received.filter((message) => message.method === 'notifications/subscriptions/acknowledged')).toHaveLength(64);
  });

  it('refuses requests before initialize, and a second initialize', async () => {
    const p = start();
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await p.response(1)).error?.code).toBe(ErrorCode.InvalidRequest);
    p.send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2099-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect((await p.response(2)).result?.protocolVersion).toBe('2025-11-25');
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    p.send({ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } });
    expect((await p.response(4)).error?.code).toBe(ErrorCode.InvalidRequest);
    p.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect((await p.response(5)).result).toEqual({});
  });

  it('serves both eras at once on one connection: the legacy session and modern requests side by side', async () => {
    const p = start();
    p.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect((await p.response(1)).result?.protocolVersion).toBe('2025-11-25');
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // A request carrying the modern envelope is served statelessly in the modern era, session or not.
    p.request(2, 'server/discover');
    expect((await p.response(2)).result?.supportedVersions).toEqual(['2026-07-28']);
    p.request('L', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    await p.next((message) => message.method === 'notifications/subscriptions/acknowledged');
    // Without the envelope, a request is the legacy session's.
    p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'emit', arguments: { kind: 'tools' } } });
    await p.response(3);
    const changes = await Promise.all([
      p.next((message) => message.method === 'notifications/tools/list_changed' && message.params?._meta === undefined),
      p.next((message) => message.method === 'notifications/tools/list_changed' && (message.params?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/subscriptionId'] === 'L'),
    ]);
    // The change reaches the legacy session unsolicited and the modern stream tagged with its id.
    expect(changes).toHaveLength(2);
  });

  it('stops a cancelled request: no response for it, the connection keeps serving', async () => {
    const p = start();
    p.request(1, 'tools/call', { name: 'slow', arguments: { ms: 60_000 } });
    p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'changed my mind' } });
    p.request(2, 'tools/call', { name: 'echo', arguments: { text: 'after' } });
    expect((await p.response(2)).result?.content).toEqual([{ type: 'text', text: 'after' }]);
    p.request(3, 'tools/call', { name: 'stats', arguments: {} });
    const stats = (await p.response(3)).result?.content as { text: string }[];
    expect(JSON.parse(stats[0]!.text)).toMatchObject({ cancelledCalls: 1 });
    expect(p.received.some((message) => message.id === 1)).toBe(false);
  });
});

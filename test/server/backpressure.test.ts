/**
 * Slow and flooded clients over stdio: bursts stay bounded and the server
 * keeps answering; a client that stops reading loses its stream loudly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { ALL_CHANGES, closeAllPeers, connectStdio, NotificationLog, TOOLS_CHANGED, wire } from './official-peers.ts';
import { modernMeta, RawStdioPeer } from './raw-stdio-peer.ts';

const modernMetaWithToken = (token: string) => modernMeta({ progressToken: token });

let peer: RawStdioPeer | undefined;
afterEach(async () => {
  peer?.kill();
  peer = undefined;
  await closeAllPeers();
});

const textOf = (result: unknown): string => ((result as { content: { text: string }[] }).content[0]!.text);

describe('backpressure over stdio', () => {
  it('answers a request sent right after a 100,000-notification burst, and coalesces the burst', async () => {
    const client = await connectStdio('modern');
    const log = new NotificationLog(client, ALL_CHANGES);
    await client.listen({ toolsListChanged: true });
    const burst = client.callTool({ name: 'emit', arguments: { kind: 'tools', count: 100_000 } });
    const echo = client.callTool({ name: 'echo', arguments: { text: 'still here' } });
    expect(textOf(await echo)).toBe('still here');
    expect(textOf(await burst)).toBe('emitted 100000 tools');
    await log.waitFor(TOOLS_CHANGED);
    // Repeats of an event still waiting to be written say nothing new: they coalesce. The burst is
    // published in one synchronous loop, before the outbox writes anything, so exactly one goes out.
    const delivered = wire(client).filter((message) => message.method === TOOLS_CHANGED).length;
    expect(delivered).toBe(1);
  });

  it('paces a tool streaming 20,000 progress notifications to a stalled client, and answers a request queued behind it promptly', async () => {
    const p = (peer = new RawStdioPeer());
    p.stopReading();
    // Both requests in one write, so the server reads them together: the echo is under way before any progress is written.
    const frame = (id: number, params: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { _meta: modernMeta(), ...params } });
    p.send(`${frame(1, { name: 'progress', arguments: { steps: 20_000 }, _meta: modernMetaWithToken('t') })}\n${frame(2, { name: 'echo', arguments: { text: 'x' } })}`);
    p.resumeReading();
    const echo = await p.response(2);
    expect(echo.result?.content).toEqual([{ type: 'text', text: 'x' }]);
    // The progress tool waits for room once outboxHighWater frames are queued, so the echo answer
    // cannot end up behind more than that many of them, let alone the whole burst.
    const before = p.received.slice(0, p.received.indexOf(echo)).filter((message) => message.method === 'notifications/progress').length;
    expect(before).toBeLessThanOrEqual(DEFAULT_LIMITS.outboxHighWater);
    await p.response(1);
    expect(p.received.filter((message) => message.method === 'notifications/progress')).toHaveLength(20_000);
  });

  it('ends a listen stream whose client stops reading with a slow_consumer error', async () => {
    const p = (peer = new RawStdioPeer(['--max-pending', '4']));
    const uris = Array.from({ length: 8 }, (_, i) => `test://burst/${i}`);
    p.request('L', 'subscriptions/listen', { notifications: { resourceSubscriptions: uris } });
    await p.next((message) => message.method === 'notifications/subscriptions/acknowledged');
    p.stopReading();
    // Fill the pipe with progress (the tool waits for room), then publish 8 distinct updates.
    p.request(1, 'tools/call', { name: 'progress', arguments: { steps: 5_000 } });
    for (const [index, uri] of uris.entries()) p.request(10 + index, 'tools/call', { name: 'emit', arguments: { kind: 'updated', uri } });
    p.resumeReading();
    const ended = await p.response('L');
    expect(ended.error).toEqual({
      code: -32000,
      message: 'listen stream ended: the client did not keep up with its events',
      data: { reason: 'slow_consumer', maxPending: 4, 'io.modelcontextprotocol/subscriptionId': 'L' },
    });
    const last = await p.response(17);
    expect(last.result).toBeDefined();
  });
});

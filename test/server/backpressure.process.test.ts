/**
 * Slow and flooded clients over stdio: bursts stay bounded and the server
 * keeps answering; a client that stops reading loses its stream loudly.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { ALL_CHANGES, closeAllPeers, connectStdio, NotificationLog, TOOLS_CHANGED, wire } from './official-peers.ts';
import { modernMeta, RawStdioPeer, type Message } from './raw-stdio-peer.ts';

const modernMetaWithToken = (token: string) => modernMeta({ progressToken: token });
const callFrame = (id: number, params: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { _meta: modernMeta(), ...params } });

const BURST = 100_000;
const MEMORY_BOUND = 100 * 1024 * 1024;

/** A field of /proc/<pid>/status in bytes: `VmRSS` (resident now) or `VmHWM` (the peak so far). Linux only. */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

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

  // The pause must last until the server is really held back; "blocked" is the absence of progress, so no
  // event says so: the stall ends once our side stopped reading the pipe (its buffer is full), after which
  // every server write waits on the kernel pipe. VmHWM (the peak) covers the whole run, stall included.
  it.skipIf(process.platform !== 'linux')(
    'streams 100,000 progress notifications through a client stalled halfway, answering requests sent beside and during the burst first, its memory bounded',
    async () => {
      const p = (peer = new RawStdioPeer());
      const pid = p.child.pid!;
      p.request(0, 'tools/call', { name: 'echo', arguments: { text: 'warm' } });
      await p.response(0);
      const baseline = statusBytes(pid, 'VmRSS');
      // Both requests in one write, so the server reads them together: the echo is under way before any progress is written.
      p.send(`${callFrame(1, { name: 'progress', arguments: { steps: BURST }, _meta: modernMetaWithToken('t') })}\n${callFrame(2, { name: 'echo', arguments: { text: 'beside' } })}`);
      await p.next((message) => message.method === 'notifications/progress' && message.params?.progress === BURST / 2);
      p.stopReading();
      const stdout = p.child.stdout;
      await expect.poll(() => stdout.readableLength >= stdout.readableHighWaterMark, { interval: 5, timeout: 5_000 }).toBe(true);
      p.send(callFrame(3, { name: 'echo', arguments: { text: 'during' } }));
      p.resumeReading();
      const burst = await p.response(1);
      const peak = statusBytes(pid, 'VmHWM');
      expect(burst.result?.content).toEqual([{ type: 'text', text: `done ${BURST}` }]);
      expect(p.received.filter((message) => message.method === 'notifications/progress')).toHaveLength(BURST);
      // The echo read beside the burst waits behind at most outboxHighWater progress frames (the tool waits for
      // room past that).
      const progressBefore = (message: Message) =>
        p.received.slice(0, p.received.indexOf(message)).filter((frame) => frame.method === 'notifications/progress').length;
      expect(progressBefore(await p.response(2))).toBeLessThanOrEqual(DEFAULT_LIMITS.outboxHighWater);
      // The stalled pipe and buffers hold ~1,300 frames; a server that ran ahead would have queued all 50,000
      // left before reading the request sent during the stall.
      expect(progressBefore(await p.response(3)) - BURST / 2).toBeLessThan(BURST / 10);
      // A generous bound on the whole run's peak. It catches per-frame leaks, not running ahead as such: these
      // frames are small (~115 bytes), so even queuing all of them would cost ~15 MB; the counts above catch that.
      expect(peak - baseline).toBeLessThan(MEMORY_BOUND);
    },
    120_000, // 100,000 frames through a child process take seconds on a shared machine
  );

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
      data: { reason: 'slow_consumer', exceeded: 'events', maxPending: 4, maxPendingBytes: DEFAULT_LIMITS.maxPendingBytesPerStream, 'io.modelcontextprotocol/subscriptionId': 'L' },
    });
    const last = await p.response(17);
    expect(last.result).toBeDefined();
  });
});

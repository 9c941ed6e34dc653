/**
 * A legacy session's `resources/subscribe` URIs and list-change registrations
 * belong to it alone and go with it: once it ends, no broadcast reaches it.
 */
import { describe, expect, it, vi } from 'vitest';
import { AudienceIndex } from '../../src/server/audience-index.ts';
import { LegacySession } from '../../src/server/legacy-session.ts';

function session(index: AudienceIndex, id: string) {
  return new LegacySession({
    id,
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
    index,
    maxPending: 16,
    maxPendingBytes: 64 * 1024,
    idleMs: 60_000,
    onEnd: () => undefined,
  });
}

describe('legacy session cleanup', () => {
  it('an ended session leaves its URI subscriptions and list registrations; the others keep theirs', () => {
    const index = new AudienceIndex();
    const ending = session(index, 'a');
    const staying = session(index, 'b');
    for (const s of [ending, staying]) {
      s.initialize('2025-11-25', {});
      s.initialized();
      s.subscribe('file:///shared');
    }
    const endingReceives = vi.spyOn(ending, 'receive');
    const stayingReceives = vi.spyOn(staying, 'receive');

    ending.end({ type: 'client_deleted' });
    index.fanOut({ type: 'resource_updated', uri: 'file:///shared' });
    index.fanOut({ type: 'tools_list_changed' });

    expect(endingReceives).not.toHaveBeenCalled();
    expect(ending.subscriptions.size).toBe(0);
    expect(stayingReceives.mock.calls.map(([event]) => event.type)).toEqual(['resource_updated', 'tools_list_changed']);
  });

  it('ends once: a second end (the server closing, then its connection) keeps the first reason and sends the ended session nothing', () => {
    const reasons: unknown[] = [];
    const ending = new LegacySession({
      id: 'twice',
      capabilities: {},
      index: new AudienceIndex(),
      maxPending: 16,
      maxPendingBytes: 64 * 1024,
      idleMs: 60_000,
      onEnd: (_session, reason) => reasons.push(reason),
    });
    ending.initialize('2025-03-26', {});
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      ending.end({ type: 'server_shutdown' });
      ending.end({ type: 'transport_closed' });
      expect(reasons).toEqual([{ type: 'server_shutdown' }]);
      // xstate's development build warns of an event sent to a stopped actor.
      expect(warned).not.toHaveBeenCalled();
    } finally {
      warned.mockRestore();
    }
  });
});

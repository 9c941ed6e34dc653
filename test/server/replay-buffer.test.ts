/** The legacy GET stream's replay buffer: ids, what a Last-Event-ID gets back, and its three bounds. */
import { describe, expect, it } from 'vitest';
import { ReplayBuffer } from '../../src/server/replay-buffer.ts';

const bounds = { maxEvents: 3, maxBytes: 1_000_000, maxAgeMs: 60_000 };
const ids = (frames: string | undefined) => (frames === undefined ? undefined : [...frames.matchAll(/^id: (\S+)$/gm)].map((match) => match[1]));

describe('ReplayBuffer', () => {
  it('gives each frame the next id and replays what came after a Last-Event-ID, in order', () => {
    const buffer = new ReplayBuffer(bounds);
    expect(buffer.lastId).toBe('g0');
    expect(buffer.frame('{"a":1}')).toBe('id: g1\nevent: message\ndata: {"a":1}\n\n');
    buffer.frame('{"a":2}');
    buffer.frame('{"a":3}');
    expect(ids(buffer.since('g0'))).toEqual(['g1', 'g2', 'g3']);
    expect(ids(buffer.since('g2'))).toEqual(['g3']);
    expect(buffer.since('g3')).toBe('');
  });

  it('a Last-Event-ID from before the oldest kept frame is a gap', () => {
    const buffer = new ReplayBuffer(bounds);
    for (let i = 1; i <= 5; i++) buffer.frame(`{"n":${i}}`);
    expect(ids(buffer.since('g2'))).toEqual(['g3', 'g4', 'g5']);
    expect(buffer.since('g1')).toBeUndefined();
  });

  it('ids it never handed out are a gap, not an empty replay', () => {
    const buffer = new ReplayBuffer(bounds);
    buffer.frame('{}');
    for (const id of ['g2', 'x1', 'g01', '', 'g-1', '17']) expect(buffer.since(id)).toBeUndefined();
  });

  it('drops frames older than maxAgeMs and beyond maxBytes', () => {
    let now = 0;
    const aged = new ReplayBuffer({ ...bounds, maxAgeMs: 100 }, () => now);
    aged.frame('{"old":true}');
    now = 50;
    aged.frame('{"new":true}');
    now = 120;
    expect(aged.since('g0')).toBeUndefined();
    expect(ids(aged.since('g1'))).toEqual(['g2']);

    const small = new ReplayBuffer({ ...bounds, maxBytes: 60 });
    small.frame('{"first":"x"}');
    small.frame('{"second":"y"}');
    expect(small.since('g0')).toBeUndefined();
    expect(ids(small.since('g1'))).toEqual(['g2']);
  });

  it('maxEvents 0 keeps nothing: every reconnect after a frame is a gap', () => {
    const buffer = new ReplayBuffer({ ...bounds, maxEvents: 0 });
    buffer.frame('{}');
    expect(buffer.since('g0')).toBeUndefined();
    expect(buffer.since('g1')).toBe('');
  });
});

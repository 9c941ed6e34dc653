import { describe, expect, it } from 'vitest';
import { compareStreamIds, encodeChangeEvent, parseRead } from '../../src/redis/stream-protocol.ts';
import { MAX_EVENT_BYTES } from '../../src/redis/entry-errors.ts';

/** An XREAD reply (RESP2) of one entry, its fields as bytes: what the bus's reads get (READ_REPLY_TYPES). */
const replyOf = (id: string, fields: Array<string | Buffer>) => [
  [Buffer.from('{mcp-actors}:events'), [[Buffer.from(id), fields.map((field) => (typeof field === 'string' ? Buffer.from(field) : field))]]],
];

describe('stream ids', () => {
  it('are ordered beyond a number\'s precision, as Redis orders them (an id is anyone\'s to choose)', () => {
    expect(compareStreamIds('1152921504606846977-5', '1152921504606846976-9')).toBe(1);
    expect(compareStreamIds('1-18446744073709551614', '1-18446744073709551615')).toBe(-1);
    expect(compareStreamIds('18446744073709551615-18446744073709551615', '18446744073709551615-18446744073709551615')).toBe(0);
    expect(compareStreamIds('1700000000000-0', '99999999999999-0')).toBe(-1);
  });
});

describe('reading entries', () => {
  const header = ['n', '7', 'o', 'node-a', 's', '3'];

  it('takes an entry of bytes as a bus wrote it', () => {
    const event = encodeChangeEvent({ type: 'resource_updated', uri: 'test://x' });
    expect(parseRead(replyOf('5-0', [...header, 'e', event]))).toEqual([
      { ok: true, header: { id: '5-0', ordinal: 7, origin: 'node-a', seq: 3, event }, event: { type: 'resource_updated', uri: 'test://x' } },
    ]);
  });

  it('skips an event over the limit without decoding it, keeping its ordinal for continuity', () => {
    const huge = Buffer.alloc(MAX_EVENT_BYTES + 1, 'a');
    expect(parseRead(replyOf('5-0', [...header, 'e', huge]))).toEqual([{ ok: false, id: '5-0', ordinal: 7, problem: { type: 'malformed', detail: 'too_large' } }]);
  });

  it('passes over fields a bus does not write, however long their names, and refuses an origin longer than a node id', () => {
    const event = encodeChangeEvent({ type: 'tools_list_changed' });
    const [entry] = parseRead(replyOf('5-0', [Buffer.alloc(2 * MAX_EVENT_BYTES, 'x'), 'y', ...header, 'e', event]));
    expect(entry).toMatchObject({ ok: true, header: { origin: 'node-a' } });
    expect(parseRead(replyOf('6-0', ['n', '8', 'o', 'o'.repeat(65), 's', '1', 'e', event]))).toEqual([
      { ok: false, id: '6-0', ordinal: 8, problem: { type: 'malformed', detail: 'bad_header' } },
    ]);
  });
});

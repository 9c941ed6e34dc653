/**
 * Classifying a frame never throws and never recurses on what the peer
 * sent: nesting past MAX_FRAME_DEPTH is a `too_deep` FrameError, and the
 * excerpt a FrameError keeps is bounded however large, deep or cyclic the
 * value was.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan, previewJson } from '../../src/protocol/bounded-json.ts';
import { classifyFrame, MAX_FRAME_DEPTH, parseFrame, parseFrames } from '../../src/protocol/jsonrpc.ts';

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** A notification whose params hold `depth - 2` more levels, so the frame nests exactly `depth` deep. */
const deepNotification = (depth: number) =>
  `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":${'{"a":'.repeat(depth - 2)}1${'}'.repeat(depth - 2)}}}`;

describe('nesting depth', () => {
  it.each([1_000, 5_000, 100_000])('%i nested arrays are a too_deep FrameError, not a RangeError', (depth) => {
    const frame = parseFrame(nestedArrays(depth), 4 * 1024 * 1024);
    expect(frame).toMatchObject({ kind: 'invalid', error: { name: 'FrameError', problem: 'too_deep' } });
    if (frame.kind === 'invalid') expect(frame.error.frame!.length).toBeLessThanOrEqual(201);
  });

  it('a message nested exactly MAX_FRAME_DEPTH deep is classified; one level more is refused', () => {
    expect(parseFrame(deepNotification(MAX_FRAME_DEPTH), 1 << 20).kind).toBe('notification');
    expect(parseFrame(deepNotification(MAX_FRAME_DEPTH + 1), 1 << 20)).toMatchObject({ kind: 'invalid', error: { problem: 'too_deep' } });
  });

  it('a request nested too deep keeps its id, so its refusal names it; a response nested too deep names nothing', () => {
    const deepRequest = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"a":${nestedArrays(100_000)}}}`;
    expect(parseFrame(deepRequest('7'), 1 << 20)).toMatchObject({ kind: 'invalid', error: { problem: 'too_deep', requestId: 7 } });
    expect(parseFrame(deepRequest('"r-1"'), 1 << 20)).toMatchObject({ kind: 'invalid', error: { problem: 'too_deep', requestId: 'r-1' } });
    // An id that is not one (an object, null) is not read as one; a notification and a response have none to refuse under.
    for (const frame of [deepRequest('{"x":1}'), deepRequest('null'), deepNotification(MAX_FRAME_DEPTH + 1), `{"jsonrpc":"2.0","id":7,"result":{"a":${nestedArrays(1_000)}}}`]) {
      const classified = parseFrame(frame, 1 << 20);
      expect(classified).toMatchObject({ kind: 'invalid', error: { problem: 'too_deep' } });
      if (classified.kind === 'invalid') expect([classified.error.requestId, classified.error.responseId]).toEqual([undefined, undefined]);
    }
  });

  it('values handed over already parsed (SDK transports, JSON batches) are measured too', () => {
    const deep = JSON.parse(deepNotification(100_000)) as unknown;
    expect(classifyFrame(deep)).toMatchObject({ kind: 'invalid', error: { problem: 'too_deep' } });
    expect(classifyFrame(JSON.parse(deepNotification(MAX_FRAME_DEPTH)))).toMatchObject({ kind: 'notification' });
  });

  it('a cyclic value (not from JSON) ends the walk as too deep', () => {
    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', method: 'x' };
    cyclic.params = { self: cyclic };
    expect(nestsDeeperThan(cyclic, MAX_FRAME_DEPTH)).toBe(true);
    expect(classifyFrame(cyclic)).toMatchObject({ kind: 'invalid', error: { problem: 'too_deep' } });
  });

  it('agrees with the depth of generated JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 10 }), (value, limit) => {
        const depthOf = (v: unknown): number =>
          typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;
        expect(nestsDeeperThan(value, limit)).toBe(depthOf(value) > limit);
      }),
    );
  });
});

describe('the excerpt a FrameError keeps', () => {
  it('renders small values as JSON', () => {
    expect(previewJson({ a: [1, 'two', null, true], b: {} }, 200)).toBe('{"a":[1,"two",null,true],"b":{}}');
    expect(previewJson([], 200)).toBe('[]');
  });

  it('is cut at the limit for wide, long and deep values alike', () => {
    const wide = Array.from({ length: 1_000_000 }, (_, i) => i);
    const long = { text: 'x'.repeat(5_000_000) };
    const deep = JSON.parse(nestedArrays(100_000)) as unknown;
    for (const value of [wide, long, deep]) {
      const text = previewJson(value, 200);
      expect(text.length).toBeLessThanOrEqual(201);
      expect(text.endsWith('…')).toBe(true);
    }
  });

  it('is a prefix of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 80 }), (value, limit) => {
        const full = JSON.stringify(value);
        const text = previewJson(value, limit);
        if (text.endsWith('…')) expect(full.startsWith(text.slice(0, -1))).toBe(true);
        else expect(text).toBe(full);
      }),
    );
  });

  it('a refused array frame quotes the text it arrived as', () => {
    const frame = parseFrame('[1,2,3]', 1024);
    expect(frame).toMatchObject({ kind: 'invalid', error: { problem: 'not_an_object', frame: '[1,2,3]' } });
  });
});

describe('a JSON-RPC batch, as a client reads it (parseFrames)', () => {
  const kinds = (text: string) => parseFrames(text, 1 << 20).map((frame) => (frame.kind === 'invalid' ? frame.error.problem : frame.kind));

  it('is its messages, each classified as if it came alone', () => {
    const batch = '[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"notifications/tools/list_changed"},{"jsonrpc":"2.0","id":"s-1","method":"ping"}]';
    expect(kinds(batch)).toEqual(['response', 'notification', 'request']);
  });

  it('refuses what no message may be, element by element, and an empty batch as a whole', () => {
    expect(kinds('[1,[{"jsonrpc":"2.0","id":1,"result":{}}],{"jsonrpc":"1.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]')).toEqual([
      'not_an_object',
      'not_an_object',
      'wrong_version',
      'response',
    ]);
    expect(kinds('[]')).toEqual(['wrong_shape']);
    expect(kinds(`[${nestedArrays(100_000)}]`)).toEqual(['too_deep']);
  });

  it('is bounded and parsed as a single message is: one oversized or unparseable frame', () => {
    expect(parseFrames(`[${'{"jsonrpc":"2.0","method":"x"},'.repeat(100)}1]`, 1_000)).toMatchObject([{ kind: 'invalid', error: { problem: 'oversized' } }]);
    expect(kinds('[{"jsonrpc":"2.0"')).toEqual(['unparseable']);
    expect(parseFrames('{"jsonrpc":"2.0","id":1,"result":{}}', 1_000)).toEqual([parseFrame('{"jsonrpc":"2.0","id":1,"result":{}}', 1_000)]);
  });
});

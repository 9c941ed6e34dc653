import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineSplitter } from '../../src/transport/line-splitter.ts';

function collect(maxLineBytes = 1024) {
  const lines: string[] = [];
  const oversized: { head: string; tail: string }[] = [];
  const splitter = new LineSplitter(maxLineBytes, {
    line: (text) => lines.push(text),
    oversized: (head, tail) => oversized.push({ head, tail }),
  });
  return { splitter, lines, oversized };
}

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('LineSplitter', () => {
  it('emits each newline-terminated line of a chunk in order', () => {
    const { splitter, lines } = collect();
    splitter.push(bytes('{"a":1}\n{"b":2}\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('joins a line split across two chunks', () => {
    const { splitter, lines } = collect();
    splitter.push(bytes('{"jsonrpc":"2.0",'));
    expect(lines).toEqual([]);
    splitter.push(bytes('"method":"x"}\n'));
    expect(lines).toEqual(['{"jsonrpc":"2.0","method":"x"}']);
  });

  it('decodes a multi-byte character split across chunks whole', () => {
    const { splitter, lines } = collect();
    const line = bytes('{"text":"€ and 😀"}\n');
    const euro = line.indexOf(0xe2);
    const emoji = line.indexOf(0xf0);
    splitter.push(line.subarray(0, euro + 1));
    splitter.push(line.subarray(euro + 1, emoji + 2));
    splitter.push(line.subarray(emoji + 2));
    expect(lines).toEqual(['{"text":"€ and 😀"}']);
  });

  it('drops the CR of CRLF line endings, also when CR and LF arrive in different chunks', () => {
    const { splitter, lines } = collect();
    splitter.push(bytes('one\r\ntwo\r'));
    splitter.push(bytes('\nthree\n'));
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('ignores empty lines', () => {
    const { splitter, lines } = collect();
    splitter.push(bytes('\n\r\none\n\n'));
    expect(lines).toEqual(['one']);
  });

  it('reports a line over the limit inside one chunk once and keeps going', () => {
    const { splitter, lines, oversized } = collect(10);
    splitter.push(bytes(`${'x'.repeat(11)}\nok\n`));
    expect(oversized).toEqual([{ head: 'x'.repeat(11), tail: 'x'.repeat(11) }]);
    expect(lines).toEqual(['ok']);
  });

  it('accepts a line of exactly the limit', () => {
    const { splitter, lines, oversized } = collect(10);
    splitter.push(bytes('0123456789'));
    splitter.push(bytes('\r\n'));
    expect(oversized).toEqual([]);
    expect(lines).toEqual(['0123456789']);
  });

  it('drops an oversized line spread over many chunks without buffering it, reporting it once', () => {
    const { splitter, lines, oversized } = collect(100);
    splitter.push(bytes('{"head":"'));
    for (let i = 0; i < 50; i += 1) splitter.push(bytes('y'.repeat(1000)));
    splitter.push(bytes('"}\nafter\n'));
    expect(oversized).toHaveLength(1);
    expect(oversized[0]!.head).toMatch(/^\{"head":"y+$/);
    expect(oversized[0]!.head.length).toBeLessThanOrEqual(200);
    expect(oversized[0]!.tail).toMatch(/^y+"\}$/);
    expect(oversized[0]!.tail.length).toBeLessThanOrEqual(200);
    expect(lines).toEqual(['after']);
  });

  it('reports a dropped line once it ends, with its last bytes however the chunks fall (a response names its id there)', () => {
    const line = `{"result":{"text":"${'z'.repeat(5000)}"},"jsonrpc":"2.0","id":42}`;
    for (const size of [1, 7, 199, 200, 201, 4096]) {
      const { splitter, lines, oversized } = collect(1000);
      const whole = bytes(`${line}\r\nnext\n`);
      for (let at = 0; at < whole.length; at += size) splitter.push(whole.subarray(at, at + size));
      expect(oversized).toEqual([{ head: line.slice(0, 200), tail: line.slice(-200) }]);
      expect(lines).toEqual(['next']);
    }
  });

  it('reports a line still being dropped when the stream ends', () => {
    const { splitter, oversized } = collect(10);
    splitter.push(bytes('x'.repeat(50)));
    expect(oversized).toEqual([]);
    splitter.end();
    expect(oversized).toEqual([{ head: 'x'.repeat(50), tail: 'x'.repeat(50) }]);
  });

  it('emits an unterminated last line when the stream ends', () => {
    const { splitter, lines } = collect();
    splitter.push(bytes('one\ntwo'));
    splitter.end();
    expect(lines).toEqual(['one', 'two']);
  });

  it('yields the same lines however the stream is cut into chunks', () => {
    const line = fc.string({ unit: fc.constantFrom('a', '{', '"', 'é', '€', '😀', '\r', ' '), maxLength: 30 })
      .filter((text) => !text.includes('\r'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 10 }), (texts, cuts) => {
        const stream = bytes(texts.map((text) => `${text}\n`).join(''));
        const points = [...new Set(cuts.map((cut) => cut % (stream.length + 1)))].sort((a, b) => a - b);
        const { splitter, lines } = collect();
        let from = 0;
        for (const point of [...points, stream.length]) {
          splitter.push(stream.subarray(from, point));
          from = point;
        }
        expect(lines).toEqual(texts.filter((text) => text !== ''));
      }),
    );
  });
});

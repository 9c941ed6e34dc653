/**
 * `Mcp-Param-*` and `Mcp-Name` values in the `=?base64?…?=` sentinel form
 * (2026-07-28 Streamable HTTP, value encoding): decoded strictly, so
 * anything but padded Base64 of UTF-8 is refused (the HTTP tests show the
 * 400 with -32020 this becomes); a value without the whole sentinel is literal.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeHeaderValue } from '../../src/server/param-headers.ts';

describe('decodeHeaderValue', () => {
  it.each([
    ['=?base64?SGVsbG8=?=', 'Hello'],
    ['=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界'],
    ['=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=', '=?base64?literal?='],
    ['=?base64??=', ''],
    ['SGVsbG8=', 'SGVsbG8='],
    ['=?base64?SGVsbG8=', '=?base64?SGVsbG8='],
  ])('%s decodes to %s', (header, value) => {
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it.each([
    ['=?base64?SGVsbG8?=', 'missing padding'],
    ['=?base64?SGVs!!!bG8=?=', 'characters outside the alphabet'],
    ['=?base64?SGVsbG8==?=', 'too much padding'],
    ['=?base64?SGVsbG9=?=', 'non-zero bits after the last byte'],
    ['=?base64?SGVs bG8=?=', 'a space'],
    ['=?base64?SGVsbG8_?=', 'the base64url alphabet'],
    ['=?base64?/w==?=', 'bytes that are not UTF-8'],
  ])('%s is refused (%s)', (header) => {
    expect(decodeHeaderValue(header)).toBeUndefined();
  });

  it('decodes what Buffer encodes, for any text', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => {
      expect(decodeHeaderValue(`=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`)).toBe(text);
    }));
  });
});

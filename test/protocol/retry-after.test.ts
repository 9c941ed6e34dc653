/** Retry-After as RFC 9110 §10.2.3 writes it: seconds, or any of the three HTTP-date forms; nothing else is an ask. */
import { describe, expect, it } from 'vitest';
import { HttpStatusError } from '../../src/protocol/errors.ts';
import { parseRetryAfter, retryAfterOf } from '../../src/protocol/retry-after.ts';

const NOW = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');

describe('parseRetryAfter', () => {
  it('reads seconds and the three date forms, a date in the past as no wait', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    // A year is a number of seconds, not a date.
    expect(parseRetryAfter('2027', NOW)).toBe(2_027_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Wednesday, 21-Oct-26 07:28:30 GMT', NOW)).toBe(30_000);
    // asctime has no zone: GMT, whatever the machine's.
    expect(parseRetryAfter('Wed Oct 21 07:28:30 2026', NOW)).toBe(30_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:00:00 GMT', NOW)).toBe(0);
  });

  it('takes nothing else for an ask', () => {
    for (const junk of ['-1', '1.5', 'soon', '', '0x10', 'Wed, 21 Oct 2026 07:28:30', '21 Oct 2026 07:28:30 GMT']) {
      expect(parseRetryAfter(junk, NOW), junk).toBeUndefined();
    }
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
    // A number too large to be a wait still is a finite one.
    expect(Number.isFinite(parseRetryAfter('9'.repeat(400), NOW))).toBe(true);
  });
});

describe('retryAfterOf and HttpStatusError.of', () => {
  const answer = (status: number, retryAfter?: string) => new Response(null, { status, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter } });

  it('read Retry-After from a 429 or 503 only', () => {
    expect(retryAfterOf(answer(429, '3'))).toBe(3_000);
    expect(retryAfterOf(answer(503, '3'))).toBe(3_000);
    expect(retryAfterOf(answer(500, '3'))).toBeUndefined();
    expect(retryAfterOf(answer(301, '3'))).toBeUndefined();
    expect(retryAfterOf(answer(503))).toBeUndefined();
  });

  it('puts the ask on the error and in its message', () => {
    const error = HttpStatusError.of(answer(503, '2'));
    expect(error).toMatchObject({ status: 503, retryAfterMs: 2_000, code: 'http_status' });
    expect(error.message).toContain('retry after 2000 ms');
    expect(HttpStatusError.of(answer(404)).retryAfterMs).toBeUndefined();
  });
});

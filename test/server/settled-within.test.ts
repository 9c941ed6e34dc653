/** settledWithin: the bound a closing server and a closing stdio connection give the work they let finish. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settledWithin } from '../../src/server/settled-within.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('settledWithin', () => {
  it('is true when the work settles in time, rejected or not, and leaves no timer', async () => {
    vi.useFakeTimers();
    expect(await settledWithin(Promise.resolve('done'), 1_000)).toBe(true);
    expect(await settledWithin(Promise.reject(new Error('failed')), 1_000)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is false once the bound passes first, and leaves no timer', async () => {
    vi.useFakeTimers();
    let verdict: boolean | undefined;
    void settledWithin(new Promise(() => {}), 1_000).then((settled) => (verdict = settled));
    await vi.advanceTimersByTimeAsync(999);
    expect(verdict).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(verdict).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});

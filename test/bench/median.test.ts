import { describe, expect, it } from 'vitest';
import { median } from '../../bench/median.ts';

describe('median (the benchmarks and test:ab)', () => {
  it('is the middle value of an odd count, whatever the order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });
  it('is the mean of the two middle values of an even count', () => {
    expect(median([0.72, 0.58, 0.62, 0.8])).toBeCloseTo(0.67, 10);
  });
  it('refuses no values rather than answering undefined', () => {
    expect(() => median([])).toThrow(RangeError);
  });
  it('leaves its input unsorted', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

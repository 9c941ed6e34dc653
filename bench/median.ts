/**
 * The median the benchmarks and `npm run test:ab` report: the middle value,
 * or the mean of the two middle values when there is an even number of them.
 * One definition, so that every ratio in a closing note is computed the same way.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

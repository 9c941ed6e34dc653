/**
 * Counts the lines a benchmark reads from a server and resolves waits on
 * them: `expect(count, match)` resolves once `count` lines matching have been
 * fed from now on. Fed by whatever splits a stream into lines (stdout,
 * an SSE response's data fields).
 */
export class LineCounter {
  private counters: { match: (line: string) => boolean; left: number; resolve: () => void }[] = [];

  /** Resolves once `count` lines matching have arrived from now on. */
  expect(count: number, match: (line: string) => boolean): Promise<void> {
    if (count === 0) return Promise.resolve();
    return new Promise((resolve) => this.counters.push({ match, left: count, resolve }));
  }

  /** One line read. */
  line(line: string): void {
    if (this.counters.length === 0) return;
    this.counters = this.counters.filter((counter) => {
      if (!counter.match(line)) return true;
      counter.left -= 1;
      if (counter.left > 0) return true;
      counter.resolve();
      return false;
    });
  }

  /** A splitter for one byte stream: feed it chunks, it feeds whole lines here. */
  splitter(): (chunk: string) => void {
    return lineSplitter((line) => this.line(line));
  }
}

/** Splits one byte stream's chunks into lines for `onLine`; a line is whole once its newline arrived. */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
}

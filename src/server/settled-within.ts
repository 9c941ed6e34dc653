/**
 * Waits for `work` to settle, but no longer than `timeoutMs`: true when it settled in time. For a shutdown that
 * lets work finish within a bound (the requests a closing server drains, the answers a closing stdio connection
 * writes out) and then goes on without it; no timer is left behind either way.
 */
export async function settledWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const settled = work.then(() => true as const, () => true as const);
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

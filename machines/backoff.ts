/**
 * The one backoff policy of the project: exponential from a base delay,
 * capped, with jitter, for a number of attempts (bounded, or Infinity). The connection's
 * reconnects and the cache's recovery both use it.
 */
export interface Backoff {
  /** Attempts before giving up; `Infinity` never gives up (a watcher a person keeps open). */
  maxAttempts: number;
  /** The delay before the first attempt; doubles per attempt. */
  baseDelayMs: number;
  /** No delay exceeds this, jitter included. */
  maxDelayMs: number;
}

/** Documented defaults: 5 attempts, 250 ms doubling, capped at 10 s. */
export const DEFAULT_BACKOFF: Backoff = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000 };

/** Uniform in [half, all] of the capped exponential delay; `random` is a number in [0, 1] (1: no jitter). */
export function backoffDelay(attempt: number, backoff: Backoff, random: number): number {
  const exponential = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random);
}

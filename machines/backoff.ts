/**
 * The one backoff policy of the project: exponential from a base delay,
 * capped, with jitter, for a number of attempts (bounded, or Infinity). The connection's
 * reconnects, the cache's recovery and a stream's re-listens all use it. The
 * first two follow failures that may carry a server's word on how long to stay
 * away (an HTTP `Retry-After`) and honor it, within `maxRetryAfterMs`: a server
 * behind a rate limit or in a deploy is not hammered by every client's quick
 * first attempts, and one asking for a day does not park a client for a day.
 * (A re-listen follows a stream that broke, which carries no such word.)
 */
export interface Backoff {
  /** Attempts before giving up; `Infinity` never gives up (a watcher a person keeps open). */
  maxAttempts: number;
  /** The delay before the first attempt; doubles per attempt. */
  baseDelayMs: number;
  /** No delay of the backoff's own exceeds this, jitter included; a server's `Retry-After` may ask for more. */
  maxDelayMs: number;
  /** The longest wait a server's `Retry-After` is honored for (default {@link DEFAULT_MAX_RETRY_AFTER_MS}); 0 ignores it. */
  maxRetryAfterMs?: number;
}

/** Documented defaults: 5 attempts, 250 ms doubling, capped at 10 s. */
export const DEFAULT_BACKOFF: Backoff = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000 };

/** A server's `Retry-After` is honored up to a minute unless a backoff says otherwise. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** Uniform in [half, all] of the capped exponential delay; `random` is a number in [0, 1] (1: no jitter). */
export function backoffDelay(attempt: number, backoff: Backoff, random: number): number {
  const exponential = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random);
}

/**
 * The wait before `attempt` after a failure caused by `cause`: the backoff's delay, or what the server asked for
 * when that is longer, up to `maxRetryAfterMs`.
 */
export function retryDelay(attempt: number, backoff: Backoff, random: number, cause: unknown): number {
  const asked = Math.min(serverAskedMs(cause) ?? 0, backoff.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
  return Math.max(backoffDelay(attempt, backoff, random), asked);
}

/** How far down a cause chain a server's ask is looked for: an HTTP error wrapped by a negotiation or a stream. */
const CAUSE_DEPTH = 4;

/**
 * The wait a failure carries from its server: a `retryAfterMs` (an `HttpStatusError` from a 429 or 503 with
 * `Retry-After`) on the cause or on one it wraps.
 */
export function serverAskedMs(cause: unknown): number | undefined {
  let current = cause;
  for (let depth = 0; depth < CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const asked = (current as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof asked === 'number' && Number.isFinite(asked) && asked >= 0) return asked;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The HTTP `Retry-After` header (RFC 9110 §10.2.3) of a 429 or 503 answer: how
 * long the server asked its clients to stay away. Either a number of seconds
 * or an HTTP-date; anything else (a negative or fractional number, a date
 * that does not parse) is no ask at all, and a date already past asks for no
 * wait. How long a client actually honors it is the backoff's rule
 * (machines/backoff.ts), not this parser's.
 */

/** The statuses whose `Retry-After` says when to come back (a 3xx's would say when to follow a redirect). */
const RETRY_STATUSES = new Set([429, 503]);

/** Milliseconds the server asked for, from `value` read at `nowMs`; undefined when it asked for nothing readable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), Number.MAX_SAFE_INTEGER / 1000) * 1000;
  const at = httpDate(text);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

/**
 * The three forms of an HTTP-date a recipient must take (RFC 9110 §5.6.7), checked before Date.parse, which alone
 * would take "5" or "2027" as dates; asctime's has no zone and means GMT, where Date.parse would read local time.
 */
function httpDate(text: string): number | undefined {
  let stamp = text;
  if (/^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$/.test(text)) stamp = `${text} GMT`;
  else if (!/^[A-Za-z]{3,9}, \d\d[ -][A-Za-z]{3}[ -]\d{2,4} \d\d:\d\d:\d\d GMT$/.test(text)) return undefined;
  const at = Date.parse(stamp);
  return Number.isNaN(at) ? undefined : at;
}

/** The wait `response` asks for, when it is a 429 or 503 with a readable `Retry-After`. */
export function retryAfterOf(response: Pick<Response, 'status' | 'headers'>, nowMs: number = Date.now()): number | undefined {
  return RETRY_STATUSES.has(response.status) ? parseRetryAfter(response.headers.get('retry-after'), nowMs) : undefined;
}

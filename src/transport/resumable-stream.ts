/**
 * Follows one legacy-era SSE stream (a POST's response stream or the GET
 * stream) across disconnects, as the 2025-11-25 transport page's
 * "Resumability and Redelivery" asks: when the stream ends or breaks after
 * the server gave it an event id, wait the server's `retry` interval, then
 * reopen it with a GET carrying `Last-Event-ID`; the SseCursor drops what a
 * replay repeats. Bounded: a run of failed reopen attempts longer than
 * `maxAttempts`, or one lasting past `maxWaitMs`, gives up; so does a stream
 * without an event id (nothing to resume from) and a reopen the server
 * refuses with a 4xx other than 429 (the session is gone, or it offers no
 * resumption). A reopen refused with a 429 or 503 is a failed attempt, and
 * the next waits at least the `Retry-After` it carried.
 * The server's `retry` is kept to the millisecond (SEP-1699 says the client
 * MUST wait it, and the conformance suite holds it to that), except after a
 * reopened stream that ended without a message: then at least
 * EMPTY_REOPEN_FLOOR_MS. A server that answers every reopen and ends it at
 * once would otherwise be polled without pause: with `retry: 0`, hundreds of
 * GETs a second, since every reopen it answers starts a fresh run.
 */
import { HttpStatusError, McpActorsError } from '../protocol/errors.ts';
import type { SseCursor } from './sse-cursor.ts';

/** How hard a client tries to resume a broken legacy SSE stream. */
export interface ResumeOptions {
  /** Reopen attempts in a row before giving up (default 5). 0 disables resumption. */
  maxAttempts?: number;
  /** Longest time from losing a stream to giving up on it, waits included (default 60,000 ms). */
  maxWaitMs?: number;
  /** The wait before a reopen when the server sent no `retry` field (default 1,000 ms). */
  defaultRetryMs?: number;
}

/** The `resume` bounds where `httpTransport` is given none. */
export const RESUME_DEFAULTS: Required<ResumeOptions> = { maxAttempts: 5, maxWaitMs: 60_000, defaultRetryMs: 1_000 };

/** The shortest wait before reopening a stream that was itself a reopen and ended without a message: 4 GETs a second. */
export const EMPTY_REOPEN_FLOOR_MS = 250;

/** Reads and reopens one stream; the transport binds it to its fetch, headers and frame delivery. */
export interface StreamIo {
  /** Reads a body to its end; 'stopped' when the consumer has all it wanted. Rejects when the body breaks. */
  read(body: ReadableStream<Uint8Array>): Promise<'stopped' | 'ended'>;
  /** GET with `Last-Event-ID: lastEventId`. */
  reopen(lastEventId: string): Promise<Response>;
}

/** How following a stream ended: the consumer stopped (or it was aborted), or the stream is lost. */
export type FollowEnd = { type: 'stopped' } | { type: 'lost'; cause: unknown };

/**
 * A stream broke after an event id that no `Last-Event-ID` header can carry (HTTP header values are bytes: a
 * character above U+00FF, say), so it cannot be resumed; it ends as any stream that cannot be resumed does.
 */
export class UnsendableEventIdError extends McpActorsError {
  override readonly name = 'UnsendableEventIdError';
  readonly code = 'unsendable_event_id';
  constructor(/** The id the server gave its last event. */ readonly eventId: string, options?: { cause?: unknown }) {
    super(`the stream broke after event id ${JSON.stringify(eventId)}, which no Last-Event-ID header can carry: it cannot be resumed`, options);
  }
}

/** The media type `response` says it is, lower case, without parameters. */
export const mediaType = (response: Response): string | undefined =>
  response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();

/** Whether `response` says it is `text/event-stream`. */
export const isEventStream = (response: Response): boolean => mediaType(response) === 'text/event-stream';

/** Waits `ms`, or less when `signal` aborts; resolves whether the wait ran out (false: aborted). */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Reads `first`, then resumes the stream each time it ends or breaks, until stopped, aborted or lost. */
export async function followStream(
  first: ReadableStream<Uint8Array>,
  cursor: SseCursor,
  io: StreamIo,
  signal: AbortSignal,
  options: ResumeOptions = {},
): Promise<FollowEnd> {
  const { maxAttempts, maxWaitMs, defaultRetryMs } = { ...RESUME_DEFAULTS, ...options };
  let body = first;
  for (;;) {
    let cause: unknown = new Error('the server ended the stream');
    const messagesBefore = cursor.messages;
    try {
      if ((await io.read(body)) === 'stopped') return { type: 'stopped' };
    } catch (error) {
      cause = error;
    }
    if (signal.aborted) return { type: 'stopped' };
    const lastEventId = cursor.lastEventId;
    if (lastEventId === undefined) return { type: 'lost', cause };
    // Not a header value (a character above U+00FF): no reopen could carry it, so none is tried.
    if (/[^\x00-\xff]|[\0\r\n]/.test(lastEventId)) return { type: 'lost', cause: new UnsendableEventIdError(lastEventId, { cause }) };
    const lostAt = Date.now();
    const floorMs = body !== first && cursor.messages === messagesBefore ? EMPTY_REOPEN_FLOOR_MS : 0;
    let reopened: ReadableStream<Uint8Array> | undefined;
    // A refused reopen's Retry-After: the next one waits at least that (or gives up, if that is past the bounds).
    let askedMs = 0;
    for (let attempt = 1; reopened === undefined; attempt++) {
      const waitMs = Math.max(cursor.retryMs ?? defaultRetryMs, floorMs, askedMs);
      if (attempt > maxAttempts || Date.now() - lostAt + waitMs > maxWaitMs) return { type: 'lost', cause };
      if (!(await pause(waitMs, signal))) return { type: 'stopped' };
      let response: Response;
      try {
        response = await io.reopen(lastEventId);
      } catch (error) {
        if (signal.aborted) return { type: 'stopped' };
        cause = error;
        continue;
      }
      if (response.ok && response.body !== null && isEventStream(response)) {
        reopened = response.body;
        break;
      }
      await response.body?.cancel().catch(() => undefined);
      const refusal = HttpStatusError.of(response);
      cause = refusal;
      askedMs = refusal.retryAfterMs ?? 0;
      // A 4xx is the server's answer, not a network hiccup: the session is gone or it resumes nothing. Except a
      // 429, which only asks for time, as a 503 does.
      if (response.status >= 400 && response.status < 500 && response.status !== 429) return { type: 'lost', cause };
    }
    body = reopened;
  }
}

/**
 * Where a client is in one resumable SSE stream (legacy era, 2025-11-25
 * "Resumability and Redelivery"): the last event id seen, which a reconnect
 * sends as `Last-Event-ID`, and the server's `retry` interval, which the
 * client waits before reconnecting. Event ids are unique within a session,
 * so an id seen before on this stream is a duplicate from a replay and is
 * skipped; the memory of seen ids is bounded (the most recent ones).
 */

/** How many recent event ids a cursor remembers for duplicate detection. */
const REMEMBERED_IDS = 1_024;

export class SseCursor {
  /** The id of the last event read; undefined until the server sent one (the stream is not resumable then). */
  lastEventId: string | undefined;
  /** The server's latest `retry` field in milliseconds; undefined until it sent one. */
  retryMs: number | undefined;
  /** Messages read on this stream so far, across reopens: not priming events (no data), not replayed duplicates. */
  messages = 0;
  private readonly seen = new Set<string>();

  /** Records an event id; false when the id was seen before (a duplicate to drop). */
  advance(id: string): boolean {
    if (id === '') {
      // An empty id field resets the last event id (SSE): nothing to resume from.
      this.lastEventId = undefined;
      return true;
    }
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > REMEMBERED_IDS) this.seen.delete(this.seen.values().next().value as string);
    this.lastEventId = id;
    return true;
  }

  retry(ms: number): void {
    this.retryMs = ms;
  }
}

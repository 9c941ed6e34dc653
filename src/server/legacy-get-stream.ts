/**
 * A legacy session's GET stream: the SSE stream a legacy client opens with GET for unsolicited messages (list
 * changes, resource updates) and its batched requests' asks. Kept apart from the session's lifecycle and routing
 * (http-legacy.ts) because it is a concept of its own: one outbox, one replay buffer, at most one connection.
 *
 * The stream is resumable: its events carry ids, it opens with one (and the `retry` interval) before any message,
 * and a GET with `Last-Event-ID` replays what the session's replay buffer kept after that id, or, past the buffer,
 * tells the session's client that everything may have changed.
 *
 * What waits unread on it is bounded as on any answer stream: a client that stops reading it while more than
 * `maxQueuedBytes` of the messages pushed to it directly wait (its batched requests' asks; change events count in
 * the session's lane) is reported to the stream's owner (`overflowed`), which ends the session.
 */
import type { HttpResponse } from './http-exchange.ts';
import { InvalidRequestError } from './errors.ts';
import { keepAlive, openSse, sendJson, ssePrimingFrame, sseRetryFrame } from './http-io.ts';
import type { LegacySession } from './legacy-session.ts';
import type { ServerLimits } from './limits.ts';
import { Outbox, type QueueOverflow } from './outbox.ts';
import { errorFrame } from './outcome.ts';
import { ReplayBuffer } from './replay-buffer.ts';
import { replayBoundsOf } from './session-post-streams.ts';
import { settledWithin } from './settled-within.ts';

/** One legacy session's GET stream: its outbox, its replay buffer and the connection (if any) that reads them. */
export class SessionGetStream {
  /**
   * Unsolicited messages; parked (queued, bounded by the session's lane) while no GET stream is open. What is pushed
   * to it directly (batched requests' asks) is bounded by `maxQueuedBytes` (`overflowed`).
   */
  readonly #outbox: Outbox;
  /** What the stream wrote lately, for a reconnect with `Last-Event-ID`. */
  readonly #replay: ReplayBuffer;
  /** The connection reading the stream now. */
  #res: HttpResponse | undefined;

  /** Attaches the stream's outbox to `session`; `overflowed` is told when its client leaves too much unread. */
  constructor(
    private readonly session: LegacySession,
    private readonly limits: ServerLimits,
    private readonly keepAliveMs: number,
    overflowed: (overflow: QueueOverflow) => void,
  ) {
    const replay = new ReplayBuffer(replayBoundsOf(limits));
    const bound = { maxBytes: limits.maxQueuedBytes, overflowed };
    this.#replay = replay;
    this.#outbox = new Outbox(undefined, (json) => replay.frame(json), limits.outboxHighWater, { bound });
    session.attach(this.#outbox);
  }

  /**
   * A batched request's ask to the client: false at once (rather than after the whole `clientRequestTimeoutMs`)
   * when no connection reads the stream, or when the ask took what waits unread past `maxQueuedBytes`.
   */
  ask(json: string): boolean {
    if (!this.#res) return false;
    this.#outbox.push(json);
    return this.#outbox.accepts;
  }

  /**
   * A GET (`lastEventId`: the header, if it names none of the session's POST streams) takes the stream: fresh, or
   * resumed after that id. A second GET without one is refused 409: the stream has a reader already.
   */
  open(res: HttpResponse, lastEventId: string | undefined): void {
    if (this.#res) {
      if (lastEventId === undefined) {
        const error = new InvalidRequestError('Conflict: this session already has a GET stream');
        return sendJson(res, 409, errorFrame(null, error));
      }
      // A resume: the client has given up on the old stream, whether or not its socket told us yet.
      this.#res.end();
    }
    this.#res = res;
    this.session.hold();
    res.once('close', () => this.session.release());
    openSse(res, { 'mcp-session-id': this.session.id });
    const missed = lastEventId === undefined ? undefined : this.#replay.since(lastEventId);
    // A fresh stream, or a gap: the client's cursor starts at the last id written; everything after it comes.
    if (missed === undefined) res.write(ssePrimingFrame(this.#replay.lastId, this.limits.sseRetryMs));
    else res.write(`${sseRetryFrame(this.limits.sseRetryMs)}${missed}`);
    // The stream takes writes before a gap's resync queues anything: its frames go out as it drains, never parked.
    this.#outbox.retarget(res);
    if (missed === undefined && lastEventId !== undefined) this.session.resync();
    keepAlive(res, this.#outbox, this.keepAliveMs);
    res.on('close', () => {
      if (this.#res !== res) return;
      this.#res = undefined;
      this.#outbox.retarget(undefined);
    });
  }

  /** The session ended: nothing more is queued, and a connection still open is ended with when to come back. */
  close(): void {
    this.#outbox.close();
    const stream = this.#res;
    if (!stream) return;
    // Closing on purpose: say when to come back (the session is gone, so the client then starts a new one).
    const closed = new Promise<void>((resolve) => stream.once('close', resolve));
    stream.end(sseRetryFrame(this.limits.sseRetryMs));
    // A client that does not read the end (nor close) would hold the socket and what it buffers: cut then.
    void settledWithin(closed, this.limits.finishTimeoutMs).then((ended) => {
      if (!ended) stream.destroy();
    });
  }
}

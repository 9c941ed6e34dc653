/**
 * One legacy POST's response (2025-11-25, "Resumability and Redelivery"):
 * plain JSON when the handler sends nothing before its response and answers
 * within `keepAliveMs`, otherwise a resumable SSE stream, with a comment
 * whenever it was idle that long. That stream opens with a priming event (an id and the
 * `retry` interval, no data), and every message on it gets an id naming the
 * stream (`p<n>-<k>`), kept in the stream's own replay buffer. When the POST's
 * socket dies before the response was written, the stream is parked: later
 * messages (progress, the response) wait in its outbox (bounded by its
 * high-water mark, which holds the handler back) until a GET with
 * `Last-Event-ID: p<n>-<k>` resumes it, which gets what followed k, then the
 * rest, then the stream ends (`retry` first, as on any end on purpose). A
 * resuming connection that dies parks the stream again, the same way. A
 * stream whose client lets more than `maxQueuedBytes` wait unread (parked or
 * not) drops what waits and ends with SlowConsumerError as its answer.
 */
import type { RequestId } from '../protocol/jsonrpc.ts';
import { SlowConsumerError } from './errors.ts';
import type { HttpResponse } from './http-exchange.ts';
import { keepAlive, openSse, sendJson, ssePrimingFrame, sseRetryFrame, unrefTimeout } from './http-io.ts';
import { errorFrame } from './outcome.ts';
import { Outbox, type QueueOverflow } from './outbox.ts';
import { ReplayBuffer, type ReplayBounds } from './replay-buffer.ts';
import { settledWithin } from './settled-within.ts';
import type { ReplyChannel } from './request-context.ts';

/** What a POST response stream needs from its session. */
export interface PostStreamOptions {
  /** The stream's name within its session (`p<n>`); its event ids are `p<n>-<k>`. */
  name: string;
  /** The request it answers. */
  requestId: RequestId;
  bounds: ReplayBounds;
  highWater: number;
  /** Bytes that may wait unread (`maxQueuedBytes`). */
  maxQueuedBytes: number;
  /** How long a client that reads nothing has, once the stream gave up on it, before its connection is cut (parking the stream). */
  finishTimeoutMs: number;
  /** The stream gave up on its client (SlowConsumerError is its answer): its handler should stop. */
  onShed: (error: SlowConsumerError) => void;
  retryMs: number;
  /** Response headers (the session id). */
  headers: Record<string, string>;
  /** A response that takes longer becomes a stream, with a comment whenever it was idle that long; 0: never. */
  keepAliveMs: number;
  /** The stream lost its connection (the POST's own, or a resuming GET's) before it ended: it waits for a resume. */
  onParked?: () => void;
}

/** How a `Last-Event-ID` resume of a POST stream went. */
export type PostResume = 'resumed' | 'gap';

/** A legacy POST's reply channel: plain JSON, or a resumable SSE stream once something precedes the response. */
export class PostStream implements ReplyChannel {
  private readonly replay: ReplayBuffer;
  private outbox: Outbox | undefined;
  private target: HttpResponse;
  /** The POST's own response. */
  private readonly first: HttpResponse;
  /** The response was handed to the outbox. */
  private answered = false;
  /** The stream gave up on a client that did not read: SlowConsumerError answered its request. */
  #shed = false;
  /** When a response not yet started turns into a stream (keepAliveMs). */
  private readonly streamDue: ReturnType<typeof setTimeout> | undefined;

  constructor(res: HttpResponse, private readonly options: PostStreamOptions) {
    this.replay = new ReplayBuffer(options.bounds, Date.now, `${options.name}-`);
    this.target = res;
    this.first = res;
    this.watch(res);
    // A proxy's idle timeout would cut a response that sent nothing, headers included, for that long.
    this.streamDue = options.keepAliveMs > 0 ? unrefTimeout(() => this.attached && this.stream(), options.keepAliveMs) : undefined;
  }

  /** Whether the response became an SSE stream, which a client can resume after losing it. */
  get resumable(): boolean {
    return this.outbox !== undefined;
  }

  /** Whether SlowConsumerError answered the request (the stream ends once it is written, or a resume takes it). */
  get shed(): boolean {
    return this.#shed;
  }

  /** Whether the stream currently has a live connection to write to. */
  get attached(): boolean {
    return !this.target.destroyed && !this.target.writableEnded;
  }

  notify(json: string): Promise<void> {
    if (this.answered) return Promise.resolve();
    if (!this.outbox && !this.attached) return Promise.resolve();
    const outbox = this.stream();
    outbox.push(json);
    return outbox.room();
  }

  /** The stream, opened on the POST's own response (a priming event first) if it is not yet. */
  private stream(): Outbox {
    if (this.outbox) return this.outbox;
    openSse(this.target, this.options.headers);
    this.target.write(ssePrimingFrame(this.replay.lastId, this.options.retryMs));
    this.outbox = new Outbox(this.target, (frame) => this.replay.frame(frame), this.options.highWater, {
      bound: { maxBytes: this.options.maxQueuedBytes, overflowed: (overflow) => this.overflowed(overflow) },
    });
    keepAlive(this.target, this.outbox, this.options.keepAliveMs);
    return this.outbox;
  }

  /** The client let too much wait: what waited gives way to the error, which answers the request. */
  private overflowed(overflow: QueueOverflow): void {
    const outbox = this.outbox!;
    const error = new SlowConsumerError(overflow.maxQueuedBytes);
    this.answered = true;
    this.#shed = true;
    outbox.close(errorFrame(this.options.requestId, error));
    this.options.onShed(error);
    void settledWithin(outbox.flushed(), this.options.finishTimeoutMs).then((flushed) => {
      if (flushed) return this.endTarget();
      // Still not reading: the connection is cut, which parks the stream; a resume gets the error and the end.
      if (this.attached) this.target.destroy();
      void outbox.flushed().then(() => this.endTarget());
    });
  }

  /**
   * Writes the final response (status applies only when no stream was
   * started), waits until it was handed to a connection (a parked stream:
   * until a resume, or `abandon`), and ends that connection.
   */
  async finish(json: string, status: number): Promise<void> {
    clearTimeout(this.streamDue);
    if (!this.outbox) {
      if (this.attached) sendJson(this.target, status, json, this.options.headers);
      return;
    }
    this.answered = true;
    this.outbox.push(json);
    await this.outbox.flushed();
    this.endTarget();
  }

  /** A GET with `Last-Event-ID` (one of this stream's ids) takes the stream over. */
  resume(res: HttpResponse, lastEventId: string): PostResume {
    const missed = this.replay.since(lastEventId);
    if (missed === undefined || !this.outbox) return 'gap';
    const old = this.target;
    openSse(res, this.options.headers);
    res.write(`${sseRetryFrame(this.options.retryMs)}${missed}`);
    this.target = res;
    this.watch(res);
    keepAlive(res, this.outbox, this.options.keepAliveMs);
    // The client has given up on the old connection, whether or not its socket told us yet.
    if (!old.writableEnded) old.end();
    if (this.answered && this.outbox.idle) this.endTarget();
    else this.outbox.retarget(res);
    return 'resumed';
  }

  /** Ends the stream for good (cancelled, expired, session gone): drops what waits, releases waiters. */
  abandon(): void {
    clearTimeout(this.streamDue);
    this.outbox?.close();
    this.endTarget();
  }

  private watch(res: HttpResponse): void {
    res.once('close', () => {
      if (this.target !== res || res.writableFinished) return;
      if (!this.outbox) return;
      // Park: what is sent from now on waits for a resume.
      this.outbox.retarget(undefined);
      this.options.onParked?.();
    });
  }

  private endTarget(): void {
    if (!this.attached) return;
    // The POST's own connection ends as any response does; a resuming GET says when to come back.
    if (this.target !== this.first) return void this.target.end(sseRetryFrame(this.options.retryMs));
    // Abandoned before anything was sent (cancelled, session ended): a request's POST is still answered with a
    // stream or JSON, never a bare 200; an SSE stream that ends without the response, as the cancel asked.
    if (!this.target.headersSent) openSse(this.target, this.options.headers);
    this.target.end();
  }
}

/**
 * A legacy session's POST response streams (post-stream.ts), by name (`p<n>`): each request's answer, which a
 * client that lost the connection may resume with a GET carrying one of the stream's event ids. A stream that went
 * SSE is kept after its answer, and while no connection holds it, for `replayAgeMs`; then it is dropped. A plain
 * JSON answer cannot be resumed and is forgotten once written.
 */
import type { RequestId } from '../protocol/jsonrpc.ts';
import { InvalidRequestError, LimitExceededError } from './errors.ts';
import type { HttpResponse } from './http-exchange.ts';
import { openSse, sendJson, sseFrame, sseRetryFrame } from './http-io.ts';
import type { ServerLimits } from './limits.ts';
import { errorFrame } from './outcome.ts';
import { PostStream } from './post-stream.ts';
import type { ReplayBounds } from './replay-buffer.ts';

/** One POST's answer stream, as its session keeps it. */
export interface SessionPost {
  readonly name: string;
  readonly stream: PostStream;
  readonly requestId: RequestId;
  /** Aborts the request's handler when the stream is dropped. */
  readonly controller: AbortController;
  /** Ends the stream once it has gone `replayAgeMs` without a connection. */
  expiry: ReturnType<typeof setTimeout> | undefined;
}

/** What a session's replay buffers keep (the limits `replayEvents`, `replayBytes`, `replayAgeMs`). */
export const replayBoundsOf = (limits: ServerLimits): ReplayBounds => ({
  maxEvents: limits.replayEvents,
  maxBytes: limits.replayBytes,
  maxAgeMs: limits.replayAgeMs,
});

export class SessionPostStreams {
  readonly #posts = new Map<string, SessionPost>();
  /** POSTs answered so far: names the next stream. */
  #count = 0;

  constructor(
    private readonly sessionId: string,
    private readonly limits: ServerLimits,
    private readonly keepAliveMs: number,
  ) {}

  /** A new stream on `res` for the answer to `requestId`, whose handler `controller` aborts. */
  open(res: HttpResponse, requestId: RequestId, controller: AbortController): SessionPost {
    const name = `p${++this.#count}`;
    // Any connection of the stream may die (the POST's own, a resuming GET's): each loss starts the same wait.
    const onParked = () => this.#expireLater(post);
    const stream = new PostStream(res, {
      name,
      requestId,
      bounds: replayBoundsOf(this.limits),
      highWater: this.limits.outboxHighWater,
      maxQueuedBytes: this.limits.maxQueuedBytes,
      finishTimeoutMs: this.limits.finishTimeoutMs,
      onShed: (error) => controller.abort(error),
      retryMs: this.limits.sseRetryMs,
      headers: { 'mcp-session-id': this.sessionId },
      keepAliveMs: this.keepAliveMs,
      onParked,
    });
    const post: SessionPost = { name, stream, requestId, controller, expiry: undefined };
    this.#posts.set(name, post);
    return post;
  }

  /** The answer was written (perhaps into a connection that was already dead): a stream stays resumable a while. */
  answered(post: SessionPost): void {
    if (post.stream.resumable) this.#expireLater(post);
    else this.forget(post);
  }

  /** Ends a stream once it has spent `replayAgeMs` without a connection (restarted while one is attached). */
  #expireLater(post: SessionPost): void {
    clearTimeout(post.expiry);
    post.expiry = setTimeout(() => {
      if (post.stream.attached) this.#expireLater(post);
      else this.drop(post);
    }, this.limits.replayAgeMs);
    post.expiry.unref();
  }

  /** Gives up on a stream: its handler is aborted, its connection ended. */
  drop(post: SessionPost): void {
    clearTimeout(post.expiry);
    post.controller.abort();
    post.stream.abandon();
    this.forget(post);
  }

  /** Drops every stream (the session ended). */
  dropAll(): void {
    for (const post of [...this.#posts.values()]) this.drop(post);
  }

  /**
   * A GET with a POST stream's `Last-Event-ID`: that stream continues on it.
   * A stream this session does not know (never, or no longer: finished and
   * expired) is a 400, since nothing can be resumed; a known stream whose
   * replay buffer lost what followed the id is ended with an error response
   * to its request, so the client stops waiting for it.
   */
  resume(res: HttpResponse, lastEventId: string): void {
    const dash = lastEventId.indexOf('-');
    const post = dash > 0 ? this.#posts.get(lastEventId.slice(0, dash)) : undefined;
    if (!post) {
      const error = new InvalidRequestError(`Bad Request: Last-Event-ID ${lastEventId} names no stream of this session that can be resumed`);
      return sendJson(res, 400, errorFrame(null, error));
    }
    if (post.stream.resume(res, lastEventId) === 'resumed') return;
    this.drop(post);
    const { replayEvents, sseRetryMs } = this.limits;
    openSse(res, { 'mcp-session-id': this.sessionId });
    res.end(`${sseRetryFrame(sseRetryMs).slice(0, -1)}${sseFrame(errorFrame(post.requestId, new LimitExceededError('replayEvents', replayEvents, 200)))}`);
  }

  private forget(post: SessionPost): void {
    if (this.#posts.get(post.name) === post) this.#posts.delete(post.name);
  }
}

/**
 * Serves one stdio connection (newline-delimited JSON-RPC) in both eras at
 * once, as the 2026-07-28 versioning page allows a dual-era server to: each
 * request selects its era the way an opening request does (`initialize` →
 * legacy, scoped to the one session of this process; `server/discover` or the
 * modern `_meta` envelope → modern, served statelessly). A request that
 * selects neither is the legacy session's once there is one, else the modern
 * era's once the connection used it (which asks for the envelope), else
 * refused as sent before initialize. Output goes through one drain-aware outbox
 * that writes answers ahead of queued notifications; input keeps being read
 * while notifications wait, and is held back (input-gate.ts) only while the
 * outbox is backed up with answers, so a client that does not read cannot make
 * the server buffer without bound; one whose unread answers and notifications
 * pass `maxQueuedBytes` anyway (its requests' running handlers keep answering)
 * is disconnected, with a line on stderr. In a legacy session of a revision that has
 * JSON-RPC batches, a batch line is read as its messages and answered with
 * one array line (batch-reply.ts).
 */
import type { Readable, Writable } from 'node:stream';
import type { Era } from '../../machines/era.ts';
import type { SlowConsumer } from '../../machines/listen-stream.machine.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import { idAtEnds, parseFrame, parseMessage, type ClassifiedFrame, type JsonRpcNotification, type JsonRpcRequest, type RequestId } from '../protocol/jsonrpc.ts';
import { acceptsBatches } from '../protocol/versions.ts';
import { BatchReply, type AnswerSink } from './batch-reply.ts';
import type { ServerCore } from './core.ts';
import { eraOfOpening } from './envelope.ts';
import { idInUseError, LimitExceededError, NotInitializedError, ParseFailure, type WireError } from './errors.ts';
import type { LegacySession } from './legacy-session.ts';
import { routeLegacy } from './legacy-router.ts';
import { LineSplitter } from '../transport/line-splitter.ts';
import { InputGate } from './input-gate.ts';
import type { ListenStream, StreamTransport } from './listen-stream.ts';
import { routeListen, routeModern } from './modern-router.ts';
import { errorFrame, refusalFrame, resultFrame, type Outcome } from './outcome.ts';
import { Outbox, type QueueOverflow } from './outbox.ts';
import type { ReplyChannel } from './request-context.ts';
import { requestKey } from './json-values.ts';
import { settledWithin } from './settled-within.ts';

/**
 * Small slices, one at a time: what the pipe will not take waits in the
 * outbox, where an answer overtakes it, not in stdout's buffer.
 */
const STDIO_PACING = { sliceChars: 4 * 1024 };

/** Options of `serveStdio`: the streams to serve on. */
export interface StdioOptions {
  /** Where requests come from (default: `process.stdin`). */
  stdin?: Readable;
  /** Where answers and notifications go (default: `process.stdout`). */
  stdout?: Writable;
}

/** Why a stdio connection ended. */
export type StdioClosedReason =
  /** The client closed its end of the input (or the input stream closed). */
  | { type: 'input_ended' }
  /** Reading the input failed. */
  | { type: 'input_failed'; cause: unknown }
  /** Writing to the output failed: the client is gone. */
  | { type: 'output_failed'; cause: unknown }
  /** `close()` (or the server's `close()`). */
  | { type: 'local' }
  /** The client did not read: its legacy session's change events (`SlowConsumer`) or its answers and notifications (`QueueOverflow`, `maxQueuedBytes`) piled up. */
  | SlowConsumer
  | QueueOverflow;

/** One connection served over stdio: when it ended and why, and how to end it. */
export interface StdioConnectionHandle {
  /**
   * Resolves when the input ended or the connection was closed, once the answers already queued were handed to the
   * output (a client that reads nothing gets `finishTimeoutMs`), so a process that exits then loses none of them.
   */
  readonly closed: Promise<void>;
  /** Why the connection ended, once it has (undefined while it is open). */
  readonly closedReason: StdioClosedReason | undefined;
  /** Ends the connection: its listen streams complete and its session ends. */
  close(): Promise<void>;
  /** `close()`, for `await using connection = server.serveStdio(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

export class StdioConnection implements StdioConnectionHandle {
  readonly closed: Promise<void>;
  #closedReason: StdioClosedReason | undefined;
  /** The legacy era's one session, opened by `initialize`. */
  private session: LegacySession | undefined;
  /** Whether a request here selected the modern era. */
  private servedModern = false;
  private readonly outbox: Outbox;
  private readonly inflight = new Map<string, AbortController>();
  private readonly streams = new Map<string, ListenStream>();
  /** One for all of this connection's streams: an ended stream leaves the table. */
  private readonly streamOwner: StreamTransport = { kind: 'stdio', streamEnded: (stream) => this.streams.delete(requestKey(stream.id)) };
  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private resolveClosed!: () => void;
  private readonly onInputClosed = () => this.shutDown({ type: 'input_ended' });
  private readonly onInputError = (cause: unknown) => this.shutDown({ type: 'input_failed', cause });
  /**
   * The input ended: a last line without a newline is still a message (the spec delimits messages by newlines; EOF
   * delimits the last one, as our client transport reads it), answered or refused like any other line. Input held
   * back meanwhile is dropped with the connection, so the splitter's partial line is complete only when none is held.
   */
  private readonly onInputEnd = () => {
    if (!this.input.holdsInput) this.reader.end();
    this.shutDown({ type: 'input_ended' });
  };
  /** The client stopped reading for good: nothing queued can be written any more. */
  private readonly onOutputError = (cause: unknown) => {
    this.outbox.close();
    this.shutDown({ type: 'output_failed', cause });
  };
  private readonly reader: LineSplitter;
  private readonly input: InputGate;

  constructor(private readonly core: ServerCore, options: StdioOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.outbox = new Outbox(this.stdout, (json) => `${json}\n`, core.limits.outboxHighWater, {
      onPressure: (high) => {
        if (high) this.input.hold();
        else this.input.release();
      },
      pacing: STDIO_PACING,
      bound: { maxBytes: core.limits.maxQueuedBytes, overflowed: (overflow) => this.onOverflow(overflow) },
    });
    // Lines are split as the client transports split them (line-splitter.ts): bytes, a long line never held whole.
    this.reader = new LineSplitter(core.limits.maxBodyBytes, {
      line: (text) => this.onLine(text),
      oversized: (head, tail, limit) => this.onOversized(head, tail, limit),
    });
    this.input = new InputGate(this.stdin, core.limits.maxBodyBytes, (chunk) => this.reader.push(chunk));
    this.stdin.on('end', this.onInputEnd);
    this.stdin.on('close', this.onInputClosed);
    this.stdin.on('error', this.onInputError);
    this.stdout.on('error', this.onOutputError);
  }

  /**
   * Completes this connection's listen streams (each flushed, or cut by the
   * listen-stream machine's finish timeout), writes out the answers already
   * queued (the last ones of a server draining its requests; a client that
   * reads nothing gets `finishTimeoutMs`), then stops reading.
   */
  async close(): Promise<void> {
    await Promise.all([...this.streams.values()].map((stream) => stream.complete()));
    await settledWithin(this.outbox.flushed(), this.core.limits.finishTimeoutMs);
    this.shutDown({ type: 'local' });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  get closedReason(): StdioClosedReason | undefined {
    return this.#closedReason;
  }

  /** Shut down: nothing more is read, answered or written but what was queued. */
  private get ended(): boolean {
    return this.#closedReason !== undefined;
  }

  /**
   * More than `maxQueuedBytes` waited unread: nothing can tell a client that does not read, so the connection ends
   * (its client sees the output end once it reads on) and stderr, the transport's log, says why.
   */
  private onOverflow(overflow: QueueOverflow): void {
    this.outbox.close();
    console.error(
      `mcp-actors server ${this.core.info.name}: stdio connection ended: the client did not read while more than ${overflow.maxQueuedBytes} bytes of answers and notifications waited (maxQueuedBytes)`,
    );
    this.shutDown(overflow);
  }

  /** A line over `maxBodyBytes`, dropped: answered under the request's id when an end names one, so its client fails it at once. */
  private onOversized(head: string, tail: string, limit: number): void {
    if (this.ended) return;
    const id = idAtEnds(head, tail) ?? null;
    this.outbox.answer(errorFrame(id, new ParseFailure(`Parse error: a frame exceeds the ${limit} limit (maxBodyBytes)`)));
  }

  private onLine(text: string): void {
    if (this.ended) return; // the rest of a chunk read before the connection closed
    if (text.trim() === '') return;
    const maxBytes = this.core.limits.maxBodyBytes;
    // Only a session of a revision that has batches reads one; elsewhere an array is refused as one invalid frame.
    const message = acceptsBatches(this.session?.protocolVersion) ? parseMessage(text, maxBytes) : { kind: 'single' as const, frame: parseFrame(text, maxBytes) };
    if (message.kind === 'single') return this.onFrame(message.frame, this.outbox);
    const batch = new BatchReply((json, after) => json !== undefined && this.outbox.answer(json, after));
    for (const frame of message.frames) this.onFrame(frame, batch);
    batch.seal();
  }

  /** One message, answered into `sink`: the outbox, or the batch it came in (which tracks its requests). */
  private onFrame(frame: ClassifiedFrame, sink: AnswerSink): void {
    switch (frame.kind) {
      case 'invalid':
        sink.answer(refusalFrame(frame.error));
        return;
      case 'notification':
        this.onNotification(frame.message);
        return;
      case 'request': {
        // Served whatever the sink (an optional call would skip its argument).
        const served = this.onRequest(frame.message, sink);
        sink.track?.(served);
        return;
      }
      case 'response':
        // Answers to what handlers asked the legacy client; anything else is late or stray and dropped.
        this.session?.clientRequests.settle(frame.message);
        return;
    }
  }

  private onNotification(message: JsonRpcNotification): void {
    if (message.method === 'notifications/initialized') {
      this.session?.initialized();
      return;
    }
    if (message.method === 'notifications/cancelled') {
      const id = message.params?.requestId;
      if (typeof id !== 'string' && typeof id !== 'number') return;
      const key = requestKey(id);
      const stream = this.streams.get(key);
      if (stream) stream.cancel();
      else this.inflight.get(key)?.abort(message.params?.reason);
    }
  }

  private async onRequest(request: JsonRpcRequest, sink: AnswerSink): Promise<void> {
    // Everything up to the first await runs before the next frame is read.
    const key = requestKey(request.id);
    if (this.inflight.has(key) || this.streams.has(key)) {
      sink.answer(errorFrame(request.id, idInUseError(request.id)));
      return;
    }
    const era = this.eraOf(request);
    if (era === undefined) {
      // The legacy spec lets either side ping at any time, before initialize too.
      if (request.method === 'ping') sink.answer(resultFrame(request.id, {}));
      else sink.answer(errorFrame(request.id, new NotInitializedError(request.method)));
      return;
    }
    if (era === 'modern' && request.method === 'subscriptions/listen') {
      const outcome = routeListen(this.core, request);
      if (outcome.kind === 'listen') this.openStream(request.id, key, outcome.honored);
      else if (outcome.kind === 'error') sink.answer(errorFrame(request.id, outcome.error));
      return;
    }
    const refusal = this.core.requestRefusal(request.method, this.inflight.size);
    if (refusal) {
      sink.answer(errorFrame(request.id, refusal));
      return;
    }
    const controller = new AbortController();
    this.inflight.set(key, controller);
    await this.core.running.track(controller, this.answer(request, key, era, controller, sink));
  }

  /** Answers an admitted request. */
  private async answer(request: JsonRpcRequest, key: string, era: Era, controller: AbortController, sink: AnswerSink): Promise<void> {
    /** This request's last notification: its response may overtake any other, never its own. */
    let last = 0;
    const channel: ReplyChannel = {
      notify: (json) => {
        if (controller.signal.aborted) return Promise.resolve();
        last = this.outbox.push(json);
        return this.outbox.room();
      },
    };
    let outcome: Outcome;
    if (era === 'modern') outcome = await routeModern(this.core, request, channel, controller.signal);
    else outcome = await routeLegacy(this.core, this.session!, request, channel, controller.signal);
    this.inflight.delete(key);
    // A cancelled request gets no further messages, its response included.
    if (controller.signal.aborted || this.ended) return;
    if (outcome.kind === 'result') sink.answer(resultFrame(request.id, outcome.result), last);
    else if (outcome.kind === 'error') sink.answer(errorFrame(request.id, outcome.error), last);
  }

  private openStream(id: RequestId, key: string, honored: NotificationFilter): void {
    const max = this.core.limits.maxStreamsPerConnection;
    if (this.streams.size >= max) {
      this.outbox.answer(errorFrame(id, new LimitExceededError('maxStreamsPerConnection', max)));
      return;
    }
    try {
      const stream = this.core.openStream(id, honored, this.outbox, this.streamOwner);
      this.streams.set(key, stream);
    } catch (error) {
      this.outbox.answer(errorFrame(id, error as WireError));
    }
  }

  private eraOf(request: JsonRpcRequest): Era | undefined {
    const selected = eraOfOpening(request);
    if (selected === 'modern') this.servedModern = true;
    if (selected === 'legacy' && !this.session) {
      this.session = this.core.newSession('stdio', 'stdio', (reason) => {
        if (reason.type === 'slow_consumer') this.shutDown(reason);
      });
      this.session.hold(); // the process is the session: it never idles out
      this.session.attach(this.outbox);
    }
    if (selected) return selected;
    if (this.session) return 'legacy';
    return this.servedModern ? 'modern' : undefined;
  }

  private shutDown(reason: StdioClosedReason): void {
    if (this.ended) return;
    this.#closedReason = reason;
    this.input.stop();
    for (const controller of this.inflight.values()) controller.abort();
    for (const stream of [...this.streams.values()]) stream.transportClosed();
    this.session?.end({ type: 'transport_closed' });
    void settledWithin(this.outbox.flushed(), this.core.limits.finishTimeoutMs).then(() => this.resolveClosed());
  }
}

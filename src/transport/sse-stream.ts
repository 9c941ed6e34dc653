/**
 * Reads an HTTP response body as Server-Sent Events with `eventsource-parser`
 * (the maintained SSE parser) and hands each `data` field on as one frame.
 *
 * The parser itself buffers without limit, so a guard in front of it counts
 * the characters of the event being read; an event that grows past the frame
 * limit is skipped up to its closing blank line and reported once as an
 * `oversized` FrameError, and the events after it are read normally.
 *
 * A resumable stream (legacy era) passes an SseCursor: it learns each event
 * id and `retry` field, and events whose id it has seen are dropped, so a
 * server's replay after a reconnect is delivered once.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { FrameError, parseFrames, type ClassifiedFrame } from '../protocol/jsonrpc.ts';
import type { SseCursor } from './sse-cursor.ts';

const LF = 0x0a;
const CR = 0x0d;
/** Room for field names (`data: `, `event: `, `id: `) around a frame at the limit. */
const EVENT_OVERHEAD = 4096;

/** What a frame consumer answers: `stop` ends the read after the current chunk. */
export type FrameVerdict = 'continue' | 'stop';

/** Splits SSE text into frames, skipping events larger than the limit. */
export class SseFrameSplitter {
  private readonly parser: EventSourceParser;
  private readonly eventLimit: number;
  private eventChars = 0;
  private atLineStart = true;
  private afterCR = false;
  private skipping = false;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly onFrame: (frame: ClassifiedFrame) => void,
    cursor?: SseCursor,
    onComment?: () => void,
  ) {
    this.eventLimit = maxFrameBytes + EVENT_OVERHEAD;
    this.parser = createParser({
      onEvent: (event) => {
        if (cursor && event.id !== undefined && !cursor.advance(event.id)) return;
        // Empty data fields (resumability priming events) carry no message.
        if (event.data === '') return;
        if (cursor) cursor.messages++;
        // An event may carry a batch: every message in it is delivered, even after one that ends the read.
        for (const frame of parseFrames(event.data, this.maxFrameBytes)) this.onFrame(frame);
      },
      onRetry: (ms) => cursor?.retry(ms),
      // A comment line carries nothing but a sign of life (servers send them as keep-alives).
      onComment,
    });
  }

  push(chunk: string): void {
    let feedFrom = 0;
    let lastBoundaryEnd = 0;
    for (let i = 0; i < chunk.length; i++) {
      const code = chunk.charCodeAt(i);
      let blankLine = false;
      if (code === LF && this.afterCR) {
        this.afterCR = false;
        continue;
      }
      if (code === LF || code === CR) {
        blankLine = this.atLineStart;
        this.atLineStart = true;
        this.afterCR = code === CR;
      } else {
        this.atLineStart = false;
        this.afterCR = false;
        if (!this.skipping && ++this.eventChars > this.eventLimit) {
          // Hand over the complete events before this one, then drop its buffered start.
          this.parser.feed(chunk.slice(feedFrom, lastBoundaryEnd));
          this.parser.reset();
          this.skipping = true;
        }
        continue;
      }
      if (!blankLine) continue;
      this.eventChars = 0;
      lastBoundaryEnd = i + 1;
      if (this.skipping) {
        this.skipping = false;
        feedFrom = i + 1;
        this.reportOversized();
      }
    }
    if (!this.skipping) this.parser.feed(chunk.slice(feedFrom));
  }

  /** The body ended: an event cut off mid-way is dropped, an oversized one still reported. */
  end(): void {
    if (this.skipping) this.reportOversized();
    this.skipping = false;
    this.parser.reset();
  }

  private reportOversized(): void {
    this.onFrame({
      kind: 'invalid',
      error: new FrameError('oversized', `an SSE event exceeds the ${this.maxFrameBytes} character frame limit`),
    });
  }
}

/** What else a reader of an SSE body follows besides its frames. */
export interface SseReadOptions {
  /** The resumable stream's position (legacy era). */
  cursor?: SseCursor;
  /** Called for every comment line: a keep-alive. */
  onComment?: () => void;
  /** Aborted: the read stops and rejects with the signal's reason (the stream is judged broken). */
  signal?: AbortSignal;
}

/**
 * Reads an SSE body to its end (or until `onFrame` answers `stop`), handing
 * each frame to `onFrame`. Rejects with the read error when the stream breaks.
 */
export async function readSseFrames(
  body: ReadableStream<Uint8Array>,
  maxFrameBytes: number,
  onFrame: (frame: ClassifiedFrame) => FrameVerdict,
  { cursor, onComment, signal }: SseReadOptions = {},
): Promise<void> {
  let stop = false;
  const splitter = new SseFrameSplitter(
    maxFrameBytes,
    (frame) => {
      if (onFrame(frame) === 'stop') stop = true;
    },
    cursor,
    onComment,
  );
  const decoder = new TextDecoder();
  const reader = body.getReader();
  // Cancelling ends the pending read; the reason is then what this read rejects with.
  const abort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener('abort', abort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      splitter.push(decoder.decode(value, { stream: true }));
      if (stop) {
        await reader.cancel().catch(() => undefined);
        return;
      }
    }
    splitter.push(decoder.decode());
    splitter.end();
  } finally {
    signal?.removeEventListener('abort', abort);
    reader.releaseLock();
  }
}

/**
 * Newline-delimited JSON-RPC over a pair of byte streams, the framing that
 * the stdio transport and the in-memory linked pair share: inbound lines are
 * split without trusting the peer to keep them short and classified one by
 * one; outbound messages are written a line each, corked per tick, with one
 * shared wait for `drain` when the stream is full.
 */
import type { Readable, Writable } from 'node:stream';
import { FrameError, idAtEnds, parseFrames, type JsonRpcMessage } from '../protocol/jsonrpc.ts';
import { serializeMessage } from './transport.ts';
import { LineSplitter } from './line-splitter.ts';
import type { TransportEvents } from './transport.ts';

/**
 * Classifies every line `input` carries as one frame, or a batch line as its messages (parseFrames); a line past
 * `maxFrameBytes` is an `oversized` FrameError.
 */
export function readFrames(input: Readable, maxFrameBytes: number, onFrame: TransportEvents['frame'], onEnd: () => void = () => {}): void {
  const splitter = new LineSplitter(maxFrameBytes, {
    line: (text) => {
      for (const frame of parseFrames(text, maxFrameBytes)) onFrame(frame);
    },
    oversized: (head, tail, limit) => {
      const responseId = idAtEnds(head, tail);
      const message = `line exceeds the ${limit} byte limit (maxFrameBytes); dropped`;
      onFrame({ kind: 'invalid', error: new FrameError('oversized', message, head, responseId === undefined ? {} : { responseId }) });
    },
  });
  input.on('data', (chunk: Buffer) => splitter.push(chunk));
  input.on('end', () => {
    splitter.end();
    onEnd();
  });
}

/** Writes messages to one stream as lines, honouring its back-pressure. */
export class LineWriter {
  /** Shared by every sender waiting for the stream to drain. */
  private drained: Promise<void> | undefined;

  constructor(private readonly output: Writable) {}

  /** Bytes written and not yet taken by the other side (buffered in the stream). */
  get backlogBytes(): number {
    return this.output.writableLength;
  }

  /** Resolves once the line is written or buffered below the stream's high-water mark; rejects if the stream closes first. */
  send(message: JsonRpcMessage): Promise<void> {
    const output = this.output;
    // Messages sent in one tick (10,000 listens opened at once) leave in one writev, not a write each.
    if (output.writableCorked === 0) {
      output.cork();
      process.nextTick(() => output.uncork());
    }
    let line: string;
    try {
      line = `${serializeMessage(message)}\n`;
    } catch (error) {
      return Promise.reject(error);
    }
    if (output.write(line)) return Promise.resolve();
    this.drained ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        output.off('drain', onDrain);
        output.off('close', onClose);
        output.off('error', settle);
        this.drained = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(new Error('the transport closed before the message was written'));
      output.once('drain', onDrain);
      output.once('close', onClose);
      output.once('error', settle);
    });
    return this.drained;
  }
}

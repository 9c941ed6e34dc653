/**
 * Our server's stdio served over two in-process streams, for scripted peers
 * that need no child process: lines written in, and what the server writes
 * collected message by message, waited for by match instead of by time.
 */
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type { McpServer } from '../../src/server/index.ts';
import type { Message } from './raw-stdio-peer.ts';

export interface InProcessStdio {
  /** Writes one message as a line. */
  send(message: Message): void;
  /** Writes `text` as it is, as one line (a batch, say). */
  sendLine(text: string): void;
  /** Every line the server wrote so far, parsed (a batch answer is an array). */
  readonly lines: unknown[];
  /** Resolves with the first message the server wrote (past or future) that matches. */
  next(match: (message: Message) => boolean): Promise<Message>;
  /** Ends the server's input. */
  end(): void;
}

export function serveInProcessStdio(server: McpServer): InProcessStdio {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  server.serveStdio({ stdin, stdout });
  const received: Message[] = [];
  const lines: unknown[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: stdout }).on('line', (line) => {
    const parsed = JSON.parse(line) as unknown;
    lines.push(parsed);
    // A batch answer is its messages, in order, for `next`.
    received.push(...((Array.isArray(parsed) ? parsed : [parsed]) as Message[]));
    for (const waiter of waiters.splice(0)) waiter();
  });
  return {
    lines,
    send: (message) => void stdin.write(`${JSON.stringify(message)}\n`),
    sendLine: (text) => void stdin.write(`${text}\n`),
    async next(match) {
      for (;;) {
        const seen = received.find(match);
        if (seen) return seen;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    end: () => void stdin.end(),
  };
}

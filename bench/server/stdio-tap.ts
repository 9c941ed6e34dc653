/**
 * Preloaded into a stdio server under the burst benchmark
 * (`node --import tsx --import ./bench/server/stdio-tap.ts <server>`), ours or
 * the official one alike: it watches what the server reads and what it hands
 * to stdout, without changing either, and counts the progress notifications
 * the server handed to stdout after it read the follow-up request and before
 * its answer: the notifications its own queue put ahead of the answer. It
 * also notes how many bytes stdout's buffer held (written, not yet taken by
 * the pipe) when the request was read, and how many it had written by then.
 * Reported once the answer was handed
 * over: to the file named by $STDIO_TAP_REPORT (JSON), else as one line on
 * stderr, `stdio-tap {"ahead":N,"buffered":B}`.
 */
import { writeFileSync } from 'node:fs';

import { FOLLOW_UP_ID, TAP_PREFIX, type TapReport } from './tap-report.ts';

const PROGRESS = 'notifications/progress';
const REQUEST = `"id":"${FOLLOW_UP_ID}"`;
const text = (chunk: unknown): string => (typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : '');
const occurrences = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

let written = 0;
let readAt: { written: number; buffered: number } | undefined;
let reported = false;

// Watch 'data' as the stream emits it: a listener of our own would switch the input's reading mode.
const stdin = process.stdin;
const emit = stdin.emit.bind(stdin);
stdin.emit = ((event: string | symbol, ...args: unknown[]) => {
  if (event === 'data' && readAt === undefined && text(args[0]).includes(REQUEST)) readAt = { written, buffered: process.stdout.writableLength };
  return emit(event, ...args);
}) as typeof stdin.emit;

const stdout = process.stdout;
const write = stdout.write.bind(stdout) as (chunk: unknown, ...rest: unknown[]) => boolean;
stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
  const frames = text(chunk);
  const answer = readAt && !reported ? frames.indexOf(REQUEST) : -1;
  if (answer >= 0) {
    reported = true;
    const report: TapReport = {
      ahead: written + occurrences(frames.slice(0, answer), PROGRESS) - readAt!.written,
      buffered: readAt!.buffered,
      writtenBeforeRead: readAt!.written,
    };
    const file = process.env.STDIO_TAP_REPORT;
    // Written before the answer is, so a client holding the answer finds the file.
    if (file) writeFileSync(file, JSON.stringify(report));
    else process.stderr.write(`${TAP_PREFIX}${JSON.stringify(report)}\n`);
  }
  written += occurrences(frames, PROGRESS);
  return write(chunk, ...rest);
}) as typeof stdout.write;

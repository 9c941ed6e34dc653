/**
 * The legacy GET stream's stall check (silence-watch.ts, legacy-get-stream.ts)
 * on fake timers: a stream is judged only once its server has sent a
 * keep-alive; a whole window with nothing at all is silence. A silent GET
 * stream that cannot be reopened (no event id to resume from) ends the
 * transport with `GetStreamStalledError`. The end-to-end case, a path that a
 * proxy blackholes and a reopen that delivers what it missed, is
 * test/integration/get-stream-stall.process.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClassifiedFrame } from '../../src/protocol/jsonrpc.ts';
import { GetStreamEndedError, GetStreamStalledError, openGetStream, type LegacyStreamHost } from '../../src/transport/legacy-get-stream.ts';
import { LegacySession } from '../../src/transport/legacy-session.ts';
import { OpenFetches } from '../../src/transport/open-fetches.ts';
import { SilenceWatch } from '../../src/transport/silence-watch.ts';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

function watch(windowMs: number) {
  let silent = 0;
  const silence = new SilenceWatch(windowMs, () => silent++);
  return { silence, silent: () => silent };
}

describe('SilenceWatch', () => {
  it('never judges a stream whose server has sent no keep-alive', () => {
    const { silence, silent } = watch(100);
    silence.heard();
    vi.advanceTimersByTime(10_000);
    expect(silent()).toBe(0);
  });

  it('after a keep-alive, judges every window: anything heard keeps it, a whole silent window is silence, once', () => {
    const { silence, silent } = watch(100);
    silence.keepAlive();
    vi.advanceTimersByTime(100); // the keep-alive itself counts for the first window
    for (let window = 0; window < 5; window++) {
      silence.heard();
      vi.advanceTimersByTime(100);
    }
    expect(silent()).toBe(0);
    vi.advanceTimersByTime(100);
    expect(silent()).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(silent()).toBe(1);
  });

  it('never judges with a window of 0, and nothing after stop()', () => {
    const off = watch(0);
    off.silence.keepAlive();
    vi.advanceTimersByTime(10_000);
    expect(off.silent()).toBe(0);
    const stopped = watch(100);
    stopped.silence.keepAlive();
    stopped.silence.stop();
    vi.advanceTimersByTime(10_000);
    expect(stopped.silent()).toBe(0);
  });
});

/** A transport as the GET stream sees it, whose GET answers with `body`. */
function host(body: ReadableStream<Uint8Array>, stallAfterMs: number) {
  const failures: unknown[] = [];
  const frames: ClassifiedFrame[] = [];
  const stub: LegacyStreamHost = {
    fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    fetches: new OpenFetches(),
    session: new LegacySession(),
    maxFrameBytes: 1 << 20,
    resume: undefined,
    stallAfterMs,
    get open() {
      return failures.length === 0;
    },
    baseHeaders: () => new Headers(),
    inbound: (frame) => void frames.push(frame),
    fail: (cause) => void failures.push(cause),
    error: (error) => void failures.push(error),
  };
  return { stub, failures, frames };
}

describe('the legacy GET stream gone silent', () => {
  it('ends the transport with GetStreamStalledError when it has no event id to be reopened from', async () => {
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (source = controller) });
    const { stub, failures, frames } = host(body, 1_000);
    const following = openGetStream(stub, new URL('http://127.0.0.1/mcp'));
    const bytes = (text: string) => new TextEncoder().encode(text);
    source.enqueue(bytes(': keep-alive\n\n'));
    source.enqueue(bytes('data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(failures).toEqual([]);
    expect(frames).toHaveLength(1);
    // Nothing more: two windows later at the latest it is judged.
    await vi.advanceTimersByTimeAsync(2_000);
    await following;
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(GetStreamStalledError);
    expect(failures[0]).toMatchObject({ code: 'get_stream_stalled', stallAfterMs: 1_000 });
    expect(failures[0]).not.toBeInstanceOf(GetStreamEndedError);
  });

  it('is never judged when its server sends no keep-alives', async () => {
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (source = controller) });
    const { stub, failures } = host(body, 1_000);
    const following = openGetStream(stub, new URL('http://127.0.0.1/mcp'));
    source.enqueue(new TextEncoder().encode('data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(failures).toEqual([]);
    source.close();
    await following;
    // Ended by the server, with no id to resume from: the ordinary end.
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(GetStreamEndedError);
  });
});

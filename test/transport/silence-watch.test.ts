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

const sse = (body: ReadableStream<Uint8Array>) => new Response(body, { headers: { 'content-type': 'text/event-stream' } });

/** A stream whose chunks a test writes. */
function pushedStream() {
  let source!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (controller) => void (source = controller) });
  return {
    body,
    push: (text: string) => source.enqueue(new TextEncoder().encode(text)),
    close: () => source.close(),
    fail: (reason: unknown) => source.error(reason),
  };
}

/** A GET that never answers, until its signal aborts (a hung node). */
const hung = (init: RequestInit | undefined) =>
  new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));

/**
 * A transport as the GET stream sees it: its first GET answers with `body`, each reopen as `reopen` says. Resumes
 * are quick and bounded to two attempts.
 */
function host(body: ReadableStream<Uint8Array>, stallAfterMs: number, reopen: (init: RequestInit | undefined) => Promise<Response> = hung) {
  const failures: unknown[] = [];
  const frames: ClassifiedFrame[] = [];
  let gets = 0;
  const stub: LegacyStreamHost = {
    fetch: async (_input, init) => (gets++ === 0 ? sse(body) : reopen(init)),
    fetches: new OpenFetches(),
    session: new LegacySession(),
    maxFrameBytes: 1 << 20,
    resume: { maxAttempts: 2, defaultRetryMs: 10 },
    stallAfterMs,
    get open() {
      return failures.length === 0;
    },
    baseHeaders: () => new Headers(),
    inbound: (frame) => void frames.push(frame),
    fail: (cause) => void failures.push(cause),
    error: (error) => void failures.push(error),
  };
  return { stub, failures, frames, gets: () => gets };
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

  it('counts a reopen its server leaves unanswered for a stall window as a failed attempt: a hung node ends the transport', async () => {
    const first = pushedStream();
    const { stub, failures, gets } = host(first.body, 1_000);
    const following = openGetStream(stub, new URL('http://127.0.0.1/mcp'));
    first.push('id: g1\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n: keep-alive\n\n');
    // Judged silent within two windows, then two reopens of a window each, 10 ms apart.
    await vi.advanceTimersByTimeAsync(5_000);
    await following;
    expect(gets()).toBe(3);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(GetStreamStalledError);
  });

  it('bounds a reopen by the window until its headers arrive only: the reopened body lives on', async () => {
    const first = pushedStream();
    const second = pushedStream();
    // As fetch does, the reopen's signal governs its body too.
    const reopen = async (init: RequestInit | undefined) => {
      init?.signal?.addEventListener('abort', () => second.fail(init.signal!.reason), { once: true });
      return sse(second.body);
    };
    const { stub, failures, frames, gets } = host(first.body, 1_000, reopen);
    const following = openGetStream(stub, new URL('http://127.0.0.1/mcp'));
    first.push('id: g1\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n: keep-alive\n\n');
    await vi.advanceTimersByTimeAsync(2_500);
    expect(gets()).toBe(2);
    // The reopened stream sends no keep-alive, so it is never judged, and the reopen's deadline is long gone.
    await vi.advanceTimersByTimeAsync(10_000);
    second.push('id: g2\ndata: {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n\n');
    await vi.advanceTimersByTimeAsync(0);
    expect(frames).toHaveLength(2);
    expect(failures).toEqual([]);
    second.close();
    await vi.advanceTimersByTimeAsync(5_000);
    await following;
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

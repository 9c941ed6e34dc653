/**
 * A legacy POST's response stream: its ids name the stream, it primes like
 * the GET stream, it parks when its connection dies and a resume with one of
 * its own ids (never another stream's) gets what followed, the rest and the end;
 * a session drops a stream left without a connection for `replayAgeMs`.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HttpResponse } from '../../src/server/http-exchange.ts';
import { HttpReply } from '../../src/server/http-io.ts';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { PostStream } from '../../src/server/post-stream.ts';
import { ReplayBuffer } from '../../src/server/replay-buffer.ts';
import { SessionPostStreams } from '../../src/server/session-post-streams.ts';

/** An in-memory response: records status, headers and body; `drop()` plays a dead connection. */
class RecordedResponse extends EventEmitter implements HttpResponse {
  status: number | undefined;
  headers: Record<string, string> = {};
  body = '';
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;

  getHeader(name: string): string | undefined {
    return this.headers[name];
  }

  setHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  writeHead(status: number, headers: Record<string, string>): this {
    this.status = status;
    this.headers = { ...this.headers, ...headers };
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {}

  write(chunk: string): boolean {
    if (!this.destroyed) this.body += chunk;
    return true;
  }

  end(chunk?: string): this {
    if (this.writableEnded) return this;
    if (chunk !== undefined) this.write(chunk);
    this.writableEnded = true;
    this.writableFinished = true;
    this.emit('close');
    return this;
  }

  destroy(): this {
    return this.drop();
  }

  /** The connection died: later writes go nowhere. */
  drop(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }

  ids(): string[] {
    return [...this.body.matchAll(/^id: (\S+)$/gm)].map((match) => match[1]!);
  }

  data(): string[] {
    return [...this.body.matchAll(/^data: (.+)$/gm)].map((match) => match[1]!);
  }
}

const options = {
  name: 'p4',
  requestId: 1,
  bounds: { maxEvents: 16, maxBytes: 65_536, maxAgeMs: 60_000 },
  highWater: 8,
  maxQueuedBytes: 8 * 1024 * 1024,
  finishTimeoutMs: 5_000,
  onShed: () => {},
  retryMs: 25,
  headers: { 'mcp-session-id': 's' },
  keepAliveMs: 0,
};
const progress = (n: number) => `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":${n}}}`;
const RESULT = '{"jsonrpc":"2.0","id":1,"result":{}}';

describe('ReplayBuffer for a named stream', () => {
  it('ids carry the stream name, and another stream id is a gap', () => {
    const buffer = new ReplayBuffer({ maxEvents: 8, maxBytes: 65_536, maxAgeMs: 60_000 }, Date.now, 'p2-');
    expect(buffer.lastId).toBe('p2-0');
    buffer.frame('{"a":1}');
    buffer.frame('{"a":2}');
    expect([...buffer.since('p2-0')!.matchAll(/^id: (\S+)$/gm)].map((match) => match[1])).toEqual(['p2-1', 'p2-2']);
    for (const id of ['g0', 'g1', 'p1-0', 'p20-0', 'p2-3', 'p2-', 'p2']) expect(buffer.since(id)).toBeUndefined();
  });
});

describe('PostStream', () => {
  it('a response with nothing before it is plain JSON, not resumable', async () => {
    const res = new RecordedResponse();
    const stream = new PostStream(res, options);
    await stream.finish(RESULT, 200);
    expect(stream.resumable).toBe(false);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe(RESULT);
  });

  it('a stream primes with its first id and the retry, then every message gets the next id of the stream', async () => {
    const res = new RecordedResponse();
    const stream = new PostStream(res, options);
    await stream.notify(progress(1));
    await stream.finish(RESULT, 200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.body.startsWith('id: p4-0\nretry: 25\ndata: \n\n')).toBe(true);
    expect(res.ids()).toEqual(['p4-0', 'p4-1', 'p4-2']);
    expect(res.data()).toEqual([progress(1), RESULT]);
    expect(res.writableEnded).toBe(true);
  });

  it('parks when its connection dies; a resume gets what followed the id, the rest, the response, then retry and the end', async () => {
    const post = new RecordedResponse();
    const stream = new PostStream(post, options);
    await stream.notify(progress(1));
    await stream.notify(progress(2));
    await new Promise<void>((resolve) => setImmediate(resolve)); // both written to the connection
    post.drop();
    await stream.notify(progress(3));
    const finished = stream.finish(RESULT, 200);

    const get = new RecordedResponse();
    expect(stream.resume(get, 'p4-1')).toBe('resumed');
    await finished;
    expect(get.body.startsWith('retry: 25\n\n')).toBe(true);
    expect(get.ids()).toEqual(['p4-2', 'p4-3', 'p4-4']);
    expect(get.data()).toEqual([progress(2), progress(3), RESULT]);
    expect(get.body.endsWith('retry: 25\n\n')).toBe(true);
    expect(get.writableEnded).toBe(true);
  });

  it('a resume after the response went into a dead connection still replays it', async () => {
    const post = new RecordedResponse();
    const stream = new PostStream(post, options);
    await stream.notify(progress(1));
    // The connection is dead but nobody noticed yet: the response is written into it and lost.
    post.destroyed = true;
    await stream.finish(RESULT, 200);
    const get = new RecordedResponse();
    expect(stream.resume(get, 'p4-1')).toBe('resumed');
    expect(get.data()).toEqual([RESULT]);
    expect(get.writableEnded).toBe(true);
  });

  it('an id of another stream, or of nothing this stream wrote, is a gap', async () => {
    const stream = new PostStream(new RecordedResponse(), options);
    await stream.notify(progress(1));
    for (const id of ['g1', 'p3-1', 'p4-9']) expect(stream.resume(new RecordedResponse(), id)).toBe('gap');
  });

  it('abandon releases a finish waiting for a resume', async () => {
    const post = new RecordedResponse();
    const stream = new PostStream(post, options);
    await stream.notify(progress(1));
    post.drop();
    const finished = stream.finish(RESULT, 200);
    stream.abandon();
    await expect(finished).resolves.toBeUndefined();
  });
});

/**
 * A response that takes long becomes a stream with keep-alives: a proxy's idle timeout (60 s on many load
 * balancers) would otherwise cut a tool call that sent nothing, headers included, for that long.
 */
describe('a slow response (keepAliveMs)', () => {
  afterEach(() => void vi.useRealTimers());
  const slow = { ...options, keepAliveMs: 1_000 };
  // The timers alone: the outbox drains on setImmediate.
  const fakeTimers = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });

  it('legacy: turns into a resumable stream after keepAliveMs, with a comment whenever idle that long', async () => {
    fakeTimers();
    const res = new RecordedResponse();
    const stream = new PostStream(res, slow);
    vi.advanceTimersByTime(999);
    expect(res.headersSent).toBe(false);
    vi.advanceTimersByTime(1);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(stream.resumable).toBe(true);
    expect(res.body).toBe('id: p4-0\nretry: 25\ndata: \n\n');
    vi.advanceTimersByTime(1_000);
    expect(res.body.endsWith(':\n\n')).toBe(true);
    await stream.notify(progress(1));
    await stream.finish(RESULT, 200);
    expect(res.data()).toEqual([progress(1), RESULT]);
    expect(res.writableEnded).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('legacy: a resumed stream gets its comments on the resuming connection', async () => {
    fakeTimers();
    const post = new RecordedResponse();
    const stream = new PostStream(post, slow);
    vi.advanceTimersByTime(1_000);
    post.drop();
    const get = new RecordedResponse();
    expect(stream.resume(get, 'p4-0')).toBe('resumed');
    vi.advanceTimersByTime(1_000);
    expect(get.body.endsWith(':\n\n')).toBe(true);
    await stream.finish(RESULT, 200);
    expect(get.data()).toEqual([RESULT]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('legacy: an answer within keepAliveMs stays plain JSON and leaves no timer', async () => {
    fakeTimers();
    const res = new RecordedResponse();
    const stream = new PostStream(res, slow);
    vi.advanceTimersByTime(999);
    await stream.finish(RESULT, 200);
    vi.advanceTimersByTime(5_000);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe(RESULT);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('modern: turns into a stream after keepAliveMs, with a comment whenever idle that long; a quick one stays JSON', async () => {
    fakeTimers();
    const res = new RecordedResponse();
    const reply = new HttpReply(res, { highWater: 8, keepAliveMs: 1_000 });
    vi.advanceTimersByTime(1_000);
    expect(res.headers['content-type']).toBe('text/event-stream');
    vi.advanceTimersByTime(1_000);
    expect(res.body).toBe(':\n\n');
    await reply.finish(RESULT, 200);
    expect(res.data()).toEqual([RESULT]);
    expect(res.writableEnded).toBe(true);
    expect(vi.getTimerCount()).toBe(0);

    const quick = new RecordedResponse();
    await new HttpReply(quick, { highWater: 8, keepAliveMs: 1_000 }).finish(RESULT, 200);
    vi.advanceTimersByTime(5_000);
    expect(quick.headers['content-type']).toBe('application/json');
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** A session's POST streams: one left without a connection for `replayAgeMs` is dropped, whichever connection it lost. */
describe('SessionPostStreams expiry', () => {
  afterEach(() => void vi.useRealTimers());
  const limits = { ...DEFAULT_LIMITS, replayAgeMs: 1_000 };

  /** A session's first POST stream, gone SSE with one progress message written to its connection. */
  async function streamingPost() {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const posts = new SessionPostStreams('s', limits, 0);
    const controller = new AbortController();
    const connection = new RecordedResponse();
    const post = posts.open(connection, 1, controller);
    await post.stream.notify(progress(1));
    await new Promise<void>((resolve) => setImmediate(resolve));
    return { posts, controller, connection };
  }

  it('drops a stream whose POST connection died once it went replayAgeMs without one', async () => {
    const { controller, connection } = await streamingPost();
    connection.drop();
    vi.advanceTimersByTime(999);
    expect(controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(controller.signal.aborted).toBe(true);
  });

  it('drops a resumed stream whose resuming connection died once it went replayAgeMs without one', async () => {
    const { posts, controller, connection } = await streamingPost();
    // The client resumes while the POST's connection still looks alive here: the resume ends that one properly.
    const resuming = new RecordedResponse();
    posts.resume(resuming, 'p1-1');
    expect(connection.writableFinished).toBe(true);
    vi.advanceTimersByTime(5_000);
    expect(controller.signal.aborted).toBe(false);
    resuming.drop();
    vi.advanceTimersByTime(999);
    expect(controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(controller.signal.aborted).toBe(true);
    // Gone: nothing is left to resume.
    const late = new RecordedResponse();
    posts.resume(late, 'p1-1');
    expect(late.status).toBe(400);
  });
});

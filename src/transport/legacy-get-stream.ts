/**
 * The legacy era's server-sent streams over HTTP that a GET opens: the
 * standalone GET stream for unsolicited server messages, and the reopening
 * (by GET with `Last-Event-ID`, after the server's `retry`, resumable-stream.ts)
 * of any legacy SSE stream that breaks after an event id. Only the HTTP
 * transport (http.ts) uses them; `LegacyStreamHost` is what they need of it.
 */
import { HttpStatusError, McpActorsError } from '../protocol/errors.ts';
import type { ClassifiedFrame } from '../protocol/jsonrpc.ts';
import type { Fetch } from './auth/discovery.ts';
import { readRpcError } from './json-body.ts';
import type { LegacySession } from './legacy-session.ts';
import type { OpenFetches } from './open-fetches.ts';
import { followStream, isEventStream, pause, RESUME_DEFAULTS, type FollowEnd, type ResumeOptions } from './resumable-stream.ts';
import { SseCursor } from './sse-cursor.ts';
import { SilenceWatch } from './silence-watch.ts';
import { readSseFrames, type FrameVerdict } from './sse-stream.ts';

/** The legacy GET stream ended while the transport was open: the server dropped it or went away. */
export class GetStreamEndedError extends McpActorsError {
  override readonly name = 'GetStreamEndedError';
  readonly code = 'get_stream_ended';
  constructor(options?: { cause?: unknown }) {
    super('the server ended the GET stream', options);
  }
}

/**
 * The legacy GET stream's server sends keep-alive comments, and then nothing at all arrived for a whole stall
 * window: the path to it went silent without closing (a proxy or load balancer that lost the connection, a hung
 * node). The stream is reopened with `Last-Event-ID` as after any break; when it cannot be (no event id, or the
 * resume bounds run out), the transport ends with this error, so the connection reconnects and every listener
 * hears `reconnected`.
 */
export class GetStreamStalledError extends McpActorsError {
  override readonly name = 'GetStreamStalledError';
  readonly code = 'get_stream_stalled';
  constructor(/** The stall window that went silent. */ readonly stallAfterMs: number) {
    super(`the GET stream heard nothing for ${stallAfterMs} ms although its server sends keep-alives`);
  }
}

/**
 * The server answered the standalone GET with a success that is no event stream (an HTML page, JSON): it offers no
 * GET stream there, as a 405 says. Reported once; list changes then arrive only on POST response streams.
 */
export class GetStreamContentTypeError extends McpActorsError {
  override readonly name = 'GetStreamContentTypeError';
  readonly code = 'get_stream_content_type';
  constructor(/** The response's content type; undefined when it named none. */ readonly contentType: string | undefined) {
    super(`the server answered the GET stream with ${contentType ?? 'no content type'}, not text/event-stream: no GET stream, list changes arrive on POST responses only`);
  }
}

/** What the legacy streams need of the HTTP transport that owns them. */
export interface LegacyStreamHost {
  readonly fetch: Fetch;
  /** Every open fetch of the transport; a GET stream is one of them while it runs. */
  readonly fetches: OpenFetches;
  /** The current legacy session: its id and protocol version go on every GET. */
  readonly session: LegacySession;
  readonly maxFrameBytes: number;
  readonly resume: ResumeOptions | undefined;
  /** The GET stream's stall window (`GetStreamStalledError`); 0 never judges. */
  readonly stallAfterMs: number;
  /** False once the transport failed or closed: a stream then delivers nothing more. */
  readonly open: boolean;
  /** The headers of every request: the caller's, and the bearer token. */
  baseHeaders(): Headers;
  /** Hands an inbound frame on to the connection. */
  inbound(frame: ClassifiedFrame): void;
  /** Ends the transport: the server is unreachable or forgot the session. */
  fail(cause: unknown): void;
  /** Reports a problem that does not end the transport. */
  error(error: Error): void;
}

/**
 * Opens the standalone GET stream and reads it until it ends; 405 (404 without a session), or a success that is no
 * event stream, means the server offers none. A 429 or a 5xx is a moment's refusal: the GET is tried again within the
 * `resume` bounds, after the server's `Retry-After` when it gives one, and the transport ends when they run out (the
 * connection reconnects and listeners hear `reconnected`), rather than going on without the stream.
 */
export async function openGetStream(host: LegacyStreamHost, endpoint: URL): Promise<void> {
  if (!host.open) return;
  const controller = host.fetches.startGetStream();
  if (controller === undefined) return;
  const body = await openedGetStream(host, endpoint, controller);
  if (body === undefined) {
    host.fetches.end(controller);
    return;
  }
  const deliver = (frame: ClassifiedFrame): FrameVerdict => {
    if (!host.open || controller.signal.aborted) return 'stop';
    host.inbound(frame);
    return 'continue';
  };
  const end = await followLegacyStream(host, endpoint, body, controller, deliver, host.stallAfterMs);
  host.fetches.end(controller);
  if (end.type === 'lost' && !controller.signal.aborted) {
    host.fail(end.cause instanceof GetStreamStalledError ? end.cause : new GetStreamEndedError({ cause: end.cause }));
  }
}

/** The GET stream's body, or undefined when there is none to read (what happened instead was reported). */
async function openedGetStream(host: LegacyStreamHost, endpoint: URL, controller: AbortController): Promise<ReadableStream<Uint8Array> | undefined> {
  const { maxAttempts, maxWaitMs, defaultRetryMs } = { ...RESUME_DEFAULTS, ...host.resume };
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const sentSessionId = host.session.id;
    let response: Response;
    try {
      response = await host.fetch(endpoint, { method: 'GET', headers: getHeaders(host), signal: controller.signal });
    } catch (error) {
      if (!controller.signal.aborted) host.fail(error);
      return undefined;
    }
    if (response.ok && response.body !== null && isEventStream(response)) return response.body;
    // 405 (or, from a server that minted no session, 404): the server offers no GET stream; list changes
    // then arrive only on POST response streams. A 404 for a GET that named our session: the session is gone.
    if (response.status === 405 || (response.status === 404 && sentSessionId === undefined)) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    if (response.ok) {
      await response.body?.cancel().catch(() => undefined);
      if (host.open) host.error(new GetStreamContentTypeError(response.headers.get('content-type') ?? undefined));
      return undefined;
    }
    const error = HttpStatusError.of(response, await readRpcError(response, controller.signal));
    if (response.status === 404) {
      host.fail(error);
      return undefined;
    }
    if (response.status !== 429 && response.status < 500) {
      if (host.open) host.error(error);
      return undefined;
    }
    const waitMs = Math.max(error.retryAfterMs ?? 0, defaultRetryMs * 2 ** (attempt - 1));
    if (attempt >= maxAttempts || Date.now() - started + waitMs > maxWaitMs) {
      if (host.open) host.fail(error);
      return undefined;
    }
    if (!(await pause(waitMs, controller.signal)) || !host.open) return undefined;
  }
}

/**
 * Reads a legacy SSE stream, reopening it by GET with `Last-Event-ID` when it breaks after an event id. With a
 * `stallAfterMs` above 0 (the GET stream's), a body whose server sent a keep-alive and then nothing for that long
 * counts as broken (`GetStreamStalledError`), and is reopened the same way: a path that went silent without
 * closing delivers, once reopened, what was sent into it, or the transport ends.
 */
export function followLegacyStream(
  host: LegacyStreamHost,
  endpoint: URL,
  body: ReadableStream<Uint8Array>,
  controller: AbortController,
  deliver: (frame: ClassifiedFrame) => FrameVerdict,
  stallAfterMs = 0,
): Promise<FollowEnd> {
  const cursor = new SseCursor();
  const io = {
    read: async (next: ReadableStream<Uint8Array>) => {
      let stopped = false;
      const stall = new AbortController();
      const silence = new SilenceWatch(stallAfterMs, () => stall.abort(new GetStreamStalledError(stallAfterMs)));
      const onFrame = (frame: ClassifiedFrame): FrameVerdict => {
        silence.heard();
        return deliver(frame) === 'stop' ? ((stopped = true), 'stop') : 'continue';
      };
      try {
        await readSseFrames(next, host.maxFrameBytes, onFrame, { cursor, onComment: () => silence.keepAlive(), signal: stall.signal });
      } finally {
        silence.stop();
      }
      return stopped ? ('stopped' as const) : ('ended' as const);
    },
    reopen: async (lastEventId: string) => {
      const headers = getHeaders(host);
      headers.set('last-event-id', lastEventId);
      const response = await reopenWithin(stallAfterMs, (signal) => host.fetch(endpoint, { method: 'GET', headers, signal }), controller.signal);
      // A 404 for a resume that named our session: the server forgot the session.
      if (response.status === 404 && host.session.id !== undefined) host.fail(HttpStatusError.of(response));
      return response;
    },
  };
  return followStream(body, cursor, io, controller.signal, host.resume);
}

/**
 * A reopen of a watched stream (`stallAfterMs` above 0) whose server has not answered within the stall window is a
 * failed attempt (`GetStreamStalledError`), as a hung node's would otherwise wait for ever; the window bounds the
 * wait for the response's headers only, never its body.
 */
async function reopenWithin(stallAfterMs: number, get: (signal: AbortSignal) => Promise<Response>, signal: AbortSignal): Promise<Response> {
  if (stallAfterMs <= 0) return get(signal);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new GetStreamStalledError(stallAfterMs)), stallAfterMs);
  try {
    return await get(AbortSignal.any([signal, deadline.signal]));
  } finally {
    clearTimeout(timer);
  }
}

function getHeaders(host: LegacyStreamHost): Headers {
  const headers = host.session.apply(host.baseHeaders());
  headers.set('accept', 'text/event-stream');
  return headers;
}
